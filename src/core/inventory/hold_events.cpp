#include "core/inventory/hold_events.hpp"

namespace foyer {

std::string_view to_string(hold_outcome outcome) {
  switch (outcome) {
    case hold_outcome::placed: return "placed";
    case hold_outcome::sold_out: return "sold_out";
    case hold_outcome::live_hold_exists: return "live_hold_exists";
    case hold_outcome::bad_seats: return "bad_seats";
    case hold_outcome::hold_id_taken: return "hold_id_taken";
    case hold_outcome::extended: return "extended";
    case hold_outcome::extended_already: return "extended_already";
    case hold_outcome::not_held: return "not_held";
    case hold_outcome::confirmed: return "confirmed";
    case hold_outcome::refund_required: return "refund_required";
    case hold_outcome::released: return "released";
    case hold_outcome::ended_already: return "ended_already";
    case hold_outcome::expired: return "expired";
    case hold_outcome::nothing_due: return "nothing_due";
    case hold_outcome::unknown_hold: return "unknown_hold";
    case hold_outcome::repeated: return "repeated";
    case hold_outcome::no_inventory: return "no_inventory";
    case hold_outcome::frozen: return "frozen";
    case hold_outcome::bad_route: return "bad_route";
    case hold_outcome::waitlisted: return "waitlisted";
    case hold_outcome::seats_per_pass_exceeded: return "seats_per_pass_exceeded";
    case hold_outcome::pass_ended: return "pass_ended";
    case hold_outcome::seats_per_account_exceeded: return "seats_per_account_exceeded";
  }
  return "unknown";
}

}  // namespace foyer
