#include "core/rooms/room_spec.hpp"

#include <algorithm>
#include <array>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "core/rooms/no_script.hpp"

namespace foyer {
namespace {

constexpr std::int64_t max_rate_per_minute = 10'000'000;
constexpr std::int64_t max_pass_ttl_seconds = 7 * 24 * 3600;
constexpr std::int64_t max_lobby_window_seconds = 3600;
constexpr std::int64_t max_stock = std::int64_t{1} << 48;
constexpr std::size_t max_url_size = 2048;
constexpr std::size_t max_text_size = 1024;
constexpr std::int64_t max_claim_window_seconds = 24 * 3600;
constexpr double max_no_show_multiplier = 10.0;
constexpr std::size_t max_alternatives = 8;
constexpr std::string_view adaptive_prefix = "adaptive.";
constexpr std::string_view inventory_prefix = "inventory.";
constexpr std::int64_t max_hold_seconds = 3600;
constexpr std::int64_t max_late_grace_seconds = 24 * 3600;
constexpr std::size_t max_stations = 64;
constexpr std::int64_t max_waitlist = 1'000'000;
constexpr std::size_t max_station_size = 32;
constexpr std::string_view lanes_prefix = "lanes.";

// One setting's identity and how to compare and copy it, for diffs and merges.
struct setting {
  std::string_view name;
  bool (*differs)(const room_config&, const room_config&);
  void (*copy)(room_config& to, const room_config& from);
};

template <auto member>
constexpr setting make_setting(std::string_view name) {
  return {name, [](const room_config& a, const room_config& b) { return a.*member != b.*member; },
          [](room_config& to, const room_config& from) { to.*member = from.*member; }};
}

constexpr std::array<setting, 21> settings{
    make_setting<&room_config::id>("id"),
    make_setting<&room_config::name>("name"),
    make_setting<&room_config::rate_per_minute>("rate_per_minute"),
    make_setting<&room_config::pass_ttl_seconds>("pass_ttl_seconds"),
    make_setting<&room_config::target_url>("target_url"),
    make_setting<&room_config::opens_at_ms>("opens_at"),
    make_setting<&room_config::lobby_window_seconds>("lobby_window_seconds"),
    make_setting<&room_config::beacon_rule>("beacon_rule"),
    make_setting<&room_config::stock>("stock"),
    make_setting<&room_config::logo_url>("logo_url"),
    make_setting<&room_config::accent_colour>("accent_colour"),
    make_setting<&room_config::max_active>("max_active"),
    make_setting<&room_config::claim_window_seconds>("claim_window_seconds"),
    make_setting<&room_config::no_show_max_multiplier>("no_show_max_multiplier"),
    make_setting<&room_config::adaptive>("adaptive"),
    make_setting<&room_config::alternatives>("alternatives"),
    make_setting<&room_config::inventory>("inventory"),
    make_setting<&room_config::require_account>("require_account"),
    make_setting<&room_config::lanes>("lanes"),
    make_setting<&room_config::agents_barred_seconds>("agents_barred_seconds"),
    make_setting<&room_config::event>("event"),
};

constexpr auto setting_names = [] {
  std::array<std::string_view, settings.size()> names{};
  for (std::size_t i = 0; i < settings.size(); ++i) names[i] = settings[i].name;
  return names;
}();

bool has_control_or_space(std::string_view s) {
  for (unsigned char c : s) {
    if (c <= ' ' || c == 0x7f) return true;
  }
  return false;
}

// A path on the site itself: one leading '/', never "//" or a backslash, which browsers
// read as another host.
bool is_site_path(std::string_view url) {
  return url.starts_with('/') && !url.starts_with("//") && url.find('\\') == std::string_view::npos;
}

bool is_absolute_url(std::string_view url, bool https_only) {
  std::string_view rest;
  if (url.starts_with("https://")) {
    rest = url.substr(8);
  } else if (!https_only && url.starts_with("http://")) {
    rest = url.substr(7);
  } else {
    return false;
  }
  auto host_end = rest.find_first_of("/?#");
  std::string_view host = rest.substr(0, host_end);
  return !host.empty() && host.find('@') == std::string_view::npos && url.find('\\') == std::string_view::npos;
}

std::optional<field_problem> problem(std::string_view key, std::string message) {
  return field_problem{std::string(key), std::move(message)};
}

template <class T>
std::optional<field_problem> set_integer(std::string_view key, const room_value& value, T& out, std::int64_t min,
                                         std::int64_t max) {
  const auto* v = std::get_if<std::int64_t>(&value);
  if (!v || *v < min || *v > max) return problem(key, fmt::format("must be a whole number from {} to {}", min, max));
  out = static_cast<T>(*v);
  return std::nullopt;
}

// A whole number or a fraction.
std::optional<field_problem> set_fraction(std::string_view key, const room_value& value, double& out, double min,
                                          double max) {
  double v = 0;
  if (const auto* d = std::get_if<double>(&value)) {
    v = *d;
  } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
    v = static_cast<double>(*i);
  } else {
    return problem(key, fmt::format("must be a number from {} to {}", min, max));
  }
  // Written so that NaN fails too.
  if (!(v >= min && v <= max)) return problem(key, fmt::format("must be a number from {} to {}", min, max));
  out = v;
  return std::nullopt;
}

template <class T>
std::optional<field_problem> set_optional_integer(std::string_view key, const room_value& value,
                                                  std::optional<T>& out, std::int64_t min, std::int64_t max) {
  if (std::holds_alternative<unset_value>(value)) {
    out.reset();
    return std::nullopt;
  }
  T v{};
  if (auto p = set_integer(key, value, v, min, max)) return p;
  out = v;
  return std::nullopt;
}

std::optional<field_problem> set_adaptive(adaptive_settings& a, std::string_view key, const room_value& value) {
  auto name = key.substr(adaptive_prefix.size());
  if (name == "min_rate_per_minute") return set_integer(key, value, a.min_rate_per_minute, 1, max_rate_per_minute);
  if (name == "max_rate_per_minute") return set_integer(key, value, a.max_rate_per_minute, 1, max_rate_per_minute);
  if (name == "target_p95_ms") return set_integer(key, value, a.target_p95_ms, 1, 600'000);
  if (name == "max_error_rate") return set_fraction(key, value, a.max_error_rate, 0.0, 1.0);
  if (name == "increase_per_minute") return set_integer(key, value, a.increase_per_minute, 0, max_rate_per_minute);
  if (name == "decrease_factor") return set_fraction(key, value, a.decrease_factor, 0.1, 0.95);
  if (name == "adjust_every_seconds") return set_integer(key, value, a.adjust_every_seconds, 1, 3600);
  if (name == "signal_timeout_seconds") return set_integer(key, value, a.signal_timeout_seconds, 1, 86'400);
  return problem(key, "unknown setting");
}

std::optional<field_problem> set_stations(inventory_settings& s, std::string_view key, const room_value& value) {
  const auto* list = std::get_if<std::vector<std::string>>(&value);
  if (!list || list->size() < 2 || list->size() > max_stations) {
    return problem(key, fmt::format("must be a list of 2 to {} stations, in route order", max_stations));
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& name = (*list)[i];
    if (name.empty() || name.size() > max_station_size || has_control_or_space(name) || name.find('-') != std::string::npos) {
      return problem(key, fmt::format("'{}' is not a station name: 1 to {} visible characters, no '-'", name, max_station_size));
    }
    if (std::find(list->begin(), list->begin() + static_cast<std::ptrdiff_t>(i), name) != list->begin() + static_cast<std::ptrdiff_t>(i)) {
      return problem(key, fmt::format("names '{}' twice", name));
    }
  }
  s.legs = *list;
  return std::nullopt;
}

std::optional<field_problem> set_leg_totals(inventory_settings& s, std::string_view key, const room_value& value) {
  const auto* numbers = std::get_if<std::vector<std::int64_t>>(&value);
  const auto* empty = std::get_if<std::vector<std::string>>(&value);
  if (!numbers && !(empty && empty->empty())) return problem(key, "must be a list of seat counts, one per leg");
  std::vector<std::uint64_t> totals;
  for (auto n : numbers ? *numbers : std::vector<std::int64_t>{}) {
    if (n < 0 || n > max_stock) return problem(key, fmt::format("each must be a whole number from 0 to {}", max_stock));
    totals.push_back(static_cast<std::uint64_t>(n));
  }
  s.leg_totals = std::move(totals);
  return std::nullopt;
}

std::optional<field_problem> set_inventory(inventory_settings& s, std::string_view key, const room_value& value) {
  auto name = key.substr(inventory_prefix.size());
  if (name == "total") return set_integer(key, value, s.total, 1, max_stock);
  if (name == "hold_seconds") return set_integer(key, value, s.hold_seconds, 10, max_hold_seconds);
  if (name == "extension_seconds") return set_integer(key, value, s.extension_seconds, 0, max_hold_seconds);
  if (name == "late_grace_seconds") return set_integer(key, value, s.late_grace_seconds, 0, max_late_grace_seconds);
  if (name == "max_seats_per_hold") return set_integer(key, value, s.max_seats_per_hold, 1, 1000);
  if (name == "max_seats_per_pass") return set_optional_integer(key, value, s.max_seats_per_pass, 1, 1000);
  if (name == "max_seats_per_account") return set_optional_integer(key, value, s.max_seats_per_account, 1, 1000);
  if (name == "legs") return set_stations(s, key, value);
  if (name == "waitlist") return set_integer(key, value, s.waitlist, 0, max_waitlist);
  if (name == "leg_totals") return set_leg_totals(s, key, value);
  if (name == "second_hold") {
    const auto* text = std::get_if<std::string>(&value);
    if (text && *text == "refuse") s.second = second_hold::refuse;
    else if (text && *text == "release_first") s.second = second_hold::release_first;
    else return problem(key, "must be \"refuse\" or \"release_first\"");
    return std::nullopt;
  }
  return problem(key, "unknown setting");
}

std::optional<field_problem> set_alternatives(room_config& c, std::string_view key, const room_value& value) {
  if (std::holds_alternative<unset_value>(value)) {
    c.alternatives.clear();
    return std::nullopt;
  }
  const auto* list = std::get_if<std::vector<std::string>>(&value);
  if (!list) return problem(key, "must be a list of room ids");
  if (list->size() > max_alternatives) return problem(key, fmt::format("may name at most {} rooms", max_alternatives));
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& id = (*list)[i];
    if (!is_room_id(id)) return problem(key, fmt::format("'{}' is not a room id", id));
    if (std::find(list->begin(), list->begin() + static_cast<std::ptrdiff_t>(i), id) != list->begin() + static_cast<std::ptrdiff_t>(i)) {
      return problem(key, fmt::format("names '{}' twice", id));
    }
  }
  c.alternatives = *list;
  return std::nullopt;
}

std::optional<field_problem> set_text(std::string_view key, const room_value& value, std::string& out,
                                      std::size_t max_size = max_text_size) {
  const auto* v = std::get_if<std::string>(&value);
  if (!v) return problem(key, "must be a string");
  if (v->size() > max_size) return problem(key, fmt::format("must be at most {} characters", max_size));
  for (unsigned char c : *v) {
    if (c < ' ' || c == 0x7f) return problem(key, "must not contain control characters");
  }
  out = *v;
  return std::nullopt;
}

// "lanes.<id>.<setting>"; "lanes.<id>" set to null removes the lane.
std::optional<field_problem> set_lane(std::vector<lane_config>& lanes, std::string_view key, const room_value& value) {
  auto rest = key.substr(lanes_prefix.size());
  auto dot = rest.find('.');
  auto id = rest.substr(0, dot);
  if (!is_lane_id(id)) {
    return problem(key, fmt::format("'{}' is not a lane id: 1 to 32 characters of a-z, 0-9, '-' and '_'", id));
  }
  auto it = std::lower_bound(lanes.begin(), lanes.end(), id, [](const auto& l, std::string_view v) { return l.id < v; });
  bool found = it != lanes.end() && it->id == id;
  if (dot == std::string_view::npos) {
    if (!std::holds_alternative<unset_value>(value)) return problem(key, "must be a table of lane settings, or null to remove it");
    if (found) lanes.erase(it);
    return std::nullopt;
  }
  if (!found) {
    if (lanes.size() >= max_lanes) return problem(key, fmt::format("a room has at most {} lanes", max_lanes));
    lane_config lane;
    lane.id = std::string(id);
    lane.name = lane.id;
    // Declared without a share, the general lane takes what the others leave (check_lanes).
    if (id == general_lane) {
      lane.entry = lane_entry::open;
      lane.share = share_of_the_rest;
    }
    it = lanes.insert(it, std::move(lane));
  }
  auto name = rest.substr(dot + 1);
  if (name == "name") {
    // Named as it is stored, so that a change compares equal to what it became.
    if (auto p = set_text(key, value, it->name, 200)) return p;
    if (it->name.empty()) it->name = it->id;
    return std::nullopt;
  }
  if (name == "share") {
    double share = 0;
    if (auto p = set_fraction(key, value, share, 0.0, 1.0)) return p;
    it->share = static_cast<std::uint32_t>(share * share_scale + 0.5);
    return std::nullopt;
  }
  if (name == "claim_window_seconds") return set_integer(key, value, it->claim_window_seconds, 10, max_claim_window_seconds);
  // Bounded as the room's inventory settings are.
  if (name == "hold_seconds") return set_integer(key, value, it->hold_seconds, 10, max_hold_seconds);
  if (name == "max_seats_per_pass") return set_integer(key, value, it->max_seats_per_pass, 1, 1000);
  if (name == "priority") {
    const auto* priority = std::get_if<bool>(&value);
    if (!priority) return problem(key, "must be true or false");
    it->priority = *priority;
    return std::nullopt;
  }
  if (name == "entry") {
    const auto* text = std::get_if<std::string>(&value);
    auto entry = text ? lane_entry_from(*text) : std::nullopt;
    if (!entry) return problem(key, "must be \"open\", \"code\", \"invite\" or \"no_script\"");
    it->entry = *entry;
    return std::nullopt;
  }
  return problem(key, "unknown setting");
}

std::optional<field_problem> check_lanes(room_config& c) {
  std::uint64_t shares = 0, priority = 0;
  bool shared = false;
  for (auto& lane : c.lanes) {
    if (lane.name.empty()) lane.name = lane.id;
    // Without seats nothing is held: a lane's hold settings would silently do nothing.
    for (auto [set, name] : {std::pair{lane.hold_seconds != 0, "hold_seconds"}, std::pair{lane.max_seats_per_pass != 0, "max_seats_per_pass"}}) {
      if (set && !c.inventory) return problem(fmt::format("lanes.{}.{}", lane.id, name), "needs inventory: only a room with seats has holds");
    }
    // The general lane is the one JavaScript visitors join without a code; one lane is enough
    // for the page without JavaScript to name.
    if (lane.entry == lane_entry::no_script && (lane.id == general_lane || &lane != no_script_lane(c.lanes))) {
      return problem(fmt::format("lanes.{}.entry", lane.id), "one lane, not the general lane, may take joins without JavaScript");
    }
    if (lane.share == share_of_the_rest) continue;
    shares += lane.share;
    if (lane.priority) priority += lane.share;
    shared = shared || !lane.priority;
  }
  if (c.lanes.empty()) return std::nullopt;
  if (shares > share_scale) return problem("lanes", fmt::format("shares must sum to at most 1; they sum to {}", static_cast<double>(shares) / share_scale));
  // The general lane, undeclared or declared without a share, takes what the others leave.
  // The public would get nothing while the others have shares: refused unless written.
  auto general = std::find_if(c.lanes.begin(), c.lanes.end(), [](const auto& l) { return l.id == general_lane; });
  const bool takes_the_rest = general == c.lanes.end() || general->share == share_of_the_rest;
  if ((shared || takes_the_rest) && priority >= share_scale) {
    return problem("lanes", "priority lanes must leave a share for the others: their shares must sum to less than 1");
  }
  if (takes_the_rest && shares >= share_scale) {
    return problem(fmt::format("lanes.{}.share", general_lane),
                   "the general (public) lane would get none of the admission: the other lanes' shares sum to 1. "
                   "Lower them, or write lanes.general.share = 0 to mean it");
  }
  if (general != c.lanes.end() && general->share == share_of_the_rest) {
    general->share = static_cast<std::uint32_t>(share_scale - shares);
  }
  return std::nullopt;
}

}  // namespace

bool is_room_id(std::string_view id) {
  static const std::regex id_pattern("[a-z0-9][a-z0-9_-]{0,63}");
  return std::regex_match(id.begin(), id.end(), id_pattern);
}

std::string account_scope(const room_config& config) {
  return config.event.empty() ? config.id : "event:" + config.event;
}

std::string_view to_string(room_owner owner) { return owner == room_owner::file ? "file" : "api"; }

std::span<const std::string_view> room_setting_names() { return setting_names; }

bool is_room_table(std::string_view key) {
  // A lane's table: "lanes.<id>", one level below "lanes".
  bool lane = key.starts_with(lanes_prefix) && key.find('.', lanes_prefix.size()) == std::string_view::npos;
  return key == "adaptive" || key == "inventory" || key == "lanes" || lane;
}

std::optional<field_problem> set_room_setting(room_config& c, std::string_view key, const room_value& value) {
  bool removed = std::holds_alternative<unset_value>(value);
  if (key == "rate_per_minute") return set_integer(key, value, c.rate_per_minute, 1, max_rate_per_minute);
  if (key == "pass_ttl_seconds") return set_integer(key, value, c.pass_ttl_seconds, 10, max_pass_ttl_seconds);
  if (key == "lobby_window_seconds") {
    return set_integer(key, value, c.lobby_window_seconds, 0, max_lobby_window_seconds);
  }
  if (key == "stock") return set_optional_integer(key, value, c.stock, 0, max_stock);
  if (key == "max_active") return set_optional_integer(key, value, c.max_active, 1, max_stock);
  if (key == "claim_window_seconds") {
    return set_integer(key, value, c.claim_window_seconds, 10, max_claim_window_seconds);
  }
  if (key == "no_show_max_multiplier") {
    return set_fraction(key, value, c.no_show_max_multiplier, 1.0, max_no_show_multiplier);
  }
  if (key == "alternatives") return set_alternatives(c, key, value);
  if (key == "require_account") {
    const auto* required = std::get_if<bool>(&value);
    if (!required && !removed) return problem(key, "must be true or false");
    c.require_account = required && *required;
    return std::nullopt;
  }
  if (key == "agents_barred_seconds") return set_integer(key, value, c.agents_barred_seconds, 0, 24 * 3600);
  if (key == "event") {
    if (removed) {
      c.event.clear();
      return std::nullopt;
    }
    std::string event;
    if (auto p = set_text(key, value, event)) return p;
    if (!event.empty() && !is_room_id(event)) {
      return problem(key, "must be 1 to 64 characters of a-z, 0-9, '-' and '_', starting with a letter or digit");
    }
    c.event = std::move(event);
    return std::nullopt;
  }
  if (key == "lanes") {
    if (!removed) return problem(key, "must be a table of lanes by id, or null to remove them all");
    c.lanes.clear();
    return std::nullopt;
  }
  if (key.starts_with(lanes_prefix)) return set_lane(c.lanes, key, value);
  if (key == "adaptive") {
    if (!removed) return problem(key, "must be a table of adaptive settings, or null to remove it");
    c.adaptive.reset();
    return std::nullopt;
  }
  if (key.starts_with(adaptive_prefix)) {
    if (!c.adaptive) c.adaptive.emplace();
    return set_adaptive(*c.adaptive, key, value);
  }
  if (key == "inventory") {
    if (!removed) return problem(key, "must be a table of inventory settings, or null to remove it");
    c.inventory.reset();
    return std::nullopt;
  }
  if (key.starts_with(inventory_prefix)) {
    if (!c.inventory) c.inventory.emplace();
    return set_inventory(*c.inventory, key, value);
  }
  if (key == "opens_at") {
    if (removed) {
      c.opens_at_ms.reset();
      return std::nullopt;
    }
    const auto* text = std::get_if<std::string>(&value);
    auto ms = text ? parse_rfc3339_ms(*text) : std::nullopt;
    if (!ms) return problem(key, "must be an RFC 3339 date-time with an offset, e.g. 2026-12-01T10:00:00+05:30");
    c.opens_at_ms = ms;
    return std::nullopt;
  }
  if (key == "id") {
    if (auto p = set_text(key, value, c.id)) return p;
    if (!is_room_id(c.id)) {
      return problem(key, "must be 1 to 64 characters of a-z, 0-9, '-' and '_', starting with a letter or digit");
    }
    return std::nullopt;
  }
  if (key == "name") return set_text(key, value, c.name, 200);
  if (key == "beacon_rule") return set_text(key, value, c.beacon_rule);
  if (key == "target_url") {
    if (auto p = set_text(key, value, c.target_url, max_url_size)) return p;
    if (!is_site_path(c.target_url) && !is_absolute_url(c.target_url, /*https_only=*/false)) {
      return problem(key, "must be an absolute http(s) URL or a path starting with a single '/'");
    }
    if (has_control_or_space(c.target_url)) return problem(key, "must not contain spaces");
    return std::nullopt;
  }
  if (key == "logo_url") {
    if (auto p = set_text(key, value, c.logo_url, max_url_size)) return p;
    if (!c.logo_url.empty() && ((!is_site_path(c.logo_url) && !is_absolute_url(c.logo_url, /*https_only=*/true)) ||
                                has_control_or_space(c.logo_url))) {
      return problem(key, "must be an https:// URL or a path on this server starting with a single '/'");
    }
    return std::nullopt;
  }
  if (key == "accent_colour") {
    if (auto p = set_text(key, value, c.accent_colour)) return p;
    static const std::regex colour_pattern("#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?");
    if (!c.accent_colour.empty() && !std::regex_match(c.accent_colour, colour_pattern)) {
      return problem(key, "must be a hex colour like #1a5fb4");
    }
    return std::nullopt;
  }
  return problem(key, "unknown setting");
}

std::optional<field_problem> check_room(room_config& c) {
  if (c.id.empty()) return problem("id", "is required");
  if (c.name.empty()) c.name = c.id;
  if (c.target_url.empty()) return problem("target_url", "is required: where admitted visitors are sent");
  if (!c.beacon_rule.empty() && !c.opens_at_ms) return problem("beacon_rule", "needs opens_at: only a lottery has a beacon");
  if (std::find(c.alternatives.begin(), c.alternatives.end(), c.id) != c.alternatives.end()) {
    return problem("alternatives", "must not name the room itself");
  }
  if (const auto& a = c.adaptive) {
    if (a->min_rate_per_minute == 0) return problem("adaptive.min_rate_per_minute", "is required with adaptive");
    if (a->max_rate_per_minute == 0) return problem("adaptive.max_rate_per_minute", "is required with adaptive");
    if (a->max_rate_per_minute < a->min_rate_per_minute) {
      return problem("adaptive.max_rate_per_minute", "must not be below adaptive.min_rate_per_minute");
    }
  }
  if (const auto& s = c.inventory) {
    if (s->total == 0) return problem("inventory.total", "is required with inventory");
    if (!s->leg_totals.empty() && s->legs.empty()) return problem("inventory.leg_totals", "needs inventory.legs");
    if (!s->leg_totals.empty() && s->leg_totals.size() != s->leg_count()) {
      return problem("inventory.leg_totals", fmt::format("must give one total for each of the {} legs", s->leg_count()));
    }
    if (s->max_seats_per_account && c.event.empty()) {
      return problem("inventory.max_seats_per_account", "needs event: the id of the rooms whose seats it counts together");
    }
    // A visitor without an account would escape the cap.
    if (s->max_seats_per_account && !c.require_account) {
      return problem("inventory.max_seats_per_account", "needs require_account = true: the cap counts seats by account");
    }
  }
  return check_lanes(c);
}

std::vector<std::string_view> changed_settings(const room_config& a, const room_config& b) {
  std::vector<std::string_view> changed;
  for (const auto& s : settings) {
    if (s.differs(a, b)) changed.push_back(s.name);
  }
  return changed;
}

room_config apply_changes(room_config current, const room_config& before, const room_config& after) {
  for (const auto& s : settings) {
    if (s.differs(before, after)) s.copy(current, after);
  }
  return current;
}

std::string to_json(const room_config& c) {
  json_object o;
  o.str("id", c.id)
      .str("name", c.name)
      .num("rate_per_minute", c.rate_per_minute)
      .num("pass_ttl_seconds", c.pass_ttl_seconds)
      .str("target_url", c.target_url);
  if (c.opens_at_ms) {
    o.str("opens_at", format_rfc3339_ms(*c.opens_at_ms));
  } else {
    o.null("opens_at");
  }
  o.num("lobby_window_seconds", c.lobby_window_seconds).str("beacon_rule", c.beacon_rule);
  if (c.stock) {
    o.num("stock", *c.stock);
  } else {
    o.null("stock");
  }
  o.str("logo_url", c.logo_url).str("accent_colour", c.accent_colour);
  if (c.max_active) {
    o.num("max_active", *c.max_active);
  } else {
    o.null("max_active");
  }
  o.num("claim_window_seconds", c.claim_window_seconds).fraction("no_show_max_multiplier", c.no_show_max_multiplier);
  if (const auto& a = c.adaptive) {
    o.raw("adaptive", json_object()
                          .num("min_rate_per_minute", a->min_rate_per_minute)
                          .num("max_rate_per_minute", a->max_rate_per_minute)
                          .num("target_p95_ms", a->target_p95_ms)
                          .fraction("max_error_rate", a->max_error_rate)
                          .num("increase_per_minute", a->increase_per_minute)
                          .fraction("decrease_factor", a->decrease_factor)
                          .num("adjust_every_seconds", a->adjust_every_seconds)
                          .num("signal_timeout_seconds", a->signal_timeout_seconds)
                          .done());
  } else {
    o.null("adaptive");
  }
  o.raw("alternatives", json_string_list(c.alternatives)).boolean("require_account", c.require_account);
  if (const auto& s = c.inventory) {
    o.raw("inventory", json_object()
                           .num("total", s->total)
                           .num("hold_seconds", s->hold_seconds)
                           .num("extension_seconds", s->extension_seconds)
                           .num("late_grace_seconds", s->late_grace_seconds)
                           .num("max_seats_per_hold", s->max_seats_per_hold)
                           .opt_num("max_seats_per_pass", s->max_seats_per_pass)
                           .opt_num("max_seats_per_account", s->max_seats_per_account)
                           .str("second_hold", to_string(s->second))
                           .raw("legs", json_string_list(s->legs))
                           .raw("leg_totals", fmt::format("[{}]", fmt::join(s->leg_totals, ",")))
                           .num("waitlist", s->waitlist)
                           .done());
  } else {
    o.null("inventory");
  }
  json_object lanes;
  for (const auto& lane : c.lanes) {
    lanes.raw(lane.id, json_object()
                           .str("name", lane.name)
                           .fraction("share", static_cast<double>(lane.share) / share_scale)
                           .boolean("priority", lane.priority)
                           .str("entry", to_string(lane.entry))
                           .num("claim_window_seconds", lane.claim_window_seconds)
                           .num("hold_seconds", lane.hold_seconds)
                           .num("max_seats_per_pass", lane.max_seats_per_pass)
                           .done());
  }
  o.raw("lanes", lanes.done()).num("agents_barred_seconds", c.agents_barred_seconds).str("event", c.event);
  return o.done();
}

}  // namespace foyer
