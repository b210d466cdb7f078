#pragma once
// A room's configuration, and the one validator that the TOML file and the admin API
// share: each reads its own syntax into room_values, and these functions decide.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/base/codec.hpp"
#include "core/base/field_problem.hpp"
#include "core/inventory/inventory_settings.hpp"
#include "core/lanes/lane_spec.hpp"

namespace foyer {

// Admission that follows the site's health: an AIMD controller moves the rate between
// the bounds from the signals the site reports (core/rooms/rate_control).
struct adaptive_settings {
  std::uint32_t min_rate_per_minute = 0;  // required
  std::uint32_t max_rate_per_minute = 0;  // required
  std::uint32_t target_p95_ms = 1'000;    // Default: a breach above 1 s at the 95th percentile
  double max_error_rate = 0.05;           // Default: a breach above 5 % errors
  std::uint32_t increase_per_minute = 0;  // Default 0: a tenth of max − min (at least 1)
  double decrease_factor = 0.7;           // Default: a breach cuts the rate to 70 %
  std::uint32_t adjust_every_seconds = 5;     // Default: one increase per 5 s at most
  std::uint32_t signal_timeout_seconds = 30;  // Default: silence for 30 s decays the rate

  bool operator==(const adaptive_settings&) const = default;
};

struct room_config {
  std::string id;                      // [a-z0-9][a-z0-9_-]{0,63}; part of every URL and ticket
  std::string name;                    // Default: the id
  std::uint32_t rate_per_minute = 60;  // Default: 60 visitors admitted per minute
  std::uint32_t pass_ttl_seconds = 900;  // Default: a pass is valid for 15 minutes
  std::string target_url;              // where admitted visitors are sent; required
  std::optional<std::int64_t> opens_at_ms;  // Default: none, FIFO from the start
  std::uint32_t lobby_window_seconds = 0;   // Default: 0, the lobby closes at opens_at
  std::string beacon_rule;             // Default: empty, no beacon; else the public rule text
  std::optional<std::uint64_t> stock;  // Default: unlimited; items on sale, for honest odds
  std::string logo_url;                // Default: none; branding for the waiting room
  std::string accent_colour;           // Default: none; a CSS colour
  std::optional<std::uint64_t> max_active;  // Default: no cap on passes live at once
  std::uint32_t claim_window_seconds = 600;  // Default: an unclaimed admission expires after 10 min
  double no_show_max_multiplier = 1.0;       // Default: 1, no compensation for no-shows
  std::optional<adaptive_settings> adaptive;  // Default: none, the configured rate
  std::vector<std::string> alternatives;      // Default: none; other rooms offered when sold out
  std::optional<inventory_settings> inventory;  // Default: none, no seats to hold
  bool require_account = false;  // Default: false; true refuses joins without the site's account hint
  std::vector<lane_config> lanes;  // Default: none, one general lane; sorted by id
  // An invite whose token says "agent": true is refused this long after the room opens,
  // as Tatkal keeps agents out of its first minutes. Default: 0, no such window.
  std::uint32_t agents_barred_seconds = 0;
  // The event the room is one date or part of, an id its rooms share: they know an account
  // by one digest (account_scope), and inventory.max_seats_per_account counts the seats
  // of an account across them. Default: none. Cannot change once accounts joined.
  std::string event;

  bool operator==(const room_config&) const = default;
};

// What an account's digest is keyed with (account_hint): the room's id, or in a room of an
// event the event's, so that the event's rooms know one account by one digest. No room id
// has a ':', so the two never meet.
std::string account_scope(const room_config& config);

// Who declares a room. The file's rooms are reconciled into the log at start and on
// reload; a room created through the admin API is the API's, and no file may declare it.
enum class room_owner : std::uint8_t { file, api };
std::string_view to_string(room_owner owner);

// A value as a declaration gives it. `unset_value` removes an optional setting (JSON
// null); `other_value` is any kind no setting takes (a fraction, a list, a table).
struct unset_value {};
struct other_value {};
using room_value = std::variant<unset_value, other_value, bool, std::int64_t, double, std::string, std::vector<std::string>,
                                std::vector<std::int64_t>>;

// The settings of a room, in the order they are documented and listed. A table's keys
// are set as "table.key" (adaptive.min_rate_per_minute); the table is one setting.
std::span<const std::string_view> room_setting_names();

// Whether the setting is a table, whose keys are set as "table.key".
bool is_room_table(std::string_view key);
// A room id: 1 to 64 of a-z, 0-9, '_' and '-', starting with a letter or digit.
bool is_room_id(std::string_view id);

// Sets one setting from a declaration: an unknown name, a value of the wrong kind or out
// of range is a problem naming `key`.
std::optional<field_problem> set_room_setting(room_config& config, std::string_view key, const room_value& value);

// The rules across settings, once every setting is read; fills the defaults that depend
// on others (the name is the id unless given).
std::optional<field_problem> check_room(room_config& config);

// The settings whose values differ, by name.
std::vector<std::string_view> changed_settings(const room_config& a, const room_config& b);

// `current` with every setting that `before` and `after` disagree on taken from `after`:
// a reload applies what changed in the file and keeps what was changed live elsewhere.
room_config apply_changes(room_config current, const room_config& before, const room_config& after);

// The settings as the admin API shows them: every key, opens_at as RFC 3339 text.
std::string to_json(const room_config& config);

// The encoding of the settings in events and snapshots. Format 1 has no admission
// settings (max_active and after): they take their defaults; format 2 has no inventory;
// format 3 no legs, format 4 no waitlist, format 5 neither max_seats_per_pass nor
// require_account, format 6 no lanes, format 7 neither the lanes' hold settings nor the
// event and max_seats_per_account.
inline constexpr std::uint8_t room_config_format = 8;
void write_room_config(writer& w, const room_config& config);
room_config read_room_config(reader& r, std::uint8_t format = room_config_format);

}  // namespace foyer
