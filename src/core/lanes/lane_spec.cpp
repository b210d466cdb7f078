#include "core/lanes/lane_spec.hpp"

#include <algorithm>
#include <numeric>

namespace foyer {

std::string_view to_string(lane_entry entry) {
  switch (entry) {
    case lane_entry::open: return "open";
    case lane_entry::code: return "code";
    case lane_entry::invite: return "invite";
    case lane_entry::no_script: return "no_script";
  }
  return "code";
}

std::optional<lane_entry> lane_entry_from(std::string_view text) {
  if (text == "open") return lane_entry::open;
  if (text == "code") return lane_entry::code;
  if (text == "invite") return lane_entry::invite;
  if (text == "no_script") return lane_entry::no_script;
  return std::nullopt;
}

bool is_lane_id(std::string_view id) {
  if (id.empty() || id.size() > 32) return false;
  auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!word(id.front())) return false;
  return std::all_of(id.begin(), id.end(), [&](char c) { return word(c) || c == '-' || c == '_'; });
}

std::vector<lane_config> lanes_in_force(const std::vector<lane_config>& declared) {
  std::vector<lane_config> lanes;
  auto general = std::find_if(declared.begin(), declared.end(), [](const auto& l) { return l.id == general_lane; });
  if (general != declared.end()) {
    lanes.push_back(*general);
  } else {
    std::uint64_t taken = std::accumulate(declared.begin(), declared.end(), std::uint64_t{0},
                                          [](std::uint64_t sum, const auto& l) { return sum + l.share; });
    auto rest = static_cast<std::uint32_t>(share_scale - std::min<std::uint64_t>(taken, share_scale));
    lanes.push_back({std::string(general_lane), "General", rest, false, lane_entry::open});
  }
  for (const auto& lane : declared) {
    if (lane.id != general_lane) lanes.push_back(lane);
  }
  return lanes;
}

}  // namespace foyer
