#pragma once
// A room's lanes: presales, quotas and invite-only entry, each a queue of its own with a
// share of the room's admission (core/lanes/lane_split).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foyer {

// How a visitor gets into a lane: anyone, with an access code, with the site's invite, or
// from the page without JavaScript, which pays no proof of work (core/rooms/no_script).
enum class lane_entry : std::uint8_t { open, code, invite, no_script };
std::string_view to_string(lane_entry entry);
std::optional<lane_entry> lane_entry_from(std::string_view text);

// Shares are in millionths of the admission rate, so that splitting is exact integer
// arithmetic and replays the same everywhere.
inline constexpr std::uint32_t share_scale = 1'000'000;

struct lane_config {
  std::string id;    // [a-z0-9][a-z0-9_-]{0,31}
  std::string name;  // Default: the id
  // Millionths of the admission while every lane has visitors waiting. A lane's unused
  // share goes to the lanes with visitors waiting, in proportion to their shares.
  std::uint32_t share = 0;
  // Admitted first, up to its share whenever another lane has visitors waiting: the
  // share is the bound that keeps it from starving the others.
  bool priority = false;
  lane_entry entry = lane_entry::code;  // Default: code; the general lane's is open
  // How long an admitted visitor of this lane has to claim their pass: longer for people
  // who need it. Default: 0, the room's claim_window_seconds.
  std::uint32_t claim_window_seconds = 0;
  // A hold placed with a pass of this lane lasts this long, and the pass may hold and have
  // confirmed this many seats over its life: longer or more for people who need it. Only
  // in a room with seats (inventory). Default: 0, the room's inventory.hold_seconds and
  // inventory.max_seats_per_pass.
  std::uint32_t hold_seconds = 0;
  std::uint32_t max_seats_per_pass = 0;

  bool operator==(const lane_config&) const = default;
};

// Every room has the general lane: the queue of a room without lanes, and the one a
// visitor joins with no code or invite. Declared, it takes the declared settings;
// otherwise its share is what the declared lanes leave.
inline constexpr std::string_view general_lane = "general";
inline constexpr std::size_t max_lanes = 16;

bool is_lane_id(std::string_view id);

// The share of a general lane declared without one, until the room's check gives it what
// the other lanes leave (check_room): never stored.
inline constexpr std::uint32_t share_of_the_rest = ~std::uint32_t{0};

// The lanes in force: the general lane first, then the declared ones by id.
std::vector<lane_config> lanes_in_force(const std::vector<lane_config>& declared);

// What changes in the lanes in force from `before` to `after`, one line a lane, for the
// reload's log: "members added (share 0.2)", "vip removed", "general: share 0 -> 0.5".
std::vector<std::string> lane_changes(const std::vector<lane_config>& before, const std::vector<lane_config>& after);

}  // namespace foyer
