#pragma once
// What the sans-I/O desks (join, holds, site reports, room admin) decide, in one shape:
// each step is a refusal, an answer the handler serialises, or something to make durable
// first, after which the desk is asked again (http/handlers/desk_runner.hpp carries it).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/errc.hpp"
#include "core/gate/pow.hpp"
#include "core/rooms/event.hpp"

namespace foyer {

// The seats a room's holds take, for a refusal that is about them.
struct seat_counts {
  std::uint64_t held = 0;
  std::uint64_t confirmed = 0;
};

// Why a request is refused, with what the client may act on; each part is sent in the
// problem body when it is set.
struct desk_refusal {
  errc code;
  std::string detail;
  std::string field = {};                     // the request's field or setting at fault
  std::optional<seat_counts> seats = {};      // a refusal about the seats: what is held and confirmed
  std::optional<std::uint64_t> waiting = {};  // visitors_waiting: how many
  // price_rose: a challenge at the price now, so the client solves it and joins again
  // without another round trip.
  std::optional<pow::challenge> offer = {};
  // A refusal that lasts a known while: when to ask again (Retry-After), in seconds.
  std::optional<std::int64_t> retry_after_s = {};
};

template <class Answer, class Commit = std::vector<event>>
using step = std::variant<desk_refusal, Answer, Commit>;

// A write that could not be made durable: nothing was recorded.
desk_refusal not_durable();
// No room has this id (any more).
desk_refusal no_such_room(std::string_view id);

}  // namespace foyer
