// The close and draw of a 1,000,000-entrant lobby as the server does them: the room's
// lobby_closed and the draw applied (the lobby root, the lottery key and permutation),
// the ledger's close and reveal entries written (the reveal hashes every place), and the
// closed lobby's checkpoint signed. The lobby's tiles need no writing at the close: they
// are served from the lobby tree the joins already stored (tlog_tiles_bench times
// building them all from scratch).
//
// Usage: draw_close_bench [entrants]   (default 1,000,000)
// Wall clock; compare runs on the same machine only.

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

#include "core/fairness/ledger.hpp"
#include "core/fairness/ledger_publisher.hpp"
#include "core/rooms/room.hpp"

using namespace foyer;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t entrants = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  room_config config;
  config.id = "bench";
  config.name = "bench";
  config.rate_per_minute = 60'000;
  config.opens_at_ms = 2'000'000'000'000;
  config.lobby_window_seconds = 60;
  room r(config, room_created{"bench", digest{1}, 0});
  r.apply(room_configured{"bench", config, room_owner::file, std::nullopt, 0});
  std::vector<merkle::stored_node> nodes;
  for (std::uint64_t i = 0; i < entrants; ++i) {
    visitor_joined j{"bench", id16{}, id16{}, 1, std::nullopt};
    put_be64(j.entrant.data(), i);
    nodes.clear();
    r.apply(j, nodes);
  }

  auto start = std::chrono::steady_clock::now();
  r.apply(lobby_closed{"bench", 2'000'000'060'000, false});
  double drawn = seconds_since(start);
  ledger::log log;
  log.append(text(ledger::close_entry{"bench", "", r.lobby_size(), *r.lobby_root(), *r.closed_at_ms()}));
  log.append(text(ledger::reveal_entry{"bench", "", *r.revealed_seed(), ledger::beacon_kind::none, 0, {},
                                       *r.lottery_key(), r.places_hash(), *r.closed_at_ms()}));
  double recorded = seconds_since(start);
  ledger::publisher publisher("foyer.example/ledger", note::seed{}, {}, 0);
  auto lobby_checkpoint = publisher.lobby_checkpoint("bench", "", r.lobby_size(), *r.lobby_root());
  auto ledger_checkpoint = publisher.checkpoint(log.size(), log.root());
  double total = seconds_since(start);

  fmt::print("entrants {}\n", entrants);
  fmt::print("close and draw (root, key, permutation): {:.3f} s\n", drawn);
  fmt::print("+ ledger close and reveal (every place):  {:.3f} s\n", recorded);
  fmt::print("+ lobby and ledger checkpoints signed:    {:.3f} s\n", total);
  return lobby_checkpoint.empty() || ledger_checkpoint.empty() ? 1 : 0;
}
