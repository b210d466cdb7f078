#include <catch2/catch.hpp>
#include <fmt/core.h>

#include "core/base/crypto.hpp"
#include "core/fairness/drand.hpp"
#include "core/fairness/ledger.hpp"
#include "core/fairness/ledger_publisher.hpp"
#include "core/rooms/draw_steps.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using foyer::test::journal_fixture;
using foyer::test::test_room;

namespace {

digest filled(std::uint8_t v) {
  digest d;
  d.fill(v);
  return d;
}

room_config lottery_room(std::int64_t opens_at_ms, std::string beacon_rule = "") {
  auto c = test_room("draw", 600);
  c.opens_at_ms = opens_at_ms;
  c.lobby_window_seconds = 10;
  c.beacon_rule = std::move(beacon_rule);
  return c;
}

std::string kind_of(const std::string& entry) {
  auto at = entry.find("kind ") + 5;
  return entry.substr(at, entry.find('\n', at) - at);
}

std::vector<std::string> kinds(const ledger::log& log) {
  std::vector<std::string> out;
  for (const auto& e : log.entries()) out.push_back(kind_of(e));
  return out;
}

}  // namespace

TEST_CASE("ledger entries are exactly the text docs/fairness.md gives") {
  CHECK(text(ledger::commit_entry{"spring", "", filled(0xab), ledger::beacon_kind::drand_quicknet, 1234, 1000, 900}) ==
        "foyer/ledger/v1\nkind commit\nroom spring\ncommitment " + to_hex(filled(0xab)) +
            "\nbeacon drand-quicknet 1234\ncloses_at 1000\nat 900\n");
  CHECK(text(ledger::commit_entry{"r", "", filled(0), ledger::beacon_kind::none, 0, 5, 4}).find("\nbeacon none\n") !=
        std::string::npos);
  CHECK(text(ledger::close_entry{"r", "", 3, filled(1), 7}) ==
        "foyer/ledger/v1\nkind close\nroom r\nsize 3\nroot " + to_hex(filled(1)) + "\nat 7\n");
  CHECK(text(ledger::witnessed_entry{"r", ledger::stage::close, "o\n1\nx\n\n— o abc\n"}) ==
        "foyer/ledger/v1\nkind witnessed\nroom r\nstage close\n\no\n1\nx\n\n— o abc\n");
  ledger::reveal_entry reveal{"r", "", filled(2), ledger::beacon_kind::drand_quicknet, 9, {0xde, 0xad}, filled(3), filled(4), 8};
  CHECK(text(reveal) == "foyer/ledger/v1\nkind reveal\nroom r\nseed " + to_hex(filled(2)) +
                            "\nbeacon drand-quicknet 9 dead\nkey " + to_hex(filled(3)) + "\nplaces " +
                            to_hex(filled(4)) + "\nat 8\n");
  // A lane's draw names its lane after the room; the general lane's names none.
  CHECK(text(ledger::close_entry{"r", "members", 3, filled(1), 7}) ==
        "foyer/ledger/v1\nkind close\nroom r\nlane members\nsize 3\nroot " + to_hex(filled(1)) + "\nat 7\n");
  reveal.lane = "members";
  CHECK(text(reveal).starts_with("foyer/ledger/v1\nkind reveal\nroom r\nlane members\nseed "));
}

TEST_CASE("the places hash is SHA-256 of every place in lobby order") {
  lottery::permutation places(filled(7), 1000);
  byte_vector all;
  for (std::uint64_t i = 0; i < 1000; ++i) append_be64(all, places.place(i));
  CHECK(ledger::places_hash(places) == sha256(all));
}

TEST_CASE("the ledger is published as tiles that check against its root") {
  ledger::log log;
  for (int i = 0; i < 600; ++i) log.append(fmt::format("entry {}\n", i));
  auto read = [&](const std::string& path) { return log.file(path); };
  CHECK_FALSE(tiles::check(log.size(), log.root(), read));
  CHECK(log.file("tile/0/000"));
  CHECK(log.file("tile/0/002.p/88"));
  CHECK(log.file("tile/entries/002.p/88"));
  CHECK(log.file("tile/1/000.p/2"));
  CHECK_FALSE(log.file("tile/0/002.p/87"));
  CHECK_FALSE(log.file("tile/0/003"));
  auto copy = ledger::log::decode(log.encode());
  REQUIRE(copy);
  CHECK(copy->root() == log.root());
  CHECK(copy->file("tile/0/001") == log.file("tile/0/001"));
  CHECK_FALSE(ledger::log::decode(log.encode() + "x"));
  ledger::log first;
  for (int i = 0; i < 100; ++i) first.append(fmt::format("entry {}\n", i));
  auto proof = log.consistency(100, 600);
  CHECK(merkle::verify_consistency(100, 600, proof, first.root(), log.root()));
  CHECK_FALSE(merkle::verify_consistency(100, 600, proof, log.root(), log.root()));
}

TEST_CASE("tile paths parse back exactly as they are written") {
  for (std::uint64_t n : {0ull, 5ull, 999ull, 1000ull, 1234067ull}) {
    for (std::size_t width : {std::size_t{1}, std::size_t{255}, tiles::tile_width}) {
      auto ref = tiles::parse_path(tiles::tile_path(2, n, width));
      REQUIRE(ref);
      CHECK((ref->level == 2 && ref->n == n && ref->width == width && !ref->entries));
      auto bundle = tiles::parse_path(tiles::entries_path(n, width));
      REQUIRE(bundle);
      CHECK((bundle->entries && bundle->n == n && bundle->width == width));
    }
  }
  for (const char* bad : {"tile/0/5", "tile/0/x000/005", "tile/0/005.p/256", "tile/0/005.p/0", "tile/0/005.p/07",
                          "tile/64/000", "tile/entries/00a", "tile/0/005/", "tiles/0/005", "tile/0/x001",
                          "tile/01/000", "tile//000"}) {
    CHECK_FALSE(tiles::parse_path(bad));
  }
  CHECK(tiles::has_file(*tiles::parse_path("tile/0/001"), 600));
  CHECK_FALSE(tiles::has_file(*tiles::parse_path("tile/0/002"), 600));
  CHECK(tiles::has_file(*tiles::parse_path("tile/0/002.p/88"), 600));
  CHECK_FALSE(tiles::has_file(*tiles::parse_path("tile/0/002.p/87"), 600));
  CHECK(tiles::has_file(*tiles::parse_path("tile/1/000.p/2"), 600));
  CHECK_FALSE(tiles::has_file(*tiles::parse_path("tile/1/000"), 600));
}

TEST_CASE_METHOD(journal_fixture, "a draw's commit, close, witnesses and reveal are ledger entries, in that order") {
  start({lottery_room(start_ms + 60'000)});
  rooms->require_witnesses(true);
  CHECK(kinds(rooms->public_ledger()) == std::vector<std::string>{"commit"});
  for (int i = 0; i < 40; ++i) join("draw", static_cast<std::uint8_t>(i));
  clock.advance_ms(80'000);
  REQUIRE(tick("draw"));
  room* r = rooms->find("draw");
  CHECK(r->state() == room_state::drawing);
  CHECK(r->awaiting_witnesses());
  CHECK_FALSE(r->revealed_seed());
  CHECK(kinds(rooms->public_ledger()) == std::vector<std::string>{"commit", "close"});

  // The close's witnesses alone do not reveal: the commit's are needed too.
  REQUIRE_FALSE(commit(draw_witnessed{"draw", ledger::stage::close, "cosigned close\n", clock.now_ms()}).first);
  CHECK_FALSE(rooms->find("draw")->revealed_seed());
  restart();
  REQUIRE_FALSE(commit(draw_witnessed{"draw", ledger::stage::commit, "cosigned commit\n", clock.now_ms()}).first);
  r = rooms->find("draw");
  REQUIRE(r->revealed_seed());
  CHECK(kinds(rooms->public_ledger()) ==
        std::vector<std::string>{"commit", "close", "witnessed", "witnessed", "reveal"});
  const auto& reveal = rooms->public_ledger().entries().back();
  CHECK(reveal.find("seed " + to_hex(*r->revealed_seed())) != std::string::npos);
  CHECK(reveal.find("places " + to_hex(r->places_hash())) != std::string::npos);
  CHECK(reveal.find("key " + to_hex(*r->lottery_key())) != std::string::npos);
  CHECK(rooms->public_ledger().entries()[1] ==
        text(ledger::close_entry{"draw", "", 40, *r->lobby_root(), *r->closed_at_ms()}));

  // A second witness of the same stage changes nothing, and replay gives the same ledger.
  auto before = rooms->public_ledger().entries();
  REQUIRE_FALSE(commit(draw_witnessed{"draw", ledger::stage::close, "again\n", clock.now_ms()}).first);
  CHECK(rooms->public_ledger().entries() == before);
  restart();
  CHECK(rooms->public_ledger().entries() == before);
}

TEST_CASE_METHOD(journal_fixture, "a schedule moved after the commit was witnessed is witnessed again") {
  auto config = lottery_room(start_ms + 60'000);
  start({config});
  rooms->require_witnesses(true);
  REQUIRE_FALSE(commit(draw_witnessed{"draw", ledger::stage::commit, "cosigned\n", clock.now_ms()}).first);
  CHECK(rooms->find("draw")->witnessed(ledger::stage::commit));
  config.opens_at_ms = start_ms + 120'000;
  REQUIRE_FALSE(reconcile({config}));
  CHECK_FALSE(rooms->find("draw")->witnessed(ledger::stage::commit));
  auto due = witnessed_due(*rooms, rooms->public_ledger().size(), "cosigned again\n", clock.now_ms());
  REQUIRE(due.size() == 1);
  CHECK(due[0].stage == ledger::stage::commit);
  // A quorum over the first commit only does not cover the new one.
  CHECK(witnessed_due(*rooms, 1, "old\n", clock.now_ms()).empty());
}

TEST_CASE_METHOD(journal_fixture, "without witnesses the draw follows the close, and the schedule moving recommits") {
  auto config = lottery_room(start_ms + 60'000);
  start({config});
  config.opens_at_ms = start_ms + 120'000;
  REQUIRE_FALSE(reconcile({config}));
  CHECK(kinds(rooms->public_ledger()) == std::vector<std::string>{"commit", "commit"});
  CHECK(rooms->public_ledger().entries()[1].find(fmt::format("closes_at {}", start_ms + 130'000)) != std::string::npos);
  join("draw");
  clock.advance_ms(140'000);
  REQUIRE(tick("draw"));
  CHECK(rooms->find("draw")->revealed_seed());
  CHECK(kinds(rooms->public_ledger()) == std::vector<std::string>{"commit", "commit", "close", "reveal"});
}

TEST_CASE_METHOD(journal_fixture, "a drand room commits to a round after the close and mixes in its randomness") {
  start({lottery_room(start_ms + 60'000, std::string(drand_quicknet_rule))});
  room* r = rooms->find("draw");
  REQUIRE(r->committed());
  auto round = r->committed()->round;
  CHECK(round == drand::first_round_at_or_after(start_ms + 70'000 + beacon_margin_ms));
  CHECK(rooms->public_ledger().entries()[0].find(fmt::format("beacon drand-quicknet {}\n", round)) != std::string::npos);
  join("draw");
  join("draw", 1);
  clock.advance_ms(80'000);
  REQUIRE(tick("draw"));
  std::string signature(48, '\x07');
  REQUIRE_FALSE(commit(beacon_supplied{"draw", signature, clock.now_ms()}).first);
  r = rooms->find("draw");
  REQUIRE(r->lottery_key());
  CHECK(*r->lottery_key() == lottery::derive_key(*r->revealed_seed(), *r->lobby_root(), sha256(as_bytes(signature))));
  CHECK(rooms->public_ledger().entries().back().find(
            fmt::format("beacon drand-quicknet {} {}\n", round, to_hex(as_bytes(signature)))) != std::string::npos);
}

TEST_CASE("the publisher signs checkpoints the ledger key verifies, with the cosignatures of that tree") {
  note::seed seed{};
  seed[0] = 1;
  ledger::publisher pub("example.com/ledger", seed, {}, 0);
  auto note = pub.checkpoint(3, filled(5));
  std::vector<note::verifier> keys{pub.signer().public_part()};
  auto head = checkpoint::verify(note, keys);
  REQUIRE(std::holds_alternative<checkpoint::tree_head>(head));
  CHECK(std::get<checkpoint::tree_head>(head).size == 3);
  pub.set_cosigned(3, note + "— witness AAAA\n");
  CHECK(pub.checkpoint(3, filled(5)) == note + "— witness AAAA\n");
  CHECK(pub.checkpoint(4, filled(6)).find("witness") == std::string::npos);
  // A lobby's checkpoint has its own origin, and the ledger's key signs it under that name.
  auto lobby_key = note::parse_vkey(pub.lobby_vkey("r"));
  REQUIRE(lobby_key);
  CHECK(lobby_key->key == pub.signer().public_part().key);
  std::vector<note::verifier> lobby_keys{*lobby_key};
  auto lobby = checkpoint::verify(pub.lobby_checkpoint("r", "", 2, filled(1)), lobby_keys);
  REQUIRE(std::holds_alternative<checkpoint::tree_head>(lobby));
  CHECK(std::get<checkpoint::tree_head>(lobby).origin == "example.com/ledger/lobby/r");
  CHECK(std::holds_alternative<note::open_error>(checkpoint::verify(pub.lobby_checkpoint("r", "", 2, filled(1)), keys)));
  // A lane's lobby is a log of its own.
  auto lane_key = note::parse_vkey(pub.lobby_vkey("r", "members"));
  REQUIRE(lane_key);
  std::vector<note::verifier> lane_keys{*lane_key};
  auto lane = checkpoint::verify(pub.lobby_checkpoint("r", "members", 2, filled(1)), lane_keys);
  REQUIRE(std::holds_alternative<checkpoint::tree_head>(lane));
  CHECK(std::get<checkpoint::tree_head>(lane).origin == "example.com/ledger/lobby/r/members");
  CHECK(std::holds_alternative<note::open_error>(checkpoint::verify(pub.lobby_checkpoint("r", "members", 2, filled(1)), lobby_keys)));
}

TEST_CASE_METHOD(journal_fixture, "each lane of a lottery room has its own commit, close and reveal entries") {
  auto config = lottery_room(start_ms + 60'000);
  config.lanes = {lane_config{"members", "", 300'000, false, lane_entry::code}};
  start({config});
  rooms->require_witnesses(true);
  const auto& log = rooms->public_ledger();
  REQUIRE(log.size() == 2);
  CHECK(log.entries()[0].find("\nlane ") == std::string::npos);
  CHECK(log.entries()[1].starts_with("foyer/ledger/v1\nkind commit\nroom draw\nlane members\ncommitment " +
                                     to_hex(rooms->find("draw")->commitment(1))));
  CHECK(rooms->find("draw")->commitment(1) != rooms->find("draw")->commitment(0));
  REQUIRE_FALSE(commit(draw_witnessed{"draw", ledger::stage::commit, "cosigned\n", clock.now_ms()}).first);

  // A lane declared while the lobby is open commits its own draw, which the witnesses
  // have yet to see: the room's commit is witnessed again.
  config.lanes.push_back(lane_config{"residents", "", 100'000, false, lane_entry::code});
  REQUIRE_FALSE(reconcile({config}));
  CHECK(kinds(log) == std::vector<std::string>{"commit", "commit", "witnessed", "commit"});
  CHECK(log.entries().back().find("\nlane residents\n") != std::string::npos);
  CHECK_FALSE(rooms->find("draw")->witnessed(ledger::stage::commit));
  REQUIRE(witnessed_due(*rooms, log.size(), "again\n", clock.now_ms()).size() == 1);
  CHECK(witnessed_due(*rooms, 3, "old\n", clock.now_ms()).empty());

  REQUIRE_FALSE(commit(draw_witnessed{"draw", ledger::stage::commit, "cosigned again\n", clock.now_ms()}).first);
  clock.advance_ms(80'000);
  REQUIRE(tick("draw"));
  REQUIRE_FALSE(commit(draw_witnessed{"draw", ledger::stage::close, "cosigned close\n", clock.now_ms()}).first);
  const room* r = rooms->find("draw");
  REQUIRE(r->revealed_seed(2));
  CHECK(kinds(log) == std::vector<std::string>{"commit", "commit", "witnessed", "commit", "witnessed", "close", "close",
                                                "close", "witnessed", "reveal", "reveal", "reveal"});
  CHECK(log.entries()[6] == text(ledger::close_entry{"draw", "members", 0, *r->lobby_root(1), *r->closed_at_ms()}));
  const auto& reveal = log.entries().back();
  CHECK(reveal.find("room draw\nlane residents\nseed " + to_hex(*r->revealed_seed(2))) != std::string::npos);
  CHECK(lottery::commitment(*r->revealed_seed(2)) == r->commitment(2));
  auto before = log.entries();
  restart();
  CHECK(rooms->public_ledger().entries() == before);
}
