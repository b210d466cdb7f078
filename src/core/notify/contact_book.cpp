#include "core/notify/contact_book.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "core/lanes/lane_place.hpp"
#include "core/rooms/status.hpp"

namespace foyer::notify {
namespace {

std::size_t index(channel ch) { return static_cast<std::size_t>(ch); }

bool ended(room_state s) { return s == room_state::closed || s == room_state::sold_out; }

// A confirmation token's first 16 bytes: its key among the room's tickets awaiting confirmation.
id16 first_half(const digest& tag) {
  id16 out{};
  std::copy_n(tag.begin(), out.size(), out.begin());
  return out;
}

}  // namespace

contact_book::address_id contact_book::address_of(const contact& c) const {
  // Case folded: one mailbox is not many by its spelling.
  auto address = std::get<email_contact>(c).address;
  std::transform(address.begin(), address.end(), address.begin(),
                 [](char ch) { return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch; });
  auto mac = hmac_sha256(address_key_, {as_bytes(address)});
  address_id out{};
  std::copy_n(mac.begin(), out.size(), out.begin());
  return out;
}

bool contact_book::mail_once(room_book& book, const address_id& address, notice_kind kind) const {
  // Its holder confirmed this very ticket: another ticket naming the address can't use up its notices.
  if (confirm_) return true;
  auto bit = kind == notice_kind::soon ? mailed_soon : mailed_turn;
  auto& mailed = book.mailed[address].sent;
  if (mailed & bit) return false;
  mailed |= bit;
  return true;
}

std::optional<opt_in_refusal> contact_book::refusal(std::string_view room, const id16& visitor,
                                                    const contact& c) const {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return std::nullopt;
  const auto& book = it->second;
  if (!book.visitors.contains(visitor) && book.visitors.size() >= max_per_room_) return opt_in_refusal::room_full;
  if (channel_of(c) != channel::email) return std::nullopt;
  auto address = address_of(c);
  if (auto gave = book.addressed.find(visitor); gave != book.addressed.end()) {
    return gave->second == address ? std::nullopt : std::optional{opt_in_refusal::address_taken};
  }
  bool known = book.mailed.contains(address);
  if (book.addressed.size() >= 2 * max_per_room_ || (!known && book.mailed.size() >= 2 * max_per_room_)) {
    return opt_in_refusal::room_full;
  }
  return std::nullopt;
}

contact_decision contact_book::decide_add(std::string_view room, const id16& visitor,
                                          std::optional<std::uint64_t> place, std::optional<std::uint64_t> lobby_index,
                                          const contact& c) const {
  if (auto why = refusal(room, visitor, c)) return {why, std::nullopt};
  entry next{place, lobby_index, {}, {}, false};
  const entry* held = nullptr;
  if (auto it = rooms_.find(room); it != rooms_.end()) {
    if (auto found = it->second.visitors.find(visitor); found != it->second.visitors.end()) held = &found->second;
  }
  if (held) {
    next = *held;
    if (!next.place) next.place = place;
  }
  if (const auto* push = std::get_if<push_subscription>(&c)) {
    next.push = *push;
  } else if (!held || !held->email || address_of(*held->email) != address_of(c)) {
    next.email = std::get<email_contact>(c);
  }
  if (held && next == *held) return {};
  return {std::nullopt, record_change{encode_contact_key(room, visitor), encode_contact_record(next)}};
}

contact_decision contact_book::decide_remove(std::string_view room, const id16& visitor) const {
  if (!stored(room, visitor)) return {};
  return {std::nullopt, record_change{encode_contact_key(room, visitor), std::nullopt}};
}

bool contact_book::add(std::string_view room, const id16& visitor, std::optional<std::uint64_t> place,
                       std::optional<std::uint64_t> lobby_index, contact c) {
  if (refusal(room, visitor, c)) return false;
  auto it = rooms_.find(room);
  if (it == rooms_.end()) it = rooms_.emplace(std::string(room), room_book{}).first;
  auto& book = it->second;
  auto found = book.visitors.find(visitor);
  if (found == book.visitors.end()) {
    found = book.visitors.emplace(visitor, entry{place, lobby_index, {}, {}, false}).first;
    index_place(book, visitor, found->second);
    changed(room, visitor);
  } else if (!found->second.place && place) {
    // A lobby member's ticket carries their place once the draw gave it.
    unindex(book, visitor, found->second);
    found->second.place = place;
    index_place(book, visitor, found->second);
    changed(room, visitor);
  }
  auto& e = found->second;
  auto ch = channel_of(c);
  bool had = ch == channel::push ? e.push.has_value() : e.email.has_value();
  if (ch == channel::email) {
    auto address = address_of(c);
    bool fresh = book.addressed.emplace(visitor, address).second;
    book.mailed.try_emplace(address);
    const auto& email = std::get<email_contact>(c);
    // Once per visitor (they give one address): the ticket awaits its confirmation mail.
    if (fresh && !email.confirm_link.empty()) {
      book.confirming.emplace(first_half(confirm_tag(room, address, visitor)), std::pair{visitor, address});
      book.to_confirm.push_back(visitor);
    }
  }
  if (auto* push = std::get_if<push_subscription>(&c)) {
    if (e.push != *push) changed(room, visitor);
    e.push = std::move(*push);
  } else if (!e.email || address_of(*e.email) != address_of(c)) {
    // The same address again keeps what it had: its confirmation (or the wait for it) and link.
    changed(room, visitor);
    e.email = std::move(std::get<email_contact>(c));
  }
  // A page sends its subscription again on every load: one opt-in, however often.
  if (!had) {
    ++book.counts.opted_in[index(ch)];
    ++book.counts.held[index(ch)];
  }
  return true;
}

bool contact_book::remove(std::string_view room, const id16& visitor) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return false;
  auto found = it->second.visitors.find(visitor);
  if (found == it->second.visitors.end()) return false;
  drop(it->second, found);
  changed(room, visitor);
  return true;
}

void contact_book::forget(std::string_view room, const id16& visitor, channel ch) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return;
  auto found = it->second.visitors.find(visitor);
  if (found == it->second.visitors.end()) return;
  auto& e = found->second;
  bool had = ch == channel::push ? std::exchange(e.push, std::nullopt).has_value()
                                 : std::exchange(e.email, std::nullopt).has_value();
  if (!had) return;
  --it->second.counts.held[index(ch)];
  changed(room, visitor);
  if (e.push || e.email) return;
  unindex(it->second, visitor, e);
  it->second.visitors.erase(found);
}

void contact_book::forget_channel(channel ch) {
  for (auto& [room, book] : rooms_) {
    std::vector<id16> holding;
    for (const auto& [visitor, e] : book.visitors) {
      if (ch == channel::push ? e.push.has_value() : e.email.has_value()) holding.push_back(visitor);
    }
    for (const auto& visitor : holding) forget(room, visitor, ch);
  }
}

std::optional<contact> contact_book::find(std::string_view room, const id16& visitor, channel ch) const {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return std::nullopt;
  auto found = it->second.visitors.find(visitor);
  if (found == it->second.visitors.end()) return std::nullopt;
  const auto& e = found->second;
  if (ch == channel::push && e.push) return contact{*e.push};
  if (ch == channel::email && e.email) return contact{*e.email};
  return std::nullopt;
}

void contact_book::index_place(room_book& book, const id16& visitor, const entry& e) {
  if (e.place) {
    book.by_place.emplace(*e.place, visitor);
  } else {
    book.unplaced.insert(visitor);
  }
}

void contact_book::unindex(room_book& book, const id16& visitor, const entry& e) {
  if (e.place) {
    book.by_place.erase({*e.place, visitor});
  } else {
    book.unplaced.erase(visitor);
  }
}

void contact_book::hold(room_book& book, const id16& visitor, entry e) {
  if (e.push) ++book.counts.held[index(channel::push)];
  if (e.email) ++book.counts.held[index(channel::email)];
  auto found = book.visitors.emplace(visitor, std::move(e)).first;
  index_place(book, visitor, found->second);
}

void contact_book::drop(room_book& book, std::map<id16, entry>::iterator found) {
  if (found->second.push) --book.counts.held[index(channel::push)];
  if (found->second.email) --book.counts.held[index(channel::email)];
  unindex(book, found->first, found->second);
  book.visitors.erase(found);
}

void contact_book::place_drawn(room_book& book, const room& r) {
  // Every lane draws at once, with the room's one beacon.
  if (book.unplaced.empty() || !r.revealed_seed()) return;
  for (auto v = book.unplaced.begin(); v != book.unplaced.end();) {
    auto& e = book.visitors.at(*v);
    if (e.lobby_index) e.place = r.place_of(*e.lobby_index);
    if (!e.place) {
      ++v;
      continue;
    }
    book.by_place.emplace(*e.place, *v);
    v = book.unplaced.erase(v);
  }
}

std::vector<notice> contact_book::plan(const journal& rooms, std::int64_t now_ms, std::uint32_t soon_seconds) {
  std::vector<notice> out;
  looked_at_ = 0;
  for (auto it = rooms_.begin(); it != rooms_.end();) {
    const room* r = rooms.find(it->first);
    if (!r || ended(r->state())) {
      for (const auto& v : it->second.visitors) changed(it->first, v.first);
      it = rooms_.erase(it);
      continue;
    }
    auto& book = it->second;
    plan_confirmations(it->first, book, now_ms, out);
    place_drawn(book, *r);
    for (std::uint8_t lane = 0; lane < r->lanes().size(); ++lane) {
      // status_of's estimate is (position + 1) / rate minutes: nobody further back is due.
      std::uint64_t rate = std::max<std::uint32_t>(r->lane_rate(lane), 1);
      auto reach = std::min(r->served_in_lane(lane, now_ms) + rate * soon_seconds / 60 + 1, lane_place_mask);
      auto at = book.by_place.lower_bound({lane_place(lane, 0), id16{}});
      while (at != book.by_place.end() && at->first < lane_place(lane, reach)) {
        ++looked_at_;
        auto v = book.visitors.find(at->second);
        auto& e = v->second;
        auto st = status_of(*r, e.place, now_ms, /*jitter=*/0.0, {}, e.lobby_index);
        auto kind = due_notice(st, e.soon_sent, /*turn_sent=*/false, soon_seconds);
        if (!kind) {
          ++at;
          continue;
        }
        auto minutes = *kind == notice_kind::soon ? minutes_of(st.eta_seconds) : 0;
        auto send = [&](channel ch, contact c) {
          ++book.counts.sent[index(ch)];
          out.push_back({it->first, v->first, *e.place, *kind, minutes, std::move(c)});
        };
        if (e.push) send(channel::push, *e.push);
        // A ticket awaiting its confirmation gets nothing else.
        if (e.email && e.email->confirm_link.empty() && mail_once(book, address_of(*e.email), *kind)) {
          send(channel::email, *e.email);
        }
        changed(it->first, v->first);
        if (*kind == notice_kind::soon) {
          e.soon_sent = true;
          ++at;
          continue;
        }
        // The last notice is on its way: the book holds the contact no longer.
        if (e.push) --book.counts.held[index(channel::push)];
        if (e.email) --book.counts.held[index(channel::email)];
        at = book.by_place.erase(at);
        book.visitors.erase(v);
      }
    }
    std::erase_if(book.told, [&](std::uint64_t place) {
      if (r->pass_claimed_once(place)) return true;
      if (!r->lapsed(place, now_ms)) return false;
      ++book.counts.notified_no_shows;
      ++notified_no_shows_;
      return true;
    });
    ++it;
  }
  return out;
}

void contact_book::record(std::string_view room, channel ch, notice_kind kind, outcome o) {
  auto it = rooms_.find(room);
  if (kind == notice_kind::confirm) {
    ++confirmation_outcomes_[static_cast<std::size_t>(o)];
    if (it != rooms_.end() && o == outcome::delivered) ++it->second.counts.confirmations_delivered;
    return;
  }
  ++outcomes_[index(ch)][static_cast<std::size_t>(o)];
  if (it == rooms_.end()) return;
  if (o == outcome::delivered) ++it->second.counts.delivered[index(ch)];
  if (o == outcome::gone || o == outcome::refused || o == outcome::dropped) ++it->second.counts.refused[index(ch)];
}

void contact_book::told(std::string_view room, std::uint64_t place) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return;
  auto& told = it->second.told;
  if (std::find(told.begin(), told.end(), place) == told.end()) told.push_back(place);
}

room_counts contact_book::counts(std::string_view room) const {
  auto it = rooms_.find(room);
  return it == rooms_.end() ? room_counts{} : it->second.counts;
}

std::size_t contact_book::size() const {
  std::size_t n = 0;
  for (const auto& [id, book] : rooms_) n += book.visitors.size();
  return n;
}

bool contact_book::restore(std::string_view key, std::string_view value) {
  auto who = decode_contact_key(key);
  auto record = decode_contact_record(value);
  if (!who || !record) return false;
  auto& book = rooms_[who->first];
  if (book.visitors.contains(who->second)) return false;
  if (record->push) ++book.counts.opted_in[index(channel::push)];
  if (record->email) {
    ++book.counts.opted_in[index(channel::email)];
    auto address = address_of(*record->email);
    book.addressed.emplace(who->second, address);
    book.mailed[address].sent |= record->soon_sent ? mailed_soon : 0;
    // Its confirmation mail went before the restart: its link still confirms it.
    if (!record->email->confirm_link.empty()) {
      book.confirming.emplace(first_half(confirm_tag(who->first, address, who->second)), std::pair{who->second, address});
    }
  }
  hold(book, who->second, std::move(*record));
  return true;
}

std::optional<std::string> contact_book::stored(std::string_view room, const id16& visitor) const {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return std::nullopt;
  auto found = it->second.visitors.find(visitor);
  if (found == it->second.visitors.end()) return std::nullopt;
  return encode_contact_record(found->second);
}

std::vector<record_change> contact_book::take_changes() {
  std::vector<record_change> out;
  out.reserve(changed_.size());
  for (auto& key : changed_) {
    auto who = decode_contact_key(key);
    out.push_back({key, stored(who->first, who->second)});
  }
  changed_.clear();
  return out;
}

void contact_book::unwritten(const std::vector<record_change>& changes) {
  for (const auto& c : changes) changed_.insert(c.key);
}

digest contact_book::confirm_tag(std::string_view room, const address_id& address, const id16& visitor) const {
  return hmac_sha256(address_key_, {as_bytes("foyer/notice-confirm/v2"), as_bytes(room), address, visitor});
}

std::string contact_book::confirm_path(std::string_view room, std::string_view address, const id16& visitor) const {
  auto tag = confirm_tag(room, address_of(email_contact{std::string(address), {}, {}}), visitor);
  return fmt::format("/r/{}/notify/confirm/{}", room, to_hex(tag));
}

const contact_book::entry* contact_book::confirming_entry(std::string_view room, std::string_view token,
                                                          id16& visitor) const {
  auto it = rooms_.find(room);
  auto tag = token.size() == 64 ? from_hex_fixed<32>(token) : std::nullopt;
  if (it == rooms_.end() || !tag) return nullptr;
  auto found = it->second.confirming.find(first_half(*tag));
  if (found == it->second.confirming.end()) return nullptr;
  const auto& [who, address] = found->second;
  if (!equal_constant_time(confirm_tag(room, address, who), *tag)) return nullptr;
  auto held = it->second.visitors.find(who);
  // The ticket's contact is gone (opted out, told its turn, forgotten): nothing to confirm.
  if (held == it->second.visitors.end() || !held->second.email || address_of(*held->second.email) != address) {
    return nullptr;
  }
  visitor = who;
  return &held->second;
}

std::optional<std::vector<record_change>> contact_book::decide_confirm(std::string_view room,
                                                                        std::string_view token) const {
  id16 visitor{};
  const entry* e = confirming_entry(room, token, visitor);
  if (!e) return std::nullopt;
  std::vector<record_change> out;
  if (e->email->confirm_link.empty()) return out;
  auto next = *e;
  next.email->confirm_link.clear();
  out.push_back({encode_contact_key(room, visitor), encode_contact_record(next)});
  return out;
}

bool contact_book::confirm(std::string_view room, std::string_view token) {
  id16 visitor{};
  if (!confirming_entry(room, token, visitor)) return false;
  auto& e = rooms_.find(room)->second.visitors.at(visitor);
  if (e.email->confirm_link.empty()) return true;
  e.email->confirm_link.clear();
  changed(room, visitor);
  return true;
}

void contact_book::plan_confirmations(const std::string& room, room_book& book, std::int64_t now_ms,
                                      std::vector<notice>& out) {
  // The newest opt-in's first: tickets opted in earlier can't hold back a later one's mail.
  std::vector<id16> later;
  for (auto v = book.to_confirm.rbegin(); v != book.to_confirm.rend(); ++v) {
    auto found = book.visitors.find(*v);
    if (found == book.visitors.end() || !found->second.email || found->second.email->confirm_link.empty()) continue;
    auto& mailed = book.mailed[address_of(*found->second.email)];
    if (mailed.confirm_at_ms && now_ms - *mailed.confirm_at_ms < confirm_spacing_ms) {
      later.push_back(*v);
      continue;
    }
    mailed.confirm_at_ms = now_ms;
    ++book.counts.confirmations_sent;
    out.push_back({room, *v, found->second.place.value_or(0), notice_kind::confirm, 0, *found->second.email});
  }
  std::reverse(later.begin(), later.end());
  book.to_confirm = std::move(later);
}

}  // namespace foyer::notify
