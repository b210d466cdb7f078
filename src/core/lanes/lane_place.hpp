#pragma once
// A place names its lane in its top byte, and so does a lobby index: the general lane's
// (lane 0) are the plain numbers a room without lanes has always had.

#include <cstdint>

namespace foyer {

inline constexpr int lane_place_bits = 56;
inline constexpr std::uint64_t lane_place_mask = (std::uint64_t{1} << lane_place_bits) - 1;

inline std::uint8_t lane_of(std::uint64_t place) { return static_cast<std::uint8_t>(place >> lane_place_bits); }
inline std::uint64_t place_in_lane(std::uint64_t place) { return place & lane_place_mask; }
inline std::uint64_t lane_place(std::uint8_t lane, std::uint64_t n) {
  return std::uint64_t{lane} << lane_place_bits | n;
}

}  // namespace foyer
