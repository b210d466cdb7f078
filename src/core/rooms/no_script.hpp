#pragma once
// The queue for visitors without JavaScript: a room has it when the operator declares a
// lane with entry "no_script". Such joins pay no proof of work, so they only ever take
// that lane's share of the admission (core/lanes/lane_split) while others wait, and the
// join desk caps them per network (join_desk::no_script_joins_per_minute).

#include <string>
#include <string_view>

#include "core/lanes/lane_spec.hpp"

namespace foyer {

// The room's lane for joins without JavaScript, or nullptr: the queue is off.
const lane_config* no_script_lane(const std::vector<lane_config>& lanes);

// `target` (a site path or an absolute URL) with the pass as its foyer_pass parameter,
// before any fragment, as the waiting page sends admitted visitors on (web/js/format.js
// withPass). A pass is base64url and dots: nothing in it needs escaping.
std::string with_pass(std::string_view target, std::string_view pass);

}  // namespace foyer
