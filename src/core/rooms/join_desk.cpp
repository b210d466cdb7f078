#include "core/rooms/join_desk.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "core/gate/account_hint.hpp"
#include "core/rooms/no_script.hpp"

namespace foyer {
namespace {

// The ticket a join was given, rebuilt from what the log keeps of it.
ticket ticket_of(std::string_view room_id, const joined_entry& entry) {
  ticket t;
  t.room = room_id;
  t.visitor = entry.visitor;
  t.place = entry.outcome.place;
  t.lobby_index = entry.outcome.lobby_index;
  if (t.lobby_index) t.entrant = entry.entrant;
  t.issued_ms = entry.at_ms;
  return t;
}

}  // namespace

join_desk::join_desk(join_price& price, std::string account_secret, invite_settings invites)
    : price_(price), account_secret_(std::move(account_secret)), invites_(std::move(invites)) {}

std::optional<desk_refusal> join_desk::refuse_room(const room& r) const {
  if (r.state() == room_state::sold_out) return desk_refusal{errc::sold_out, "Everything has been sold; the queue is closed."};
  if (!r.accepts_joins()) return desk_refusal{errc::closed, "This room is closed to new visitors."};
  return std::nullopt;
}

join_step join_desk::decide(const journal& rooms, const join_request& req, std::int64_t now_ms) {
  const room* r = rooms.find(req.room_id);
  if (!r) return no_such_room(req.room_id);
  // One entry per visitor: a visitor who holds a ticket for this room gets it back.
  if (req.presented) return join_entry{*req.presented, /*existing=*/true};
  if (auto refused = refuse_room(*r)) return *refused;

  std::optional<id16> account;
  auto network = network_of(req.address);
  std::optional<std::pair<std::uint8_t, invite::claims>> invited;
  if (req.no_script && (!req.invite.empty() || !req.code.empty())) {
    return desk_refusal{errc::bad_join_body, "A join without JavaScript takes no code or invite."};
  }
  if (!req.invite.empty()) {
    if (!req.code.empty() || !req.account.empty() || !req.account_hint.empty()) {
      return desk_refusal{errc::bad_join_body, "An invite names its account and lane: send it without a code or account."};
    }
    auto checked = check_invite(*r, req, network, now_ms);
    if (auto* refused = std::get_if<desk_refusal>(&checked)) return *refused;
    invited = std::get<std::pair<std::uint8_t, invite::claims>>(std::move(checked));
    account = invited_account(account_scope(r->config()), invited->second.account);
  } else if (req.account.empty() && req.account_hint.empty() && r->config().require_account) {
    return desk_refusal{errc::account_required,
                        "This room takes visitors with their account only: join through the link the site gives "
                        "you once you are signed in."};
  }
  if (!invited && (!req.account.empty() || !req.account_hint.empty())) {
    if (account_secret_.empty()) return desk_refusal{errc::account_hints_off, "This server takes no account hints."};
    account = verify_account_hint(as_bytes(account_secret_), req.room_id, req.account, req.account_hint);
    if (!account) return desk_refusal{errc::bad_account_hint, "The account hint does not match the account."};
    // The site signs hints per room; the rooms of an event keep one digest of the account.
    if (!r->config().event.empty()) account = account_digest(as_bytes(account_secret_), account_scope(r->config()), req.account);
  }
  if (account) {
    // Decided from the log's own index: an account that joined gets its entry back.
    if (const auto* entry = r->account_entry(*account)) return join_entry{ticket_of(req.room_id, *entry), true};
    if (accounts_joining_.contains(*account)) {
      return desk_refusal{errc::join_in_progress, "This account is joining already; retry in a moment."};
    }
  }

  join_commit c;
  c.event.room = req.room_id;
  c.event.account = account;
  std::copy_n(req.ids.begin(), c.event.visitor.size(), c.event.visitor.begin());
  std::copy_n(req.ids.begin() + c.event.visitor.size(), c.event.entrant.size(), c.event.entrant.begin());
  if (invited) {
    c.event.lane = invited->first;
    c.event.invite = invite::invite_used{req.room_id, invited->second.jti, invited->second.exp_ms, now_ms};
  } else if (req.no_script) {
    auto lane = no_script_lane_of(*r, network, now_ms);
    if (auto* refused = std::get_if<desk_refusal>(&lane)) return *refused;
    c.event.lane = std::get<std::uint8_t>(lane);
  } else if (!req.code.empty()) {
    auto code = check_code(*r, req, account.value_or(c.event.visitor), network, now_ms);
    if (auto* refused = std::get_if<desk_refusal>(&code)) return *refused;
    std::tie(c.event.lane, c.event.code) = std::get<std::pair<std::uint8_t, digest>>(code);
  } else if (r->lane_takes(general_lane, lane_entry::invite)) {
    return desk_refusal{errc::invite_required, "This room takes invited visitors only: join through the link the site gives you."};
  } else if (!r->lane_takes(general_lane, lane_entry::open)) {
    return desk_refusal{errc::code_required, "This room takes visitors with an access code: enter yours to join."};
  }
  // The lane's share and the network's budget stand in for the proof a page without
  // JavaScript cannot compute.
  if (!req.no_script) {
    auto proof = check_proof(req, network, now_ms);
    if (auto* refused = std::get_if<desk_refusal>(&proof)) return *refused;
    c.spent_challenge = std::get<std::optional<std::uint64_t>>(proof);
  }

  c.event.at_ms = now_ms;
  c.network = network;
  if (account) accounts_joining_.insert(*account);
  return c;
}

namespace {

desk_refusal code_refused() {
  // One answer whether the code exists or not.
  return desk_refusal{errc::invalid_code, "This access code is not accepted. Check it and try again."};
}

desk_refusal too_many(std::string_view what, std::int64_t wait_ms) {
  auto seconds = (wait_ms + 999) / 1000;
  return desk_refusal{.code = errc::too_many_requests,
                      .detail = fmt::format("{} from your network; try again in {} s.", what, seconds),
                      .retry_after_s = seconds};
}

desk_refusal too_many_refused(std::int64_t wait_ms) {
  return too_many("Too many codes were refused", wait_ms);
}

// A network as a budget's key.
id16 budget_key(const network_key& network) {
  id16 key{};
  std::copy(network.bytes.begin(), network.bytes.end(), key.begin());
  return key;
}

}  // namespace

std::variant<std::pair<std::uint8_t, digest>, desk_refusal> join_desk::check_code(const room& r, const join_request& req,
                                                                                 const id16& redeemer,
                                                                                 const network_key& network,
                                                                                 std::int64_t now_ms) {
  auto key = budget_key(network);
  if (auto wait = refused_codes_.wait(key, now_ms)) return too_many_refused(*wait);
  auto normalized = normalize_code(req.code);
  auto code = normalized ? std::optional(code_digest(*normalized)) : std::nullopt;
  auto decision = code ? r.check_code(*code, redeemer) : code_decision{};
  auto lane = r.lanes().index_of(decision.lane);
  if (decision.verdict != code_verdict::ok || !lane) {
    refused_codes_.spend(key, now_ms);
    return code_refused();
  }
  return std::pair{*lane, *code};
}

std::variant<std::uint8_t, desk_refusal> join_desk::no_script_lane_of(const room& r, const network_key& network,
                                                                       std::int64_t now_ms) {
  const auto* lane = no_script_lane(r.config().lanes);
  auto index = lane ? r.lanes().index_of(lane->id) : std::nullopt;
  if (!index) return desk_refusal{errc::not_found, "This room has no queue for visitors without JavaScript."};
  if (auto wait = no_script_joins_.spend(budget_key(network), now_ms)) {
    return too_many("Many visitors joined without JavaScript", *wait);
  }
  return *index;
}

id16 join_desk::invited_account(std::string_view scope, std::string_view account) const {
  // Keyed as account hints are, when the site signs them: one entry per account either way.
  auto key = account_secret_.empty() ? byte_view(invites_.account_key) : as_bytes(account_secret_);
  return account_digest(key, scope, account);
}

std::variant<std::pair<std::uint8_t, invite::claims>, desk_refusal> join_desk::check_invite(const room& r,
                                                                                           const join_request& req,
                                                                                           const network_key& network,
                                                                                           std::int64_t now_ms) {
  // Not the token's fault: it is neither refused nor counted against the network.
  if (invites_.keys && invites_.keys->awaiting_first()) {
    return desk_refusal{errc::invite_keys_unavailable,
                        "The site's invite keys have not been fetched yet; try again in a few seconds."};
  }
  auto key = budget_key(network);
  if (auto wait = refused_codes_.wait(key, now_ms)) return too_many_refused(*wait);
  auto refuse = [&] {
    refused_codes_.spend(key, now_ms);
    return code_refused();
  };
  const auto* keys = invites_.keys ? invites_.keys->keys() : nullptr;
  if (!keys) return refuse();
  auto checked = invite::check_invite(req.invite, *keys, {r.config().id, now_ms});
  // The site may have rotated its keys since the last fetch: this one is refused, and the
  // keys are fetched again soon, so that the next is not.
  if (auto* error = std::get_if<invite::invite_error>(&checked); error && error->code == invite::refusal::unknown_key) {
    invites_.keys->key_missed();
  }
  auto* claims = std::get_if<invite::claims>(&checked);
  if (!claims || r.invites().seen(claims->jti) || r.invites().full()) return refuse();
  // The lane the site named, or the general lane, if it takes invites.
  auto lane = claims->lane.value_or(std::string(general_lane));
  auto index = r.lanes().index_of(lane);
  bool general_open = lane == general_lane && r.lane_takes(lane, lane_entry::open);
  if (!index || !(r.lane_takes(lane, lane_entry::invite) || general_open)) return refuse();
  if (claims->agent && r.config().agents_barred_seconds > 0) {
    auto from = r.opened_at_ms().value_or(now_ms) + std::int64_t{r.config().agents_barred_seconds} * 1000;
    if (!r.opened_at_ms() || now_ms < from) {
      return desk_refusal{errc::agent_window,
                          fmt::format("Agents may join this room from {} s after it opens.", r.config().agents_barred_seconds)};
    }
  }
  return std::pair{*index, std::move(*claims)};
}

std::variant<std::optional<std::uint64_t>, desk_refusal> join_desk::check_proof(const join_request& req,
                                                                                const network_key& network,
                                                                                std::int64_t now_ms) {
  auto now = static_cast<std::uint64_t>(now_ms);
  auto extra = price_.extra_bits(req.address, network, now);
  // Without any price, local development and tests may join with no challenge.
  if (price_.base_bits == 0 && extra == 0 && req.challenge.empty()) return std::optional<std::uint64_t>();
  if (req.challenge.empty() || req.nonce.empty()) {
    return desk_refusal{errc::bad_join_body,
                        "Send {\"challenge\": \"...\", \"nonce\": \"...\"} from POST .../challenge and its solution."};
  }
  auto verdict = price_.authority.verify(req.challenge, req.nonce, req.room_id, network, now, extra);
  if (verdict.outcome == pow::verdict::underpriced) {
    ++proof_rejections_["underpriced"];
    return desk_refusal{.code = errc::price_rose,
                        .detail = "Joining from your network costs more now than when this challenge was issued. Solve "
                                  "the challenge in this answer and join with it.",
                        .offer = price_.authority.mint(req.room_id, network, now, extra)};
  }
  if (verdict.ok() &&
      price_.spent.try_spend(verdict.challenge_id, verdict.expires_at_ms, now) == pow::spend_outcome::spent) {
    return std::optional<std::uint64_t>(verdict.challenge_id);
  }
  // One answer for every reason, so a bot learns nothing about why; the reason goes to
  // the metrics.
  ++proof_rejections_[verdict.ok() ? "replayed" : std::string(pow::to_string(verdict.outcome))];
  return desk_refusal{errc::proof_rejected,
                      "The proof of work was not accepted. Fetch a new challenge and solve it again."};
}

join_step join_desk::finish(const journal& rooms, const join_commit& c, std::error_code ec,
                            const join_outcome& outcome, std::int64_t now_ms) {
  if (c.event.account) accounts_joining_.erase(*c.event.account);
  if (ec) {
    if (c.spent_challenge) price_.spent.give_back(*c.spent_challenge);
    return not_durable();
  }
  price_.pressure.record(c.network, static_cast<std::uint64_t>(now_ms));
  const room* r = rooms.find(c.event.room);
  if (!r) return no_such_room(c.event.room);
  if (outcome.refused) {
    if (const auto* entry = c.event.account ? r->account_entry(*c.event.account) : nullptr) {
      return join_entry{ticket_of(c.event.room, *entry), true};
    }
    if (auto closed = refuse_room(*r)) return *closed;
    // Open still: the log refused the code or invite (another join used it first) or its lane went.
    if (c.event.code || c.event.invite) return code_refused();
    return desk_refusal{errc::closed, "This lane takes no more visitors."};
  }
  const auto& e = c.event;
  return join_entry{ticket_of(e.room, joined_entry{e.visitor, e.entrant, e.at_ms, outcome}), false};
}

}  // namespace foyer
