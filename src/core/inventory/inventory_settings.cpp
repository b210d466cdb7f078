#include "core/inventory/inventory_settings.hpp"

#include <fmt/format.h>

namespace foyer {

std::string inventory_settings::leg_name(std::size_t leg) const {
  if (legs.size() < 2) return {};
  return fmt::format("{}-{}", legs[leg], legs[leg + 1]);
}

std::string_view to_string(second_hold policy) {
  return policy == second_hold::refuse ? "refuse" : "release_first";
}

}  // namespace foyer
