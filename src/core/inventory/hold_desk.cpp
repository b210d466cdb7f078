#include "core/inventory/hold_desk.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/base/crypto.hpp"
#include "core/passes/pass_issuer.hpp"

namespace foyer {
namespace {

// The place of the visitor's pass, if its claim is known: its lane's terms hold.
std::optional<std::uint64_t> place_of(const room& r, const id16& visitor) {
  return r.place_of_pass(pass::pass_id(r.config().id, visitor));
}

bool same_request(const seat_ledger& seats, const hold_receipt& first, const hold_request& request) {
  if (first.action != request.action) return false;
  if (request.action != hold_action::place) return request.hold == first.hold;
  auto route = route_of(*seats.settings(), request.from, request.to);
  const auto* legs = std::get_if<leg_span>(&route);
  // A request that was applied with stations no route has is the same if it still has none.
  bool same_route = first.outcome == hold_outcome::bad_route ? !legs : legs && *legs == first.legs;
  return request.visitor == first.visitor && request.seats == first.seats && same_route;
}

// A refusal recorded under the key when its request was applied, as the desk would say it.
desk_refusal refusal_of(const hold_receipt& first, const seat_ledger& seats, const hold_terms& terms) {
  switch (first.outcome) {
    case hold_outcome::sold_out:
      return {errc::sold_out, fmt::format("Too few seats were available when the request was applied; {} are available "
                                          "now, {} held may come back. Ask again with a new key.",
                                          seats.available(), seats.held())};
    case hold_outcome::live_hold_exists:
      return {errc::live_hold_exists, "You held seats already when the request was applied: confirm or release them first."};
    case hold_outcome::bad_seats: return {errc::bad_body, "The request asked for a number of seats a hold cannot take."};
    case hold_outcome::extended_already: return {errc::hold_extended_already, "A hold is extended once only."};
    case hold_outcome::not_held:
      return {errc::hold_not_held, fmt::format("The hold was {} when the request was applied.", to_string(first.state))};
    case hold_outcome::unknown_hold: return {errc::unknown_hold, "There is no such hold."};
    case hold_outcome::bad_route:
      return {errc::invalid_route, "The stations were not a route of this room when the request was applied.", "from"};
    case hold_outcome::seats_per_pass_exceeded:
      return {errc::seats_per_pass_exceeded,
              fmt::format("Your pass had {} seats confirmed when the request was applied; it may take {} in all.",
                          seats.confirmed_of(first.visitor), terms.seats_per_pass)};
    case hold_outcome::seats_per_account_exceeded:
      return {errc::seats_per_account_exceeded,
              "Your account held or had confirmed too many seats across this event's rooms when the request was "
              "applied (max_seats_per_account)."};
    case hold_outcome::pass_ended:
      return {errc::pass_required, "Your pass was reported done, or never claimed, when the request was applied."};
    case hold_outcome::no_inventory:
      return {errc::no_inventory, "The room had no seats to hold when the request was applied: it was removed."};
    default: return {errc::internal_error, "The request was refused; ask again with a new key."};
  }
}

hold_decision decide_place(const room& r, const seat_ledger& seats, std::string_view key, const hold_request& request,
                           const hold_terms& terms, std::int64_t now_ms) {
  const auto& settings = *seats.settings();
  if (seats.find(request.hold)) return desk_refusal{errc::internal_error, "This hold id is taken; ask again."};
  if (request.seats == 0 || request.seats > settings.max_seats_per_hold) {
    return desk_refusal{errc::bad_body, fmt::format("Ask for 1 to {} seats.", settings.max_seats_per_hold)};
  }
  auto route = route_of(settings, request.from, request.to);
  if (const auto* bad = std::get_if<field_problem>(&route)) {
    return desk_refusal{errc::invalid_route, fmt::format("\"{}\" {}.", bad->field, bad->message), bad->field};
  }
  const auto legs = std::get<leg_span>(route);
  auto confirmed = seats.confirmed_of(*request.visitor);
  if (confirmed + request.seats > terms.seats_per_pass) {
    return desk_refusal{errc::seats_per_pass_exceeded,
                        fmt::format("Your pass has {} seats confirmed and may take {} in all (max_seats_per_pass).",
                                    confirmed, terms.seats_per_pass)};
  }
  auto earlier = seats.live_hold_of(*request.visitor);
  if (earlier && settings.second == second_hold::refuse) {
    return desk_refusal{errc::live_hold_exists,
                        fmt::format("You hold seats already (hold {}): confirm or release it first.", to_hex(*earlier))};
  }
  if (terms.account_seats && confirmed + request.seats > *terms.account_seats) {
    return desk_refusal{errc::seats_per_account_exceeded,
                        fmt::format("Your account may take {} more seats in this room: it holds or has confirmed the "
                                    "rest of this event's max_seats_per_account in its other rooms.",
                                    *terms.account_seats > confirmed ? *terms.account_seats - confirmed : 0)};
  }
  if (seats.placement(legs, request.seats, earlier ? &*earlier : nullptr) == hold_outcome::sold_out) {
    return desk_refusal{errc::sold_out, fmt::format("{} seats are available now; {} held may come back.",
                                                    seats.available(legs), seats.held())};
  }
  return hold_placed{r.config().id, request.hold, *request.visitor, request.place, request.seats, std::string(key), now_ms,
                     request.from.value_or(""), request.to.value_or("")};
}

// A release of a hold that ended, answered from the hold as it stands.
hold_receipt as_ended(const id16& hold_id, const hold& h, std::int64_t now_ms) {
  hold_receipt r;
  r.action = hold_action::release;
  r.hold = hold_id;
  r.visitor = h.visitor;
  r.seats = h.seats;
  r.state = h.state;
  r.expires_ms = h.expires_ms;
  r.at_ms = now_ms;
  r.outcome = hold_outcome::ended_already;
  r.legs = h.legs;
  return r;
}

}  // namespace

bool pass_done(const room& r, const id16& visitor) {
  auto place = place_of(r, visitor);
  return place && r.pass_done(*place);
}

id16 confirmation_id(const id16& hold_id) {
  auto d = sha256({as_bytes(std::string_view("foyer confirmation")), hold_id});
  id16 out;
  std::copy_n(d.begin(), out.size(), out.begin());
  return out;
}

std::optional<live_hold> live_hold_for(const room& r, const id16& visitor, std::int64_t now_ms) {
  auto id = r.seats().live_hold_of(visitor);
  if (!id) return std::nullopt;
  const hold* h = r.seats().find(*id);
  if (!h || (h->state != hold_state::held && h->state != hold_state::waitlisted) || h->expires_ms <= now_ms) {
    return std::nullopt;
  }
  return live_hold{*id, h};
}

std::optional<live_hold> show_hold(const room& r, const id16& visitor, std::int64_t now_ms, visitor_status& status) {
  auto live = live_hold_for(r, visitor, now_ms);
  if (!live) {
    status.state = "expired";
  } else if (live->entry->state == hold_state::waitlisted) {
    status.state = "waitlisted";
    status.poll_after_ms = waitlist_poll_ms;
  } else {
    status.state = "holding";
  }
  return live;
}

std::variant<const hold*, desk_refusal> hold_for(const room& r, const id16& hold_id, const std::optional<id16>& visitor) {
  const hold* h = r.seats().find(hold_id);
  // Another visitor's hold is as unknown as one that never was.
  if (!h || (visitor && h->visitor != *visitor)) return desk_refusal{errc::unknown_hold, "There is no such hold."};
  return h;
}

hold_decision decide_hold(const room& r, std::string_view key, const hold_request& request, std::int64_t now_ms,
                          std::optional<std::uint64_t> account_seats) {
  const seat_ledger& seats = r.seats();
  if (!seats.enabled()) return desk_refusal{errc::no_inventory, "This room has no seats to hold."};
  if (seats.frozen()) {
    return desk_refusal{errc::inventory_frozen,
                        "The room's seat count failed its check: holds are refused until an operator looks."};
  }
  if (const hold_receipt* first = seats.receipt(key)) {
    if (!same_request(seats, *first, request)) {
      return desk_refusal{errc::idempotency_key_reused,
                          "This Idempotency-Key was first used for another request; use a new key for a new request."};
    }
    if (refused(first->outcome)) return refusal_of(*first, seats, r.hold_terms_for(place_of(r, first->visitor), std::nullopt));
    return *first;
  }
  if (request.action == hold_action::place) {
    auto place = request.place ? request.place : place_of(r, *request.visitor);
    return decide_place(r, seats, key, request, r.hold_terms_for(place, account_seats), now_ms);
  }
  auto found = hold_for(r, request.hold, request.visitor);
  if (auto* refused = std::get_if<desk_refusal>(&found)) return *refused;
  const hold& h = *std::get<const hold*>(found);
  std::string id = r.config().id;
  switch (request.action) {
    case hold_action::extend:
      if (h.state != hold_state::held || h.expires_ms <= now_ms) {
        return desk_refusal{errc::hold_not_held, fmt::format("The hold is {}: only a held hold is extended.",
                                                             h.state == hold_state::held ? "expired" : to_string(h.state))};
      }
      if (h.extended) return desk_refusal{errc::hold_extended_already, "A hold is extended once only."};
      return hold_extended{id, request.hold, std::string(key), now_ms};
    case hold_action::confirm: return hold_confirmed{id, request.hold, std::string(key), now_ms};
    case hold_action::release:
      if (h.state == hold_state::confirmed || h.state == hold_state::refund_required) {
        return desk_refusal{errc::hold_not_held, fmt::format("The hold is {}: it cannot be released.", to_string(h.state))};
      }
      // Ended already: answered as it stands, and nothing is written.
      if (h.state == hold_state::released || h.state == hold_state::expired) return as_ended(request.hold, h, now_ms);
      return hold_released{id, request.hold, std::string(key), now_ms};
    case hold_action::place: break;
  }
  return desk_refusal{errc::internal_error, "Unknown hold request."};
}

}  // namespace foyer
