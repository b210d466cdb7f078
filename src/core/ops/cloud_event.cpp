#include "core/ops/cloud_event.hpp"

#include <type_traits>

#include <fmt/core.h>

#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "core/fairness/lottery.hpp"
#include "core/rooms/room.hpp"

namespace foyer {
namespace {

struct kind {
  std::string_view type;
  std::int64_t at_ms;
  std::string data;  // a JSON object
};

// The table: one entry per kind of event, its type, its time and its data. Joins are
// not here: they are counted (cloud_events::count).
kind describe(const room_created& e) {
  return {"dev.foyer.room.created", e.at_ms,
          json_object().hex("commitment", lottery::commitment(e.seed)).done()};
}
kind describe(const room_configured& e) {
  return {"dev.foyer.room.configured", e.at_ms,
          json_object().str("source", to_string(e.source)).raw("config", to_json(e.config)).done()};
}
kind describe(const state_changed& e) {
  return {"dev.foyer.room.state_changed", e.at_ms, json_object().str("state", to_string(e.state)).done()};
}
kind describe(const lobby_closed& e) { return {"dev.foyer.room.lobby_closed", e.at_ms, "{}"}; }
kind describe(const draw_witnessed& e) {
  return {"dev.foyer.room.draw_witnessed", e.at_ms, json_object().str("stage", to_string(e.stage)).done()};
}
kind describe(const beacon_supplied& e) {
  return {"dev.foyer.room.beacon_supplied", e.at_ms,
          json_object().hex("beacon", as_bytes(e.value)).done()};
}
kind describe(const room_removed& e) { return {"dev.foyer.room.removed", e.at_ms, "{}"}; }
kind describe(const seats_recounted& e) { return {"dev.foyer.room.seats_recounted", e.at_ms, "{}"}; }
kind describe(const codes_added& e) {
  return {"dev.foyer.room.codes_added", e.at_ms,
          json_object().str("batch", e.batch).str("lane", e.lane).num("codes", std::uint64_t{e.codes.size()}).done()};
}
kind describe(const codes_revoked& e) {
  json_object data;
  data.str("batch", e.batch);
  if (e.code) data.hex("code_sha256", *e.code);
  return {"dev.foyer.room.codes_revoked", e.at_ms, data.done()};
}
kind describe(const passes_done& e) {
  return {"dev.foyer.room.passes_done", e.at_ms, json_object().num("count", std::uint64_t{e.places.size()}).done()};
}
kind describe(const stock_reported& e) {
  return {"dev.foyer.room.stock_reported", e.at_ms,
          json_object().num(to_string(e.kind), e.amount).str("idempotency_key", e.key).done()};
}
kind describe(const rate_changed& e) {
  return {"dev.foyer.room.rate_changed", e.at_ms,
          json_object()
              .num("rate_per_minute", e.rate_per_minute)
              .num("base_rate_per_minute", e.base_rate_per_minute)
              .str("reason", to_string(e.reason))
              .done()};
}

// A hold event's outcome, as room::apply decided it.
std::string_view outcome_text(const std::optional<hold_outcome>& outcome) {
  return outcome ? to_string(*outcome) : "unknown";
}

kind describe(const hold_placed& e, std::optional<hold_outcome> outcome) {
  return {"dev.foyer.room.hold_placed", e.at_ms,
          json_object()
              .hex("hold_id", e.hold)
              .hex("visitor_id", e.visitor)
              .num("seats", std::uint64_t{e.seats})
              .str("idempotency_key", e.key)
              .str("outcome", outcome_text(outcome))
              .done()};
}
template <class E>
kind describe_hold_request(const E& e, std::string_view type, std::optional<hold_outcome> outcome) {
  return {type, e.at_ms,
          json_object()
              .hex("hold_id", e.hold)
              .str("idempotency_key", e.key)
              .str("outcome", outcome_text(outcome))
              .done()};
}
kind describe(const hold_extended& e, std::optional<hold_outcome> outcome) {
  return describe_hold_request(e, "dev.foyer.room.hold_extended", outcome);
}
kind describe(const hold_confirmed& e, std::optional<hold_outcome> outcome) {
  return describe_hold_request(e, "dev.foyer.room.hold_confirmed", outcome);
}
kind describe(const hold_released& e, std::optional<hold_outcome> outcome) {
  return describe_hold_request(e, "dev.foyer.room.hold_released", outcome);
}
kind describe(const holds_expired& e, std::optional<hold_outcome> outcome) {
  std::vector<std::string> ids;
  for (const auto& hold : e.holds) ids.push_back(to_hex(hold));
  return {"dev.foyer.room.holds_expired", e.at_ms,
          json_object().raw("hold_ids", json_string_list(ids)).str("outcome", outcome_text(outcome)).done()};
}
// Every other event has no outcome of its own.
template <class E>
kind describe(const E& e, std::optional<hold_outcome>) {
  return describe(e);
}

std::int64_t second_of(std::int64_t ms) { return ms >= 0 ? ms / 1000 : (ms - 999) / 1000; }

}  // namespace

cloud_events::cloud_events(std::string source, std::function<void(envelope)> emit)
    : source_(std::move(source)), emit_(std::move(emit)) {}

void cloud_events::on_applied(std::uint64_t seq, const event& e, const applied_effect& effect) {
  std::visit(
      [&](const auto& v) {
        using kind_of = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<kind_of, visitor_joined>) {
          count(seq, v, effect.after);
        } else if constexpr (std::is_same_v<kind_of, visitors_admitted>) {
          send_admitted(seq, v, effect);
        } else if constexpr (std::is_same_v<kind_of, pass_claimed>) {
          // One per visitor: the room's figures count them (foyer_room_active_passes).
        } else if constexpr (std::is_same_v<kind_of, resume_link_changed> || std::is_same_v<kind_of, turn_notified>) {
          // A visitor's own business, of no use to the site's systems.
        } else {
          // The room's joins so far leave first: a sink sees the room's events in order.
          if (auto it = joins_.find(v.room); it != joins_.end()) {
            send_joins(it->first, it->second);
            joins_.erase(it);
          }
          auto k = describe(v, effect.hold);
          send(std::to_string(seq), v.room, k.type, k.at_ms, std::move(k.data));
        }
      },
      e);
}

void cloud_events::count(std::uint64_t seq, const visitor_joined& j, const room* r) {
  auto second = second_of(j.at_ms);
  auto it = joins_.find(j.room);
  if (it == joins_.end()) {
    it = joins_.emplace(j.room, join_count{seq, second, 0, {}}).first;
  } else if (it->second.second != second) {
    send_joins(it->first, it->second);
    it->second = {seq, second, 0, {}};
  }
  ++it->second.count;
  ++it->second.lanes[lane_id(r, j.lane)];
}

// The room's joins so far leave first, as before any event of the room.
void cloud_events::send_admitted(std::uint64_t seq, const visitors_admitted& e, const applied_effect& effect) {
  std::uint64_t admitted = 0;
  for (auto n : effect.admitted) admitted += n;
  if (admitted == 0 || !effect.after) return;
  if (auto it = joins_.find(e.room); it != joins_.end()) {
    send_joins(it->first, it->second);
    joins_.erase(it);
  }
  std::uint64_t served = 0;
  json_object lanes;
  for (std::uint8_t lane = 0; lane < effect.admitted.size(); ++lane) {
    const std::uint64_t lane_served = effect.after->lanes().at(lane).served;
    served += lane_served;
    lanes.raw(lane_id(effect.after, lane),
              json_object().num("admitted", effect.admitted[lane]).num("served", lane_served).done());
  }
  send(std::to_string(seq), e.room, "dev.foyer.room.visitors_admitted", e.tick_ms,
       json_object().num("admitted", admitted).num("served", served).raw("lanes", lanes.done()).done());
}

void cloud_events::flush(std::int64_t now_ms) {
  auto now_second = second_of(now_ms);
  for (auto it = joins_.begin(); it != joins_.end();) {
    if (it->second.second >= now_second) {
      ++it;
      continue;
    }
    send_joins(it->first, it->second);
    it = joins_.erase(it);
  }
}

void cloud_events::send_joins(const std::string& room, const join_count& c) {
  json_object lanes;
  for (const auto& [id, count] : c.lanes) lanes.num(id, count);
  send(fmt::format("{}-joins-{}-{}", room, c.second, c.first_seq), room, "dev.foyer.room.joins", c.second * 1000,
       json_object().num("count", c.count).num("seconds", std::uint64_t{1}).raw("lanes", lanes.done()).done());
}

void cloud_events::send(std::string id, std::string_view room, std::string_view type, std::int64_t at_ms,
                        std::string data) {
  auto json = json_object()
                  .str("specversion", "1.0")
                  .str("id", id)
                  .str("source", source_)
                  .str("type", type)
                  .str("subject", room)
                  .str("time", format_rfc3339_ms(at_ms))
                  .str("datacontenttype", "application/json")
                  .raw("data", data)
                  .done();
  emit_(envelope{std::move(id), std::string(type), std::move(json)});
}

bool type_matches(std::string_view pattern, std::string_view type) {
  if (pattern == "*" || pattern == type) return true;
  if (!pattern.ends_with(".*")) return false;
  pattern.remove_suffix(1);  // keeps the dot: "dev.foyer.room." matches below it only
  return type.starts_with(pattern) && type.size() > pattern.size();
}

}  // namespace foyer
