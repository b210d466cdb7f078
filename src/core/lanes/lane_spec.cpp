#include "core/lanes/lane_spec.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

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

namespace {

std::string share_text(std::uint32_t share) { return fmt::format("{:g}", static_cast<double>(share) / share_scale); }

// "share 0 -> 0.5, entry code -> open": each setting that differs.
std::string differences(const lane_config& a, const lane_config& b) {
  std::vector<std::string> out;
  auto differ = [&](std::string_view name, auto x, auto y) {
    if (x != y) out.push_back(fmt::format("{} {} -> {}", name, x, y));
  };
  differ("name", a.name, b.name);
  differ("share", share_text(a.share), share_text(b.share));
  differ("priority", a.priority, b.priority);
  differ("entry", to_string(a.entry), to_string(b.entry));
  differ("claim_window_seconds", a.claim_window_seconds, b.claim_window_seconds);
  differ("hold_seconds", a.hold_seconds, b.hold_seconds);
  differ("max_seats_per_pass", a.max_seats_per_pass, b.max_seats_per_pass);
  return fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace

std::vector<std::string> lane_changes(const std::vector<lane_config>& before, const std::vector<lane_config>& after) {
  auto was = lanes_in_force(before);
  auto now = lanes_in_force(after);
  auto find = [](const std::vector<lane_config>& lanes, std::string_view id) {
    auto it = std::find_if(lanes.begin(), lanes.end(), [&](const auto& l) { return l.id == id; });
    return it == lanes.end() ? nullptr : &*it;
  };
  std::vector<std::string> lines;
  for (const auto& lane : now) {
    const auto* old = find(was, lane.id);
    if (!old) {
      lines.push_back(fmt::format("{} added (share {}, entry {})", lane.id, share_text(lane.share), to_string(lane.entry)));
    } else if (*old != lane) {
      lines.push_back(fmt::format("{}: {}", lane.id, differences(*old, lane)));
    }
  }
  for (const auto& lane : was) {
    if (!find(now, lane.id)) lines.push_back(fmt::format("{} removed", lane.id));
  }
  return lines;
}

}  // namespace foyer
