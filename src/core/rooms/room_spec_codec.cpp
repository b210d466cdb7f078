#include "core/rooms/room_spec.hpp"

namespace foyer {

namespace {
constexpr std::uint64_t absent = ~std::uint64_t{0};
}  // namespace

void write_room_config(writer& w, const room_config& c) {
  w.str(c.id);
  w.str(c.name);
  w.u32(c.rate_per_minute);
  w.u32(c.pass_ttl_seconds);
  w.str(c.target_url);
  w.u8(c.opens_at_ms.has_value());
  w.i64(c.opens_at_ms.value_or(0));
  w.u32(c.lobby_window_seconds);
  w.str(c.beacon_rule);
  w.u64(c.stock.value_or(absent));
  w.str(c.logo_url);
  w.str(c.accent_colour);
  w.u64(c.max_active.value_or(absent));
  w.u32(c.claim_window_seconds);
  w.f64(c.no_show_max_multiplier);
  w.u8(c.adaptive.has_value());
  const auto a = c.adaptive.value_or(adaptive_settings{});
  w.u32(a.min_rate_per_minute);
  w.u32(a.max_rate_per_minute);
  w.u32(a.target_p95_ms);
  w.f64(a.max_error_rate);
  w.u32(a.increase_per_minute);
  w.f64(a.decrease_factor);
  w.u32(a.adjust_every_seconds);
  w.u32(a.signal_timeout_seconds);
  w.u32(static_cast<std::uint32_t>(c.alternatives.size()));
  for (const auto& id : c.alternatives) w.str(id);
  w.u8(c.inventory.has_value());
  const auto s = c.inventory.value_or(inventory_settings{});
  w.u64(s.total);
  w.u32(s.hold_seconds);
  w.u32(s.extension_seconds);
  w.u32(s.late_grace_seconds);
  w.u32(s.max_seats_per_hold);
  w.u8(static_cast<std::uint8_t>(s.second));
  w.u32(static_cast<std::uint32_t>(s.legs.size()));
  for (const auto& station : s.legs) w.str(station);
  w.u32(static_cast<std::uint32_t>(s.leg_totals.size()));
  for (auto total : s.leg_totals) w.u64(total);
  w.u32(s.waitlist);
  w.u8(s.max_seats_per_pass.has_value());
  if (s.max_seats_per_pass) w.u32(*s.max_seats_per_pass);
  w.u8(s.max_seats_per_account.has_value());
  if (s.max_seats_per_account) w.u32(*s.max_seats_per_account);
  w.u8(c.require_account);
  w.u32(static_cast<std::uint32_t>(c.lanes.size()));
  for (const auto& lane : c.lanes) {
    w.str(lane.id);
    w.str(lane.name);
    w.u32(lane.share);
    w.u8(lane.priority);
    w.u8(static_cast<std::uint8_t>(lane.entry));
    w.u32(lane.claim_window_seconds);
    w.u32(lane.hold_seconds);
    w.u32(lane.max_seats_per_pass);
  }
  w.u32(c.agents_barred_seconds);
  w.str(c.event);
}

room_config read_room_config(reader& r, std::uint8_t format) {
  room_config c;
  c.id = r.str();
  c.name = r.str();
  c.rate_per_minute = r.u32();
  c.pass_ttl_seconds = r.u32();
  c.target_url = r.str();
  bool has_opens_at = r.u8() != 0;
  std::int64_t opens_at = r.i64();
  if (has_opens_at) c.opens_at_ms = opens_at;
  c.lobby_window_seconds = r.u32();
  c.beacon_rule = r.str();
  if (auto stock = r.u64(); stock != absent) c.stock = stock;
  c.logo_url = r.str();
  c.accent_colour = r.str();
  if (format < 2) return c;
  if (auto max_active = r.u64(); max_active != absent) c.max_active = max_active;
  c.claim_window_seconds = r.u32();
  c.no_show_max_multiplier = r.f64();
  bool adaptive = r.u8() != 0;
  adaptive_settings a;
  a.min_rate_per_minute = r.u32();
  a.max_rate_per_minute = r.u32();
  a.target_p95_ms = r.u32();
  a.max_error_rate = r.f64();
  a.increase_per_minute = r.u32();
  a.decrease_factor = r.f64();
  a.adjust_every_seconds = r.u32();
  a.signal_timeout_seconds = r.u32();
  if (adaptive) c.adaptive = a;
  auto count = r.u32();
  // Bounded by what the bytes can hold: a corrupt count fails the read, not the memory.
  for (std::uint32_t i = 0; i < count && !r.failed(); ++i) c.alternatives.push_back(r.str());
  if (format < 3) return c;
  bool inventory = r.u8() != 0;
  inventory_settings s;
  s.total = r.u64();
  s.hold_seconds = r.u32();
  s.extension_seconds = r.u32();
  s.late_grace_seconds = r.u32();
  s.max_seats_per_hold = r.u32();
  // Any other byte is read as the default policy, refuse, which changes no seat count.
  s.second = r.u8() == static_cast<std::uint8_t>(second_hold::release_first) ? second_hold::release_first : second_hold::refuse;
  if (format >= 4) {
    auto stations = r.u32();
    for (std::uint32_t i = 0; i < stations && !r.failed(); ++i) s.legs.push_back(r.str());
    auto totals = r.u32();
    for (std::uint32_t i = 0; i < totals && !r.failed(); ++i) s.leg_totals.push_back(r.u64());
  }
  if (format >= 5) s.waitlist = r.u32();
  if (format >= 6 && r.u8() != 0) s.max_seats_per_pass = r.u32();
  if (format >= 8 && r.u8() != 0) s.max_seats_per_account = r.u32();
  if (inventory) c.inventory = s;
  if (format >= 6) c.require_account = r.u8() != 0;
  if (format < 7) return c;
  auto lanes = r.u32();
  for (std::uint32_t i = 0; i < lanes && !r.failed(); ++i) {
    lane_config lane;
    lane.id = r.str();
    lane.name = r.str();
    lane.share = r.u32();
    lane.priority = r.u8() != 0;
    auto entry = r.u8();
    lane.entry = entry <= static_cast<std::uint8_t>(lane_entry::no_script) ? static_cast<lane_entry>(entry) : lane_entry::code;
    lane.claim_window_seconds = r.u32();
    if (format >= 8) {
      lane.hold_seconds = r.u32();
      lane.max_seats_per_pass = r.u32();
    }
    c.lanes.push_back(std::move(lane));
  }
  c.agents_barred_seconds = r.u32();
  if (format >= 8) c.event = r.str();
  return c;
}

}  // namespace foyer
