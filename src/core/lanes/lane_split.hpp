#pragma once
// How a room's admissions are shared between its lanes. Each admission goes to the waiting
// lane furthest behind its share (the largest-deficit rule): from any moment the lanes
// keep waiting, every lane's count stays within one visitor of its share of the
// admissions, and within two over any window, the best any order can promise for every
// mix of shares. A lane with nobody waiting takes no part, so its share goes to the others
// and it earns no credit to burst with later.

#include <cstdint>
#include <span>
#include <vector>

namespace foyer {

struct lane_load {
  std::uint32_t share = 0;  // millionths (lane_config::share)
  bool priority = false;
  std::uint64_t waiting = 0;
  // How far behind its share the lane is, in the split's units; kept between splits.
  std::int64_t deficit = 0;
};

// What each lane's share weighs while the lanes with `waiting` > 0 wait: a priority
// lane's share stays as it is, the others share what priority lanes leave, in proportion
// to their shares (equally if all of theirs are 0). Lanes not waiting weigh 0.
std::vector<std::uint64_t> lane_weights(std::span<const lane_load> lanes);

// Gives `count` admissions to the lanes (never more to a lane than it has waiting, so the
// caller passes at most the total waiting); returns each lane's number and updates the
// lanes' waiting and deficits.
std::vector<std::uint64_t> split_admissions(std::span<lane_load> lanes, std::uint64_t count);

}  // namespace foyer
