#include "core/lanes/lane_split.hpp"

#include <algorithm>
#include <numeric>

#include "core/lanes/lane_spec.hpp"

namespace foyer {

std::vector<std::uint64_t> lane_weights(std::span<const lane_load> lanes) {
  std::uint64_t priority = 0, shared = 0, shared_lanes = 0;
  for (const auto& l : lanes) {
    if (l.waiting == 0) continue;
    if (l.priority) {
      priority += l.share;
    } else {
      shared += l.share;
      ++shared_lanes;
    }
  }
  std::vector<std::uint64_t> weights(lanes.size(), 0);
  std::uint64_t left = share_scale - std::min<std::uint64_t>(priority, share_scale);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const auto& l = lanes[i];
    if (l.waiting == 0) continue;
    if (l.priority || shared_lanes == 0) {
      weights[i] = l.share;
    } else {
      weights[i] = shared == 0 ? left / shared_lanes : l.share * left / shared;
    }
  }
  // Every waiting lane weighing nothing (shares of 0 only): they share alike.
  if (std::accumulate(weights.begin(), weights.end(), std::uint64_t{0}) == 0) {
    for (std::size_t i = 0; i < lanes.size(); ++i) weights[i] = lanes[i].waiting > 0 ? 1 : 0;
  }
  return weights;
}

std::vector<std::uint64_t> split_admissions(std::span<lane_load> lanes, std::uint64_t count) {
  std::vector<std::uint64_t> given(lanes.size(), 0);
  auto weights = lane_weights(lanes);
  auto total = std::accumulate(weights.begin(), weights.end(), std::uint64_t{0});
  while (count > 0 && total > 0) {
    std::size_t best = lanes.size();
    std::size_t waiting_lanes = 0;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      if (weights[i] == 0) continue;
      ++waiting_lanes;
      lanes[i].deficit += static_cast<std::int64_t>(weights[i]);
      // Ties go to a priority lane, then to the first declared.
      if (best == lanes.size() || lanes[i].deficit > lanes[best].deficit ||
          (lanes[i].deficit == lanes[best].deficit && lanes[i].priority && !lanes[best].priority)) {
        best = i;
      }
    }
    if (waiting_lanes == 1) {
      // One lane waiting: it takes what is left at once.
      auto n = std::min(count, lanes[best].waiting);
      lanes[best].deficit = 0;
      given[best] += n;
      lanes[best].waiting -= n;
      count -= n;
    } else {
      lanes[best].deficit -= static_cast<std::int64_t>(total);
      ++given[best];
      --lanes[best].waiting;
      --count;
    }
    if (lanes[best].waiting == 0) {
      // Out of visitors: no credit to carry into its next wait.
      lanes[best].deficit = 0;
      weights = lane_weights(lanes);
      total = std::accumulate(weights.begin(), weights.end(), std::uint64_t{0});
    }
  }
  return given;
}

}  // namespace foyer
