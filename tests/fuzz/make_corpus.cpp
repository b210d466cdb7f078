// Writes the seed corpora into DIR/<target>/ (tests/fuzz/corpus): genuine tickets,
// challenges with their proofs, passes and key sets, receipts, every kind of event, a
// snapshot of a journal with rooms in several states, and the requests, bodies, configs
// and site URLs that real clients and operators send. Run by hand after a format changes:
//   build-fuzz/tests/fuzz/fuzz_make_corpus tests/fuzz/corpus
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "core/fairness/receipt.hpp"
#include "core/gate/pow.hpp"
#include "core/gate/ticket.hpp"
#include "core/rooms/journal.hpp"
#include "core/rooms/reconcile.hpp"
#include "fixtures.hpp"
#include "support/memory_store.hpp"

using namespace foyer;
namespace fs = std::filesystem;

namespace {

fs::path out_dir;

void seed(const std::string& target, const std::vector<std::string>& inputs) {
  fs::create_directories(out_dir / target);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::ofstream(out_dir / target / ("seed-" + std::to_string(i)), std::ios::binary) << inputs[i];
  }
}

id16 id_of(std::uint8_t tag) {
  id16 id{};
  id.fill(tag);
  return id;
}

room_config room_settings(std::string id) {
  room_config c;
  c.id = std::move(id);
  c.target_url = "/welcome";
  return c;
}

std::vector<std::string> tickets() {
  ticket_codec codec(as_bytes(fuzz::secret));
  ticket waiting{std::string(fuzz::room_id), id_of(1), 42, std::nullopt, id_of(2), fuzz::t0_ms};
  ticket lobby{std::string(fuzz::room_id), id_of(3), std::nullopt, 7, id_of(4), fuzz::t0_ms};
  return {codec.encode(waiting), codec.encode(lobby)};
}

std::vector<std::string> challenges() {
  pow::config cfg;
  cfg.base_bits = 8;
  pow::authority authority(as_bytes(fuzz::secret), cfg, fuzz::t0_ms - 1000);
  auto c = authority.mint(fuzz::room_id, fuzz::client_network(), fuzz::t0_ms - 500, 0);
  return {c.token + " " + pow::solve(c.token), c.token + " " + std::string(16 * cfg.puzzles, '0'), c.token};
}

std::vector<std::string> passes() {
  auto key = fuzz::pass_key();
  auto es256 = pass::key_from_seed(pass::seed_bytes{1, 2, 3}, fuzz::t0_ms / 1000, pass::key_type::es256);
  pass::keyring ring(key);
  ring.add(es256);
  return {std::string(1, '\0') + pass::sign_pass(key, fuzz::pass_claims("v1")),
          std::string(1, '\0') + pass::sign_pass(es256, fuzz::pass_claims("v2")),
          std::string(1, '\1') + ring.jwks_json()};
}

std::vector<std::string> receipts() {
  receipt::receipt_fields fields{std::string(fuzz::room_id), 7, {}, fuzz::t0_ms, {}};
  auto batch = receipt::sign_batch({fields, fields, fields}, fuzz::pass_key().secret, fuzz::pass_key().kid);
  return {receipt::to_json(batch[0]), receipt::to_json(batch[2])};
}

std::vector<event> events() {
  std::string room(fuzz::room_id);
  auto config = room_settings(room);
  config.stock = 100;
  return {room_created{room, digest{9}, fuzz::t0_ms},
          room_configured{room, config, room_owner::file, config, fuzz::t0_ms},
          visitor_joined{room, id_of(1), id_of(2), fuzz::t0_ms, id_of(3)},
          visitors_admitted{room, 5, fuzz::t0_ms, 17},
          lobby_closed{room, fuzz::t0_ms},
          beacon_supplied{room, "beacon", fuzz::t0_ms},
          state_changed{room, room_state::paused, fuzz::t0_ms},
          room_removed{room, fuzz::t0_ms},
          pass_claimed{room, 3, id_of(5), fuzz::t0_ms},
          passes_done{room, {1, 2, 3}, fuzz::t0_ms},
          stock_reported{room, stock_change::consumed, 2, "key-1", fuzz::t0_ms},
          rate_changed{room, 60, 90, rate_reason::no_show_compensation, fuzz::t0_ms}};
}

// A journal that snapshots after every write, with an open room that has joins,
// admissions, a claimed pass and stock, a lobby room, and a removed room.
std::string snapshot() {
  std::deque<std::function<void()>> posted;
  test::memory_store store([&](std::function<void()> f) { posted.push_back(std::move(f)); });
  journal rooms(store, journal_options{1});
  rooms.recover(store.recover());
  auto lobby = room_settings("lobby");
  lobby.opens_at_ms = fuzz::t0_ms + 3'600'000;
  auto gone = room_settings("gone");
  auto run = [&](std::vector<event> batch) {
    rooms.submit(std::move(batch), [](std::error_code, const join_outcome&) {});
    while (!posted.empty()) {
      auto f = std::move(posted.front());
      posted.pop_front();
      f();
    }
  };
  auto plan = plan_reconcile(rooms, {room_settings(std::string(fuzz::room_id)), lobby, gone}, fuzz::t0_ms);
  std::uint8_t n = 0;
  run(reconcile_events(std::get<reconcile_plan>(plan), fuzz::t0_ms, [&] { return digest{++n}; }));
  std::string room(fuzz::room_id);
  run({visitor_joined{room, id_of(1), id_of(2), fuzz::t0_ms, id_of(3)},
       visitor_joined{room, id_of(4), id_of(5), fuzz::t0_ms, std::nullopt},
       visitor_joined{"lobby", id_of(6), id_of(7), fuzz::t0_ms, std::nullopt}});
  run({visitors_admitted{room, 1, fuzz::t0_ms + 1000, 0}, pass_claimed{room, 0, id_of(8), fuzz::t0_ms + 1000},
       stock_reported{room, stock_change::remaining, 50, "k", fuzz::t0_ms + 1000}, room_removed{"gone", fuzz::t0_ms + 1000}});
  return *store.recover().snapshot;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_make_corpus DIR\n";
    return 2;
  }
  out_dir = argv[1];
  seed("ticket", tickets());
  seed("challenge", challenges());
  seed("pass_verifier", passes());
  seed("receipt", receipts());
  std::vector<std::string> encoded;
  for (const auto& e : events()) encoded.push_back(encode(e));
  seed("event", encoded);
  seed("snapshot", {snapshot()});
  return 0;
}
