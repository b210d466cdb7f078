#include "core/rooms/no_script.hpp"

#include <algorithm>

namespace foyer {

const lane_config* no_script_lane(const std::vector<lane_config>& lanes) {
  auto it = std::find_if(lanes.begin(), lanes.end(), [](const auto& l) { return l.entry == lane_entry::no_script; });
  return it == lanes.end() ? nullptr : &*it;
}

std::string with_pass(std::string_view target, std::string_view pass) {
  auto hash = target.find('#');
  auto before = target.substr(0, hash);
  std::string out(before);
  out += before.find('?') == std::string_view::npos ? '?' : '&';
  out.append("foyer_pass=").append(pass);
  if (hash != std::string_view::npos) out.append(target.substr(hash));
  return out;
}

}  // namespace foyer
