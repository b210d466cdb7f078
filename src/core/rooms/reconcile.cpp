#include "core/rooms/reconcile.hpp"

#include <set>

#include <fmt/format.h>

namespace foyer {

std::variant<reconcile_plan, field_problem> plan_reconcile(const journal& rooms,
                                                           const std::vector<room_config>& declared,
                                                           std::int64_t now_ms,
                                                           const std::set<std::string>& past_opening_accepted) {
  reconcile_plan plan;
  std::set<std::string_view> ids;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const auto& d = declared[i];
    auto field = [i](std::string_view key) { return fmt::format("rooms[{}].{}", i, key); };
    auto opening = past_opening_accepted.contains(d.id) ? past_opening::accept : past_opening::refuse;
    ids.insert(d.id);
    if (rooms.retired(d.id)) {
      return field_problem{field("id"), fmt::format("room '{}' was deleted, and a room's id is never used again", d.id)};
    }
    auto refused_opening = [&](const std::optional<std::int64_t>& was, const room_config& next) {
      auto p = check_opening(was, next.opens_at_ms, now_ms, opening);
      if (p) p = field_problem{field(p->field), fmt::format("room '{}': {}", d.id, p->message)};
      return p;
    };
    const room* r = rooms.find(d.id);
    if (!r && rooms.configuring(d.id)) {
      return field_problem{field("id"), fmt::format("room '{}' is being created; reload again", d.id)};
    }
    if (!r) {
      if (auto p = refused_opening(std::nullopt, d)) return *p;
      plan.create.push_back(d);
      continue;
    }
    if (r->configured() && r->owner() == room_owner::api) {
      return field_problem{field("id"),
                           fmt::format("room '{}' was created through the admin API; change it there, not in the file", d.id)};
    }
    // A log from before settings were recorded takes the file whole, as it always did.
    room_config next = r->configured() ? apply_changes(r->config(), r->declared(), d) : d;
    if (auto live = changed_settings(d, next); !live.empty()) plan.kept.push_back({next, d, std::move(live), {}});
    if (next == r->config() && r->declared() == d && r->configured()) continue;
    if (auto p = refused_opening(r->config().opens_at_ms, next)) return *p;
    if (rooms.configuring(d.id)) {
      return field_problem{field("id"), fmt::format("a change to room '{}' is being written; reload again", d.id)};
    }
    if (auto refused = r->refuses(next, now_ms)) {
      return field_problem{field(refused->field), fmt::format("room '{}': {}", d.id, refused->message)};
    }
    plan.change.push_back({next, d, changed_settings(r->config(), next), lane_changes(r->config().lanes, next.lanes)});
  }
  for (const auto& [id, r] : rooms.rooms()) {
    if (ids.contains(id) || (r.configured() && r.owner() == room_owner::api)) continue;
    if (auto taken = r.seats().held() + r.seats().confirmed(); taken > 0) {
      return field_problem{"rooms", fmt::format("room '{}' is no longer declared but {} seats are held and {} confirmed: "
                                                "declare it again, or delete it first with DELETE "
                                                "/api/v1/admin/rooms/{}?force=true",
                                                id, r.seats().held(), r.seats().confirmed(), id)};
    }
    auto waiting = r.joined() - r.served(now_ms);
    if (waiting > 0) {
      return field_problem{
          "rooms", fmt::format("room '{}' is no longer declared but {} visitors are waiting: declare it again, or "
                               "delete it first with DELETE /api/v1/admin/rooms/{}?force=true",
                               id, waiting, id)};
    }
    plan.remove.push_back(id);
  }
  return plan;
}

std::vector<event> reconcile_events(const reconcile_plan& plan, std::int64_t now_ms,
                                    const std::function<digest()>& seed) {
  std::vector<event> events;
  for (const auto& c : plan.create) {
    events.push_back(room_created{c.id, seed(), now_ms});
    events.push_back(room_configured{c.id, c, room_owner::file, c, now_ms});
  }
  for (const auto& c : plan.change) {
    events.push_back(room_configured{c.config.id, c.config, room_owner::file, c.declared, now_ms});
  }
  for (const auto& id : plan.remove) events.push_back(room_removed{id, now_ms});
  return events;
}

std::vector<std::string> describe(const reconcile_plan& plan) {
  std::vector<std::string> lines;
  for (const auto& c : plan.create) lines.push_back(fmt::format("created room '{}'", c.id));
  for (const auto& c : plan.change) {
    // The lanes say what changes in them: a share, an entry, a lane added or removed.
    std::vector<std::string> changed;
    for (auto name : c.changed) {
      changed.push_back(name == "lanes" && !c.lanes.empty() ? fmt::format("lanes ({})", fmt::join(c.lanes, "; "))
                                                            : std::string(name));
    }
    lines.push_back(fmt::format("room '{}': changed {}", c.config.id,
                                changed.empty() ? std::string("nothing (settings recorded)")
                                                : fmt::format("{}", fmt::join(changed, ", "))));
  }
  for (const auto& id : plan.remove) lines.push_back(fmt::format("removed room '{}' (no longer in the file)", id));
  for (const auto& k : plan.kept) {
    lines.push_back(fmt::format("room '{}': the live change to {} stands (made through the admin API or the console; "
                                "the file's value applies once it changes in the file)",
                                k.config.id, fmt::join(k.changed, ", ")));
  }
  return lines;
}

}  // namespace foyer
