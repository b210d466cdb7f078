#pragma once
// Hold requests, decided here on the loop: the handler authenticates the caller, asks,
// writes the event it is given, and answers from the room as the log left it (ask
// again: the receipt under the request's key is the answer, or the refusal stands).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "core/desk.hpp"
#include "core/inventory/seat_ledger.hpp"
#include "core/rooms/room.hpp"
#include "core/rooms/status.hpp"

namespace foyer {

struct hold_request {
  hold_action action = hold_action::place;
  id16 hold{};  // the hold asked about; for a placement, the new hold's id
  // The visitor asking with their pass; none for the site. A visitor may place a hold
  // and release or read their own.
  std::optional<id16> visitor;
  std::optional<std::uint64_t> place;  // placement: the visitor's place, if their claim is known
  std::uint32_t seats = 0;  // placement: how many seats
  // Placement: the stations, with legs (route_of).
  std::optional<std::string> from{};
  std::optional<std::string> to{};
};

// A refusal, the first answer to a retried key, or an event to write. `account_seats`: what
// the visitor's account may still hold in the room under its event's cap
// (journal::account_seats), checked again when the placement applies.
using hold_decision = step<hold_receipt, event>;
hold_decision decide_hold(const room& r, std::string_view key, const hold_request& request, std::int64_t now_ms,
                          std::optional<std::uint64_t> account_seats = std::nullopt);

// The hold as the caller may see it: the visitor their own, the site any.
std::variant<const hold*, desk_refusal> hold_for(const room& r, const id16& hold_id, const std::optional<id16>& visitor);

// The visitor's hold while it holds seats or waits in line for them at `now`: what their
// status shows in place of the pass whose slot it took.
struct live_hold {
  id16 id;
  const hold* entry;  // the ledger's own, valid until the room next changes
};
std::optional<live_hold> live_hold_for(const room& r, const id16& visitor, std::int64_t now_ms);

// How often a visitor on the waitlist asks again: seats come back at any moment, and the
// line is as short as the room's `waitlist` makes it.
constexpr std::uint32_t waitlist_poll_ms = 2'000;

// An admitted visitor without a live pass: their status becomes `holding` or `waitlisted`
// with the hold it returns, or `expired` without one.
std::optional<live_hold> show_hold(const room& r, const id16& visitor, std::int64_t now_ms, visitor_status& status);

// The site reported the visitor's pass of this room done: Foyer refuses it from then on
// (a pass never claimed places nothing either: the log decides that when it applies).
bool pass_done(const room& r, const id16& visitor);

// A confirmation's id: the same for every confirm of the hold.
id16 confirmation_id(const id16& hold_id);

}  // namespace foyer
