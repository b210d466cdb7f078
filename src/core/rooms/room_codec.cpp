#include "core/rooms/room.hpp"

#include <algorithm>

#include "core/base/codec.hpp"

namespace foyer {
namespace {

// 1: before configuration was history (the config came from the file at each start);
// 2: the configuration in force, who owns the room, and the accounts that joined;
// 3: admission that follows the site: settings of room_config_format 2, the rate, the
//    passes claimed and the stock;
// 4: settings of room_config_format 3, and the seats and their holds;
// 5: the seat ledger with its own format byte (seat_ledger::encode);
// 6: the settings' room_config_format before them: later formats need no new state;
// 7: the lottery's commit terms and what its draw waits for from the witnesses;
// 8: the lanes, each with its counts and its passes' claims, where the claims were, then
//    the access codes and the invites used;
// 9: the lobbies of the lanes other than the general one, for their own draws;
// 10: the visitors' live resume links, before the seat ledger;
// 11: each lane's claims end with the places told "it's your turn" (claim_book). The draw's
//     flags byte (awaits witnesses, commit and close witnessed) took bit 3 later: the
//     beacon's drand::beacon_check, two_relays when set; earlier snapshots have it clear;
//     then bit 4: the origins of the relays that agreed on the beacon follow the byte.
constexpr std::uint8_t legacy_state_format = 1;
constexpr std::uint8_t accounts_state_format = 2;
constexpr std::uint8_t site_state_format = 3;
constexpr std::uint8_t seats_state_format = 4;
constexpr std::uint8_t ledger_state_format = 5;
constexpr std::uint8_t config_format_state_format = 6;
constexpr std::uint8_t commit_state_format = 7;
constexpr std::uint8_t lanes_state_format = 8;
constexpr std::uint8_t lane_lobbies_state_format = 9;
constexpr std::uint8_t resume_state_format = 10;
constexpr std::uint8_t state_format = 11;

void write_optional(writer& w, const std::optional<std::int64_t>& v) {
  w.u8(v.has_value());
  w.i64(v.value_or(0));
}

std::optional<std::int64_t> read_optional(reader& r) {
  bool present = r.u8() != 0;
  std::int64_t v = r.i64();
  return present ? std::optional(v) : std::nullopt;
}

}  // namespace

std::string room::encode_state() const {
  writer w;
  w.u8(state_format);
  w.raw(draws_[0].seed);
  w.i64(created_at_ms_);
  w.u8(static_cast<std::uint8_t>(state_));
  w.u64(joined_);
  w.u64(served_);
  w.i64(tick_ms_);
  w.u64(carry_);
  w.str(draws_[0].lobby.encode());
  write_optional(w, closed_at_ms_);
  write_optional(w, opened_at_ms_);
  w.u8(beacon_.has_value());
  w.str(beacon_.value_or(""));
  w.u8(room_config_format);
  write_room_config(w, config_);
  w.u8(static_cast<std::uint8_t>(owner_));
  write_room_config(w, declared_);
  w.u8(configured_);
  // In account order: equal states encode to equal bytes.
  std::vector<std::pair<id16, const joined_entry*>> accounts;
  accounts.reserve(accounts_.size());
  for (const auto& [account, entry] : accounts_) accounts.emplace_back(account, &entry);
  std::sort(accounts.begin(), accounts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  w.u64(accounts.size());
  for (const auto& [account, e] : accounts) {
    const joined_entry& entry = *e;
    w.raw(account);
    w.raw(entry.visitor);
    w.raw(entry.entrant);
    w.i64(entry.at_ms);
    w.u8(entry.outcome.place.has_value());
    w.u64(entry.outcome.place ? *entry.outcome.place : entry.outcome.lobby_index.value_or(0));
  }
  w.u32(base_rate_);
  w.u32(rate_);
  w.u8(static_cast<std::uint8_t>(rate_reason_));
  w.u8(sold_out_by_supply_from_.has_value());
  w.u8(static_cast<std::uint8_t>(sold_out_by_supply_from_.value_or(room_state::open)));
  lanes_.encode(w);
  codes_.encode(w);
  invites_.encode(w);
  stock_.encode(w);
  w.u8(committed_.has_value());
  if (committed_) {
    w.u8(static_cast<std::uint8_t>(committed_->beacon));
    w.u64(committed_->round);
    w.i64(committed_->closes_at_ms);
  }
  w.u8(static_cast<std::uint8_t>(awaits_witnesses_ | witnessed_commit_ << 1 | witnessed_close_ << 2 |
                                 (beacon_check_ == drand::beacon_check::two_relays) << 3 |
                                 (!beacon_relays_.empty()) << 4));
  if (!beacon_relays_.empty()) {
    w.u8(static_cast<std::uint8_t>(beacon_relays_.size()));
    for (const auto& relay : beacon_relays_) w.str(relay);
  }
  w.u64(draws_.size() - 1);
  for (std::size_t i = 1; i < draws_.size(); ++i) w.str(draws_[i].lobby.encode());
  resume_.encode(w);
  // Last: the seat ledger's tests find it at the end.
  seats_.encode(w);
  return w.take();
}

bool room::decode_state(std::string_view bytes) {
  reader r(bytes);
  auto format = r.u8();
  if (format < legacy_state_format || format > state_format) return false;
  auto seed = r.raw<32>();
  auto created = r.i64();
  auto state = r.u8();
  auto joined = r.u64();
  auto served = r.u64();
  auto tick = r.i64();
  auto carry = r.u64();
  auto lobby = merkle::frontier::decode(r.str());
  auto closed = read_optional(r);
  auto opened = read_optional(r);
  bool has_beacon = r.u8() != 0;
  auto beacon = r.str();
  std::optional<room_config> config, declared;
  auto owner = static_cast<std::uint8_t>(owner_);
  bool configured = configured_;
  std::unordered_map<id16, joined_entry, id16_hash> accounts;
  claim_book claims;
  lane_queues lanes;
  code_book codes;
  invite::jti_book invites;
  stock_ledger stock;
  seat_ledger seats;
  std::uint32_t base_rate = 0, rate = 0;
  std::uint8_t reason = 0, stock_from = 0;
  bool sold_out_by_stock = false;
  if (format >= accounts_state_format) {
    auto config_format = format >= config_format_state_format ? r.u8()
                         : format >= seats_state_format ? std::uint8_t{3}
                         : format == site_state_format  ? std::uint8_t{2}
                                                        : std::uint8_t{1};
    if (config_format > room_config_format) return false;
    config = read_room_config(r, config_format);
    owner = r.u8();
    declared = read_room_config(r, config_format);
    configured = r.u8() != 0;
    auto count = r.u64();
    for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
      auto account = r.raw<16>();
      joined_entry entry{r.raw<16>(), r.raw<16>(), r.i64(), {}};
      bool placed = r.u8() != 0;
      (placed ? entry.outcome.place : entry.outcome.lobby_index) = r.u64();
      accounts.emplace(account, entry);
    }
  }
  if (format >= site_state_format) {
    base_rate = r.u32();
    rate = r.u32();
    reason = r.u8();
    sold_out_by_stock = r.u8() != 0;
    stock_from = r.u8();
    bool queues = format >= lanes_state_format ? lanes.decode(r, format >= state_format) && codes.decode(r) && invites.decode(r)
                                                  : claims.decode(r, /*with_notices=*/false);
    if (!queues || !stock.decode(r)) return false;
  }
  std::optional<commit_terms> committed;
  std::uint8_t witnessing = 0;
  if (format >= commit_state_format) {
    if (r.u8() != 0) {
      auto beacon = r.u8();
      if (beacon > static_cast<std::uint8_t>(ledger::beacon_kind::operator_value)) return false;
      committed = commit_terms{static_cast<ledger::beacon_kind>(beacon), r.u64(), r.i64()};
    }
    witnessing = r.u8();
  }
  std::vector<std::string> beacon_relays;
  if (witnessing & 16) {
    auto count = r.u8();
    if (count == 0 || count > max_beacon_relays) return false;
    for (std::uint8_t i = 0; i < count && !r.failed(); ++i) beacon_relays.push_back(r.str());
  }
  // The general lane's lobby first, then the other lanes' in lane order.
  std::vector<std::optional<merkle::frontier>> lobbies{std::move(lobby)};
  if (format >= lane_lobbies_state_format) {
    auto count = r.u64();
    if (count >= max_lane_ids) return false;
    for (std::uint64_t i = 0; i < count && !r.failed(); ++i) lobbies.push_back(merkle::frontier::decode(r.str()));
  }
  resume_book resume;
  if (format >= resume_state_format && !resume.decode(r)) return false;
  bool lobbies_good = std::all_of(lobbies.begin(), lobbies.end(), [](const auto& l) {
    // A lobby the lottery cannot shuffle: refused here, before anything is applied.
    return l && l->size() < lottery::lobby_size_limit;
  });
  if (format >= seats_state_format &&
      !seats.decode(r, config ? config->inventory : config_.inventory, /*versioned=*/format >= ledger_state_format)) {
    return false;
  }
  if (!r.done() || witnessing > 31 || reason > static_cast<std::uint8_t>(rate_reason::no_show_compensation) ||
      stock_from > static_cast<std::uint8_t>(room_state::closed) || owner > static_cast<std::uint8_t>(room_owner::api) ||
      !lobbies_good || state > static_cast<std::uint8_t>(room_state::closed) || served > joined || seed != draws_[0].seed ||
      (format >= lanes_state_format && lanes.totals() != std::pair{joined, served}) ||
      (format >= lane_lobbies_state_format && lanes.size() < lobbies.size())) {
    return false;
  }
  created_at_ms_ = created;
  state_ = static_cast<room_state>(state);
  joined_ = joined;
  served_ = served;
  tick_ms_ = tick;
  carry_ = carry;
  closed_at_ms_ = closed;
  opened_at_ms_ = opened;
  beacon_ = has_beacon ? std::optional(beacon) : std::nullopt;
  if (config) config_ = std::move(*config);
  if (declared) declared_ = std::move(*declared);
  owner_ = static_cast<room_owner>(owner);
  configured_ = configured;
  accounts_ = std::move(accounts);
  visitor_accounts_.clear();
  for (const auto& [account, entry] : accounts_) visitor_accounts_.emplace(entry.visitor, account);
  if (format >= site_state_format) {
    base_rate_ = std::max<std::uint32_t>(base_rate, 1);
    rate_ = std::max<std::uint32_t>(rate, 1);
    rate_reason_ = static_cast<rate_reason>(reason);
    sold_out_by_supply_from_ = sold_out_by_stock ? std::optional(static_cast<room_state>(stock_from)) : std::nullopt;
    stock_ = std::move(stock);
  } else {
    reset_rate();
    stock_ = stock_ledger{};
    stock_.retotal(std::nullopt, config_.stock);
  }
  codes_ = std::move(codes);
  invites_ = std::move(invites);
  resume_ = std::move(resume);
  if (format >= lanes_state_format) {
    lanes_ = std::move(lanes);
  } else {
    lanes_.restore_general(joined_, served_, std::move(claims));
  }
  if (format >= seats_state_format) {
    seats_ = std::move(seats);
  } else {
    seats_ = seat_ledger{};
    seats_.retotal(config_.inventory, tick_ms_);
  }
  committed_ = committed;
  awaits_witnesses_ = witnessing & 1;
  witnessed_commit_ = witnessing & 2;
  witnessed_close_ = witnessing & 4;
  beacon_check_ = witnessing & 8 ? drand::beacon_check::two_relays : drand::beacon_check::none;
  beacon_relays_ = std::move(beacon_relays);
  draws_.resize(1);
  for (std::size_t i = 0; i < lobbies.size(); ++i) {
    if (i > 0) {
      draws_.emplace_back(lane_seed(draws_[0].seed, lanes_.at(static_cast<std::uint8_t>(i)).config.id));
    }
    auto& d = draws_[i];
    d.lobby = std::move(*lobbies[i]);
    d.root.reset();
    d.key.reset();
    d.permutation.reset();
    if (closed_at_ms_) d.root = d.lobby.root();
  }
  if (closed_at_ms_ && opened_at_ms_) derive_permutations();
  return true;
}

}  // namespace foyer
