#pragma once
// The events of holds on a room's seats; the room's log carries them with its own
// (core/rooms/event).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/ids.hpp"

namespace foyer {

// Holds on a room's seats (core/inventory/seat_ledger). Each is a request made durable: applying
// it decides, from the room as the log left it, what it did (a hold placed for seats
// taken meanwhile places nothing), so replay decides the same. `key` is the request's
// Idempotency-Key: a retry is answered from what the first did.
struct hold_placed {
  std::string room;
  id16 hold{};
  id16 visitor{};
  // The visitor's place, if their pass's claim is known: its slot ends, their seats
  // count as held from here.
  std::optional<std::uint64_t> place;
  std::uint32_t seats = 0;
  std::string key;
  std::int64_t at_ms = 0;
  // The stations the hold goes from and to, with legs; empty for the whole route.
  std::string from{};
  std::string to{};
};

// The site's payment is pending: the hold lasts extension_seconds longer, once.
struct hold_extended {
  std::string room;
  id16 hold{};
  std::string key;
  std::int64_t at_ms = 0;
};

// The site's payment succeeded: the hold is confirmed, or, if it ended and its seats are
// gone, the payment is to be refunded.
struct hold_confirmed {
  std::string room;
  id16 hold{};
  std::string key;
  std::int64_t at_ms = 0;
};

struct hold_released {
  std::string room;
  id16 hold{};
  std::string key;
  std::int64_t at_ms = 0;
};

// The ticker's sweep: these holds' time passed, their seats are available again.
struct holds_expired {
  std::string room;
  std::vector<id16> holds;
  std::int64_t at_ms = 0;
};

// The operator's recount of the seats (seat_ledger::recount): held and confirmed counted
// again from the holds, available the rest of each total, and the ledger unfrozen.
// Decided when it applies: it changes nothing while a total is below what its holds take.
struct seats_recounted {
  std::string room;
  std::int64_t at_ms = 0;
};

// What applying a hold event did, decided from the room as the log left it (replay
// decides the same): kept under the request's key for its retries, and carried to the
// sinks and the audit trail. Refusals are outcomes too: a placement written while seats
// were free may find them taken when it is applied.
enum class hold_outcome : std::uint8_t {
  placed,
  sold_out,          // too few seats available when it was applied
  live_hold_exists,  // the visitor holds seats already (second_hold = refuse)
  bad_seats,         // more seats than max_seats_per_hold, or none
  hold_id_taken,
  extended,
  extended_already,
  not_held,  // the hold is no longer held: nothing to extend or release
  confirmed,
  refund_required,
  released,
  ended_already,  // a release of a hold that had ended: answered as the hold is
  expired,        // the sweep ended at least one hold
  nothing_due,    // the sweep found none of its holds still held past their time
  unknown_hold,
  repeated,      // the key had answered before: nothing done, its first answer stands
  no_inventory,  // the room has no seats (any more)
  frozen,        // the seat ledger is frozen: nothing applied
  bad_route,     // stations the room's legs do not have, or the wrong way round
  waitlisted,    // in line for seats that may come back (inventory.waitlist)
  seats_per_pass_exceeded,  // the pass would hold and have confirmed more than max_seats_per_pass
  pass_ended,               // the pass was reported done, or its claim is not known
  // The account would hold and have confirmed more than the event's max_seats_per_account
  // across its rooms.
  seats_per_account_exceeded,
};
inline constexpr auto last_hold_outcome = hold_outcome::seats_per_account_exceeded;
std::string_view to_string(hold_outcome outcome);

}  // namespace foyer
