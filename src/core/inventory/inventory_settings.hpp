#pragma once
// A room's seats as its configuration declares them (room_config::inventory).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foyer {

// What a second hold request by a visitor who holds seats already does.
enum class second_hold : std::uint8_t { refuse, release_first };
std::string_view to_string(second_hold policy);

// Seats that can't be oversold (core/inventory/seat_ledger): admitted visitors hold seats for a
// while, the site confirms or releases them, and admission follows the seats.
struct inventory_settings {
  std::uint64_t total = 0;                 // required: the number of seats
  std::uint32_t hold_seconds = 180;        // Default: a hold lasts 3 minutes
  std::uint32_t extension_seconds = 90;    // Default: payment-pending adds 90 s, once
  std::uint32_t late_grace_seconds = 300;  // Default: a confirmation up to 5 min late still gets seats if free
  std::uint32_t max_seats_per_hold = 4;    // Default: 4 seats in one hold at most
  second_hold second = second_hold::refuse;  // Default: refuse, 409 live_hold_exists
  // Default: none, the route is one leg. Else the stations in order: N stations make the
  // N-1 legs between them, and a hold names the stations it goes from and to.
  std::vector<std::string> legs;
  std::vector<std::uint64_t> leg_totals;  // Default: `total` seats on each leg; else one per leg
  std::uint32_t waitlist = 0;  // Default: 0, no waitlist; else how many may wait for seats that may come back
  // Default: none, max_seats_per_hold: the seats one pass may hold and have confirmed over
  // its life, however many holds it places one after another.
  std::optional<std::uint32_t> max_seats_per_pass;
  // Default: none. In a room of an event (room_config::event): the seats one account may
  // hold, wait for and have confirmed across the event's rooms. A hold placed in this
  // room is checked against this room's value: give every room of the event the same.
  std::optional<std::uint32_t> max_seats_per_account;

  std::uint32_t seats_per_pass() const { return max_seats_per_pass.value_or(max_seats_per_hold); }

  // Legs of the route: one without stations.
  std::size_t leg_count() const { return legs.size() < 2 ? 1 : legs.size() - 1; }
  std::uint64_t leg_total(std::size_t leg) const { return leg_totals.empty() ? total : leg_totals[leg]; }
  // "A-B" for the leg from A to B; empty without legs.
  std::string leg_name(std::size_t leg) const;

  // From placing a hold to the end of its late grace, at the longest: how long a hold
  // and the Idempotency-Keys of its requests are kept. `longest_hold_seconds`: a lane's
  // hold time, when longer than the room's.
  std::int64_t retention_ms(std::uint32_t longest_hold_seconds = 0) const {
    auto hold = std::max(hold_seconds, longest_hold_seconds);
    return (std::int64_t{hold} + extension_seconds + late_grace_seconds) * 1000;
  }
  bool operator==(const inventory_settings&) const = default;
};

// What a placement is held to, decided when it applies: the room's hold time and seats
// per pass, or its lane's own (lane_config), and the seats the visitor's account may
// still hold and have confirmed in this room under the event's max_seats_per_account
// (none: no cap, or no account).
struct hold_terms {
  std::uint32_t hold_seconds = 180;
  std::uint32_t seats_per_pass = 4;
  std::optional<std::uint64_t> account_seats;

  // The room's terms, with the lane's where it sets its own (0: the room's).
  static hold_terms of(const inventory_settings& s, std::uint32_t lane_hold_seconds, std::uint32_t lane_seats_per_pass,
                       std::optional<std::uint64_t> account_seats) {
    return {lane_hold_seconds ? lane_hold_seconds : s.hold_seconds,
            lane_seats_per_pass ? lane_seats_per_pass : s.seats_per_pass(), account_seats};
  }
};

}  // namespace foyer
