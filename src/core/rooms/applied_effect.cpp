#include "core/rooms/applied_effect.hpp"

#include "core/rooms/room.hpp"

namespace foyer {

std::string lane_id(const room* r, std::uint8_t lane) {
  if (r && lane < r->lanes().size()) return r->lanes().at(lane).config.id;
  return lane == 0 ? std::string(general_lane) : std::to_string(lane);
}

}  // namespace foyer
