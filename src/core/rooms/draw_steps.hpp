#pragma once
// What the draws wait for from outside, decided from the rooms and the ledger: the events
// the witnesses' cosignatures and the drand rounds let the app write next. Pure; the app
// (app/ledger_service) asks the witnesses and the relays and writes these events.

#include <cstdint>
#include <string>
#include <vector>

#include "core/rooms/journal.hpp"

namespace foyer {

// The stages the quorum's cosigned checkpoint of `cosigned_size` ledger entries covers
// and that are not recorded yet: a room's last commit (before its draw), its close (while
// the draw waits for it).
std::vector<draw_witnessed> witnessed_due(const journal& rooms, std::uint64_t cosigned_size,
                                          const std::string& cosigned_checkpoint, std::int64_t now_ms);

struct beacon_wanted {
  std::string room;
  std::uint64_t round = 0;
};
// drand rooms whose draw waits for their committed round, published by `now`.
std::vector<beacon_wanted> beacons_due(const journal& rooms, std::int64_t now_ms);

}  // namespace foyer
