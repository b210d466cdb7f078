#pragma once
// The file's [[rooms]] are a declaration, reconciled into the log at start and on
// reload: new rooms are created, changed settings recorded, rooms dropped from the file
// removed. The whole declaration is applied, or refused with the first problem.
//
// Who owns what: a room the file declares belongs to the file; one created through the
// admin API belongs to the API, and no file may declare its id. The API may change a
// file room's settings live; a reload then applies exactly the settings whose value in
// the file changed since the file was last applied, and keeps every other live change.

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/rooms/journal.hpp"
#include "core/rooms/opening_check.hpp"

namespace foyer {

struct room_change {
  room_config config;       // the settings in force after the change
  room_config declared;     // the file's declaration it comes from
  std::vector<std::string_view> changed;  // the settings that change, by name
  std::vector<std::string> lanes;         // how the lanes in force change (lane_changes)
};

struct reconcile_plan {
  std::vector<room_config> create;
  std::vector<room_change> change;
  std::vector<std::string> remove;
  // Live changes (the admin API's, the console's) that stand, in rooms the file declares:
  // `config` is the room as it is, `changed` the settings where it differs from `declared`.
  // Nothing to write: the file did not change those settings since it was last applied.
  std::vector<room_change> kept;

  // Nothing to write (kept changes aside).
  bool empty() const { return create.empty() && change.empty() && remove.empty(); }
};

// What `declared` asks of `rooms` at `now_ms`, or why it is refused. A problem's field
// names the file's key, e.g. "rooms[1].opens_at". A new or changed opening in the past or
// within a minute is refused, except in the rooms `past_opening_accepted` names.
std::variant<reconcile_plan, field_problem> plan_reconcile(const journal& rooms,
                                                           const std::vector<room_config>& declared,
                                                           std::int64_t now_ms,
                                                           const std::set<std::string>& past_opening_accepted = {});

// The events that carry out `plan`; `seed` draws a new room's lottery seed.
std::vector<event> reconcile_events(const reconcile_plan& plan, std::int64_t now_ms,
                                    const std::function<digest()>& seed);

// One line per change, for the log: "created room 'a'", "room 'b': changed rate_per_minute, name",
// and per room with live changes that stand: "room 'c': the live change to rate_per_minute
// stands (...)".
std::vector<std::string> describe(const reconcile_plan& plan);

}  // namespace foyer
