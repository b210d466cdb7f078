#include "core/rooms/draw_steps.hpp"

#include "core/fairness/drand.hpp"

namespace foyer {

std::vector<draw_witnessed> witnessed_due(const journal& rooms, std::uint64_t cosigned_size,
                                          const std::string& cosigned_checkpoint, std::int64_t now_ms) {
  std::vector<draw_witnessed> due;
  const auto& log = rooms.public_ledger();
  auto covered = [&](std::string_view kind, const std::string& id) {
    auto at = log.last_entry(kind, id);
    return at && *at < cosigned_size;
  };
  for (const auto& [id, r] : rooms.rooms()) {
    bool drawing = r.state() == room_state::drawing;
    if ((r.state() == room_state::lobby || drawing) && r.committed() && !r.witnessed(ledger::stage::commit) &&
        covered("commit", id)) {
      due.push_back({id, ledger::stage::commit, cosigned_checkpoint, now_ms});
    }
    if (drawing && r.awaiting_witnesses() && !r.witnessed(ledger::stage::close) && covered("close", id)) {
      due.push_back({id, ledger::stage::close, cosigned_checkpoint, now_ms});
    }
  }
  return due;
}

std::vector<beacon_wanted> beacons_due(const journal& rooms, std::int64_t now_ms) {
  std::vector<beacon_wanted> due;
  for (const auto& [id, r] : rooms.rooms()) {
    if (r.state() != room_state::drawing || r.beacon() || r.beacon_kind() != ledger::beacon_kind::drand_quicknet ||
        !r.committed()) {
      continue;
    }
    if (drand::time_of_round_ms(r.committed()->round) <= now_ms) due.push_back({id, r.committed()->round});
  }
  return due;
}

}  // namespace foyer
