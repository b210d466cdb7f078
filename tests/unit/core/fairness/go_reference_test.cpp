// The public log formats checked by an implementation that is not Foyer's: Go's
// golang.org/x/mod/sumdb/note and sumdb/tlog (Debian's golang-golang-x-mod-dev), driven
// by tests/go/notecheck, built offline from /usr/share/gocode. packaging/deps.sh
// installs Go and those packages.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/fairness/checkpoint.hpp"
#include "core/fairness/merkle.hpp"
#include "core/fairness/tlog_tiles.hpp"
#include "support/go_tools.hpp"

using namespace foyer;
namespace fs = std::filesystem;

namespace {

const std::string origin = "foyer.example/lobby/test";
// Three levels of tiles, partial tiles at each, and an old checkpoint mid-tile.
constexpr std::uint64_t log_size = 70000;
constexpr std::uint64_t old_size = 300;

// FOYER_VECTORS is tests/data/fairness-vectors.json in the source tree.
fs::path notecheck_source() { return fs::path(FOYER_VECTORS).parent_path().parent_path() / "go" / "notecheck"; }

note::signer log_key(std::uint8_t seed_byte) {
  note::seed seed{};
  seed.fill(seed_byte);
  return note::signer(origin, seed);
}

std::string proof_line(std::string head, const std::vector<digest>& proof) {
  for (const auto& hash : proof) head += " " + base64_encode(hash);
  return head + "\n";
}

// A lobby-like log of 16-byte entrant ids, as Foyer publishes it, with two checkpoints
// and some proofs.
void publish(const fs::path& dir, const note::signer& key) {
  tiles::writer writer;
  std::vector<digest> leaves;
  for (std::uint64_t i = 0; i < log_size; ++i) {
    std::array<std::uint8_t, 16> id{};
    put_be64(id.data(), i * 0x9E3779B97F4A7C15ULL);
    put_be64(id.data() + 8, i);
    writer.append(id);
    leaves.push_back(merkle::leaf_hash(id));
    if (writer.size() == old_size) {
      test::write_file(dir / "checkpoint.old", checkpoint::sign({origin, old_size, writer.root()}, key));
    }
    for (const auto& file : writer.take_full()) test::write_file(dir / file.path, file.bytes);
  }
  for (const auto& file : writer.partials()) test::write_file(dir / file.path, file.bytes);
  test::write_file(dir / "checkpoint", checkpoint::sign({origin, log_size, writer.root()}, key));
  test::write_file(dir / "vkey", note::encode_vkey(key.public_part()) + "\n");

  std::string proofs;
  for (std::uint64_t index : {std::uint64_t{0}, old_size, std::uint64_t{65535}, std::uint64_t{65536}, log_size - 1}) {
    proofs += proof_line("inclusion " + std::to_string(index), merkle::path_in(leaves, index));
  }
  proofs += proof_line(fmt::format("consistency {} {}", old_size, log_size), merkle::consistency_in(leaves, old_size));
  test::write_file(dir / "proofs", proofs);
}

// A copy of the published log with one file changed.
fs::path tampered(const fs::path& published, const fs::path& root, const std::string& name,
                  const std::function<void(const fs::path&)>& change) {
  fs::path copy = root / name;
  fs::copy(published, copy, fs::copy_options::recursive);
  change(copy);
  return copy;
}

struct go_fixture {
  go_fixture() : root(fs::temp_directory_path() / ("foyer-notecheck-" + std::to_string(::getpid()))) {
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~go_fixture() {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
  go_fixture(const go_fixture&) = delete;
  go_fixture& operator=(const go_fixture&) = delete;

  // Builds notecheck offline: GOPATH mode on Debian's Go sources, no module proxy.
  fs::path build() {
    fs::path binary = root / "notecheck";
    test::go_build(notecheck_source(), binary);
    return binary;
  }

  int check(const fs::path& binary, const fs::path& dir, std::string& output) {
    return test::run(test::shell_quoted(binary) + " " + test::shell_quoted(dir), root / "check.log", output);
  }

  fs::path root;
};

}  // namespace

TEST_CASE_METHOD(go_fixture, "Go's sumdb/note and sumdb/tlog accept Foyer's log, and refuse tampered copies",
                 "[go][tiles][checkpoint][note]") {
  fs::path binary = build();
  fs::path published = root / "published";
  publish(published, log_key(1));

  std::string output;
  int status = check(binary, published, output);
  INFO(output);
  REQUIRE(status == 0);
  CHECK(output.find("70000 entries, consistent with 300") != std::string::npos);

  struct tampering {
    std::string name;
    std::string reason;  // in notecheck's answer
    std::function<void(const fs::path&)> change;
  };
  const std::vector<tampering> cases = {
      {"two entries swapped", "the entries give another root",
       [](const fs::path& dir) {
         std::string bundle = test::read_file(dir / "tile/entries/001");
         test::write_file(dir / "tile/entries/001", bundle.substr(18, 18) + bundle.substr(0, 18) + bundle.substr(36));
       }},
      {"the last entry dropped", "tile/entries/273.p/112: entry 111 cut short",
       [](const fs::path& dir) {
         fs::path last = dir / tiles::entries_path(log_size / 256, log_size % 256);
         std::string bundle = test::read_file(last);
         test::write_file(last, bundle.substr(0, bundle.size() - 18));
       }},
      {"a tile changed", "tile/1/000: not the tile of these entries",
       [](const fs::path& dir) {
         std::string tile = test::read_file(dir / "tile/1/000");
         tile[100] ^= 1;
         test::write_file(dir / "tile/1/000", tile);
       }},
      {"the checkpoint signed by another key of the same name", "no verifiable signatures",
       [](const fs::path& dir) {
         std::string signed_checkpoint = test::read_file(dir / "checkpoint");
         auto head = checkpoint::parse(signed_checkpoint.substr(0, signed_checkpoint.find("\n\n") + 1));
         REQUIRE(head);
         test::write_file(dir / "checkpoint", checkpoint::sign(*head, log_key(2)));
       }},
      {"an old checkpoint the log is not consistent with", "consistency proof 300 -> 70000",
       [](const fs::path& dir) {
         digest other{};
         test::write_file(dir / "checkpoint.old", checkpoint::sign({origin, old_size, other}, log_key(1)));
       }},
  };
  for (const auto& c : cases) {
    fs::path dir = tampered(published, root, "tampered", c.change);
    int tampered_status = check(binary, dir, output);
    INFO(c.name << ": " << output);
    CHECK(tampered_status == 1);
    CHECK(output.find(c.reason) != std::string::npos);
    fs::remove_all(dir);
  }
}
