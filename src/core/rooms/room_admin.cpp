#include "core/rooms/room_admin.hpp"

#include <fmt/format.h>

namespace foyer {
namespace {

desk_refusal invalid(const field_problem& p) { return {errc::invalid_room, p.message, p.field}; }

}  // namespace

seat_counts seats_taken(const room& r) { return {r.seats().held(), r.seats().confirmed()}; }

admin_decision create_room(const journal& rooms, room_config config, const digest& seed, std::int64_t now_ms,
                           past_opening opening) {
  if (auto p = check_room(config)) return invalid(*p);
  if (auto p = check_opening(std::nullopt, config.opens_at_ms, now_ms, opening)) return invalid(*p);
  if (rooms.retired(config.id)) {
    return desk_refusal{errc::room_id_used,
                        fmt::format("Room '{}' was deleted, and a room's id is never used again.", config.id), "id"};
  }
  // One whose creation is still being written is there already too: a second would commit
  // another seed for the same room.
  if (rooms.find(config.id) || rooms.configuring(config.id)) {
    return desk_refusal{errc::room_exists, fmt::format("There is a room '{}' already.", config.id), "id"};
  }
  return std::vector<event>{room_created{config.id, seed, now_ms},
                            room_configured{config.id, config, room_owner::api, std::nullopt, now_ms}};
}

admin_decision change_room(const journal& rooms, std::string_view id, room_config next, std::int64_t now_ms,
                           past_opening opening) {
  const room* r = rooms.find(id);
  if (!r) return no_such_room(id);
  if (auto refused = r->refuses(next, now_ms); refused && refused->field == "id") {
    return desk_refusal{errc::change_refused, refused->message, refused->field};
  }
  if (auto p = check_room(next)) return invalid(*p);
  if (auto p = check_opening(r->config().opens_at_ms, next.opens_at_ms, now_ms, opening)) return invalid(*p);
  if (rooms.configuring(id)) {
    return desk_refusal{errc::change_refused, "Another change to this room is being written; retry in a moment.", ""};
  }
  if (auto refused = r->refuses(next, now_ms)) {
    bool about_seats = refused->field.starts_with("inventory");
    return desk_refusal{errc::change_refused, refused->message, refused->field,
                        about_seats ? std::optional(seats_taken(*r)) : std::nullopt};
  }
  if (next == r->config()) return std::vector<event>{};
  return std::vector<event>{room_configured{next.id, std::move(next), room_owner::api, std::nullopt, now_ms}};
}

admin_decision remove_room(const journal& rooms, std::string_view id, bool force, std::int64_t now_ms) {
  const room* r = rooms.find(id);
  if (!r) return no_such_room(id);
  auto seats = seats_taken(*r);
  if (seats.held + seats.confirmed > 0 && !force) {
    return desk_refusal{errc::change_refused,
                        fmt::format("Room '{}' has {} seats held and {} confirmed, which the site may still confirm or "
                                    "refund; delete with ?force=true to remove it anyway.",
                                    id, seats.held, seats.confirmed),
                        "inventory", seats};
  }
  std::uint64_t waiting = r->joined() - r->served(now_ms);
  if (waiting > 0 && !force) {
    return desk_refusal{errc::visitors_waiting,
                        fmt::format("{} visitors are waiting in room '{}'; delete with ?force=true to close the room "
                                    "and remove it.",
                                    waiting, id),
                        "", std::nullopt, waiting};
  }
  std::vector<event> events;
  // Those still waiting are told the room closed before it goes.
  if (r->allows(room_state::closed)) events.push_back(state_changed{std::string(id), room_state::closed, now_ms});
  events.push_back(room_removed{std::string(id), now_ms});
  return events;
}

desk_refusal recount_refusal(std::string_view id, const seat_recount& counted) {
  return desk_refusal{errc::change_refused,
                      fmt::format("Room '{}' has {} seats held and {} confirmed, more than its seats' total on at least "
                                  "one leg; raise inventory.total (or the leg's total) first, then recount.",
                                  id, counted.held, counted.confirmed),
                      "inventory.total", seat_counts{counted.held, counted.confirmed}};
}

admin_decision recount_seats(const journal& rooms, std::string_view id, std::int64_t now_ms) {
  const room* r = rooms.find(id);
  if (!r) return no_such_room(id);
  const seat_ledger& seats = r->seats();
  if (!seats.enabled()) return desk_refusal{errc::no_inventory, "This room has no seats to recount."};
  auto counted = seats.recounted();
  if (!counted.fits) return recount_refusal(id, counted);
  if (seats.counted_right()) return std::vector<event>{};
  return std::vector<event>{seats_recounted{std::string(id), now_ms}};
}

admin_decision add_codes(const journal& rooms, codes_added batch) {
  const room* r = rooms.find(batch.room);
  if (!r) return no_such_room(batch.room);
  if (const auto* known = r->codes().batch(batch.batch)) {
    if (known->lane == batch.lane && known->uses_per_code == batch.uses_per_code && known->codes == batch.codes) {
      return std::vector<event>{};
    }
    return desk_refusal{errc::code_batch_exists,
                        fmt::format("Batch '{}' holds other codes; give the new ones another batch id.", batch.batch), "batch"};
  }
  if (!r->lane_takes(batch.lane, lane_entry::code)) {
    return desk_refusal{errc::invalid_room,
                        fmt::format("Room '{}' has no lane '{}' that takes access codes (a lane with entry = \"code\").",
                                    batch.room, batch.lane),
                        "lane"};
  }
  if (auto p = r->codes().refuses(batch)) return desk_refusal{errc::invalid_room, p->message, p->field};
  return std::vector<event>{std::move(batch)};
}

admin_decision revoke_codes(const journal& rooms, codes_revoked revocation) {
  const room* r = rooms.find(revocation.room);
  if (!r) return no_such_room(revocation.room);
  const auto* batch = r->codes().batch(revocation.batch);
  if (!batch) return desk_refusal{errc::unknown_code_batch, fmt::format("Room '{}' has no batch '{}'.", revocation.room, revocation.batch)};
  if (auto p = r->codes().refuses(revocation)) return desk_refusal{errc::unknown_code_batch, p->message, p->field};
  const auto* code = revocation.code ? r->codes().find(*revocation.code) : nullptr;
  if (code ? code->revoked_at_ms.has_value() || batch->revoked_at_ms.has_value() : batch->revoked_at_ms.has_value()) {
    return std::vector<event>{};
  }
  return std::vector<event>{std::move(revocation)};
}

}  // namespace foyer
