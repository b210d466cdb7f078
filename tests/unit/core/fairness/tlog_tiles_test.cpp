#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "core/fairness/merkle.hpp"
#include "core/fairness/tlog_tiles.hpp"

using namespace foyer;
using namespace foyer::tiles;

namespace {

std::string entry_text(std::uint64_t i) { return fmt::format("entry {}", i); }

// A tree of `size` entries with every file it publishes, by path.
struct published {
  explicit published(std::uint64_t size) {
    writer w;
    for (std::uint64_t i = 0; i < size; ++i) {
      w.append(as_bytes(entry_text(i)));
      for (auto& f : w.take_full()) files[f.path] = f.bytes;
    }
    for (auto& f : w.partials()) files[f.path] = f.bytes;
    root = w.root();
  }
  std::optional<problem> check(std::uint64_t size) const {
    return tiles::check(size, root, [this](const std::string& path) -> std::optional<std::string> {
      auto it = files.find(path);
      if (it == files.end()) return std::nullopt;
      return it->second;
    });
  }
  std::map<std::string, std::string> files;
  digest root{};
};

std::vector<digest> hashes_of(const std::string& tile) {
  std::vector<digest> out(tile.size() / 32);
  for (std::size_t i = 0; i < out.size(); ++i) std::copy_n(tile.data() + 32 * i, 32, out[i].begin());
  return out;
}

std::size_t count_prefix(const std::map<std::string, std::string>& files, const std::string& prefix,
                         bool partial) {
  std::size_t n = 0;
  for (const auto& [path, bytes] : files) {
    if (path.starts_with(prefix) && (path.find(".p/") != std::string::npos) == partial) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("tiles: paths as the spec spells them", "[tiles]") {
  CHECK(index_path(0) == "000");
  CHECK(index_path(5) == "005");
  CHECK(index_path(999) == "999");
  CHECK(index_path(1000) == "x001/000");
  CHECK(index_path(1234067) == "x001/x234/067");
  CHECK(tile_path(0, 1234067, 256) == "tile/0/x001/x234/067");
  CHECK(tile_path(2, 0, 1) == "tile/2/000.p/1");
  CHECK(entries_path(273, 112) == "tile/entries/273.p/112");
  CHECK(entries_path(1000, 256) == "tile/entries/x001/000");
  CHECK_THROWS_AS(tile_path(0, 0, 0), std::invalid_argument);
  CHECK_THROWS_AS(entries_path(0, 257), std::invalid_argument);
}

TEST_CASE("tiles: the spec's tree of 70,000 entries", "[tiles]") {
  published log(70000);
  const auto& f = log.files;
  CHECK(count_prefix(f, "tile/0/", false) == 273);
  CHECK(count_prefix(f, "tile/0/", true) == 1);
  CHECK(f.at("tile/0/273.p/112").size() == 112 * 32);
  CHECK(count_prefix(f, "tile/1/", false) == 1);
  CHECK(f.at("tile/1/001.p/17").size() == 17 * 32);
  CHECK(f.at("tile/2/000.p/1").size() == 32);
  CHECK(count_prefix(f, "tile/entries/", false) == 273);
  CHECK(f.count("tile/entries/273.p/112") == 1);
  CHECK(f.size() == 273 + 1 + 1 + 1 + 1 + 273 + 1);

  // Level 0 holds the leaf hashes; each hash of level 1 is the MTH of a level-0 tile.
  auto level0 = hashes_of(f.at("tile/0/005"));
  CHECK(level0[3] == merkle::leaf_hash(as_bytes(entry_text(5 * 256 + 3))));
  CHECK(hashes_of(f.at("tile/1/000"))[5] == merkle::root_of(level0));
  // The one hash of level 2 covers the first 65,536 entries.
  CHECK(hashes_of(f.at("tile/2/000.p/1"))[0] == merkle::root_of(hashes_of(f.at("tile/1/000"))));
  CHECK(log.check(70000) == std::nullopt);
}

TEST_CASE("tiles: a tree of 256 is one full tile and a partial level-1 tile of width 1", "[tiles]") {
  published log(256);
  std::vector<std::string> paths;
  for (const auto& [path, bytes] : log.files) paths.push_back(path);
  CHECK(paths == std::vector<std::string>{"tile/0/000", "tile/1/000.p/1", "tile/entries/000"});
  CHECK(hashes_of(log.files.at("tile/1/000.p/1"))[0] == log.root);
}

TEST_CASE("tiles: bundles are u16be length-prefixed entries", "[tiles]") {
  writer w;
  w.append(as_bytes("ab"));
  w.append(byte_view{});
  std::vector<std::uint8_t> big(max_entry_size, 0x5A);
  w.append(big);
  auto partials = w.partials();
  REQUIRE(partials.size() == 2);
  CHECK(partials[1].path == "tile/entries/000.p/3");
  CHECK(partials[1].bytes.substr(0, 6) == std::string("\x00\x02" "ab\x00\x00", 6));
  CHECK(partials[1].bytes.substr(6, 2) == "\xFF\xFF");
  CHECK(partials[1].bytes.size() == 8 + max_entry_size);
  big.push_back(0);
  CHECK_THROWS_AS(w.append(big), std::invalid_argument);
  CHECK(w.size() == 3);
}

TEST_CASE("tiles: the root is the RFC 6962 root, at every size around the tile edges", "[tiles]") {
  writer w;
  std::vector<digest> leaves;
  for (std::uint64_t i = 0; i < 600; ++i) {
    w.append(as_bytes(entry_text(i)));
    leaves.push_back(merkle::leaf_hash(as_bytes(entry_text(i))));
    if (i % 97 == 0 || i % 256 <= 1 || i % 256 == 255) REQUIRE(w.root() == merkle::root_of(leaves));
  }
}

TEST_CASE("tiles: check accepts the published log and finds each kind of tampering", "[tiles]") {
  for (std::uint64_t size : {0, 1, 255, 256, 257, 513, 70000}) {
    CAPTURE(size);
    CHECK(published(size).check(size) == std::nullopt);
  }

  published log(600);
  std::vector<std::string> seen;
  CHECK(tiles::check(600, log.root,
                     [&](const std::string& path) -> std::optional<std::string> { return log.files.at(path); },
                     [&](std::uint64_t index, byte_view entry) {
                       if (index < 3) seen.emplace_back(as_chars(entry));
                     }) == std::nullopt);
  CHECK(seen == std::vector<std::string>{"entry 0", "entry 1", "entry 2"});

  SECTION("a checkpoint of another size") { CHECK(log.check(599)); }
  SECTION("another root") {
    log.root[0] ^= 1;
    CHECK(log.check(600)->path == "checkpoint");
  }
  SECTION("a missing bundle") {
    log.files.erase("tile/entries/001");
    auto p = log.check(600);
    REQUIRE(p);
    CHECK(p->path == "tile/entries/001");
    CHECK(p->what == "missing");
  }
  SECTION("a dropped entry") {
    auto& bundle = log.files.at("tile/entries/002.p/88");
    bundle = bundle.substr(2 + entry_text(512).size());
    CHECK(log.check(600)->path == "tile/entries/002.p/88");
  }
  SECTION("two entries swapped, with the bundle still well formed") {
    auto& bundle = log.files.at("tile/entries/000");
    std::string first = bundle.substr(0, 9);   // "\0\7entry 0"
    std::string second = bundle.substr(9, 9);  // "\0\7entry 1"
    bundle.replace(0, 18, second + first);
    CHECK(log.check(600)->path == "tile/0/000");
  }
  SECTION("a tile changed") {
    log.files.at("tile/1/000.p/2")[40] ^= 1;
    CHECK(log.check(600)->path == "tile/1/000.p/2");
  }
  SECTION("a partial tile missing") {
    log.files.erase("tile/0/002.p/88");
    CHECK(log.check(600)->what == "missing");
  }
}
