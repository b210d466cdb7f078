// Foyer's witness client against a witness that is not Foyer's: tests/go/witness, built
// offline from Go's golang.org/x/mod/sumdb/note and sumdb/tlog (Debian's
// golang-golang-x-mod-dev, as tests/go/notecheck), on a loopback port.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "core/fairness/cosignature.hpp"
#include "delivery/witness_client.hpp"
#include "support/go_tools.hpp"

extern char** environ;

using namespace foyer;
namespace fs = std::filesystem;

namespace {

const std::string origin = "foyer.example/ledger";
const std::string witness_name = "witness.example/w1";
// The witness's clock runs a day behind, as tests run the server with a clock in the past.
constexpr std::int64_t clock_offset = -86400;

note::seed seed_of(std::uint8_t b) {
  note::seed s;
  s.fill(b);
  return s;
}

// A log the test appends to, with every stored node kept for proofs.
struct test_log {
  note::signer key{origin, seed_of(1)};
  merkle::frontier tree;
  std::map<std::pair<std::uint32_t, std::uint64_t>, digest> nodes;

  std::string grow_to(std::uint64_t size) {
    while (tree.size() < size) {
      for (const auto& n : tree.append(merkle::leaf_hash(as_bytes("entry " + std::to_string(tree.size()))))) {
        nodes[{n.level, n.index}] = n.hash;
      }
    }
    return checkpoint::sign({origin, tree.size(), tree.root()}, key);
  }
  witness::proof_provider proofs() {
    return witness::proofs_from([this](const std::vector<merkle::node_id>& ids) {
      std::vector<digest> out;
      for (const auto& id : ids) out.push_back(nodes.at({id.level, id.index}));
      return out;
    });
  }
};

struct go_witness_fixture {
  go_witness_fixture() : root(fs::temp_directory_path() / ("foyer-witness-" + std::to_string(::getpid()))) {
    fs::remove_all(root);
    fs::create_directories(root);
    build();
  }
  ~go_witness_fixture() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
  go_witness_fixture(const go_witness_fixture&) = delete;
  go_witness_fixture& operator=(const go_witness_fixture&) = delete;

  // Builds the witness offline: GOPATH mode on Debian's Go sources, no module proxy.
  void build() {
    test::go_build(fs::path(FOYER_GO_DIR) / "witness", binary());
  }
  fs::path binary() const { return root / "witness"; }

  // Starts `witness serve` on a loopback port; returns its URL.
  std::string serve() {
    int out[2];
    REQUIRE(::pipe(out) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<std::string> args = {binary().string(),      "serve",
                                     "-listen",              "127.0.0.1:0",
                                     "-name",                witness_name,
                                     "-seed",                to_hex(seed_of(2)),
                                     "-log-vkey",            note::encode_vkey(log.key.public_part()),
                                     "-clock-offset",        std::to_string(clock_offset)};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    REQUIRE(spawned == 0);
    // "listening on 127.0.0.1:PORT\n", once it accepts connections.
    std::string line;
    char c;
    while (line.size() < 200 && ::read(out[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(out[0]);
    REQUIRE(line.starts_with("listening on "));
    return "http://" + line.substr(std::string("listening on ").size());
  }

  // One round of `client` for `note`, run on the loop to its end.
  delivery::witness_round submit(delivery::witness_client& client, const std::string& note) {
    delivery::witness_round result;
    bool called = false;
    client.submit(note, log.proofs(), [&](const delivery::witness_round& r) {
      result = r;
      called = true;
    });
    ioc.restart();
    ioc.run();
    REQUIRE(called);
    return result;
  }

  delivery::witness_client client(const std::string& url) {
    return delivery::witness_client(ioc, {{witness_key.public_part(), *parse_url(url)}}, 1, std::chrono::seconds(5));
  }

  fs::path root;
  pid_t pid = -1;
  test_log log;
  note::signer witness_key = cosignature::make_signer(witness_name, seed_of(2));
  boost::asio::io_context ioc;
};

witness::failure failed(const delivery::witness_round& r) {
  REQUIRE(r.outcomes.size() == 1);
  REQUIRE(std::holds_alternative<witness::failure>(r.outcomes[0].answer));
  return std::get<witness::failure>(r.outcomes[0].answer);
}

std::uint64_t cosigned_at(const delivery::witness_round& r) {
  REQUIRE(r.outcomes.size() == 1);
  INFO((std::holds_alternative<witness::failure>(r.outcomes[0].answer)
            ? std::get<witness::failure>(r.outcomes[0].answer).detail
            : ""));
  REQUIRE(std::holds_alternative<witness::cosigned>(r.outcomes[0].answer));
  return std::get<witness::cosigned>(r.outcomes[0].answer).timestamp;
}

}  // namespace

TEST_CASE_METHOD(go_witness_fixture, "witness client: Go's witness cosigns, resyncs and refuses", "[witness][go]") {
  std::string url = serve();
  auto first = client(url);

  // The first checkpoint, from size 0: cosigned at the witness's clock.
  auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  auto round = submit(first, log.grow_to(5));
  auto at = static_cast<std::int64_t>(cosigned_at(round));
  CHECK(std::abs(at - (now.count() + clock_offset)) < 60);
  CHECK(round.size == 5);
  CHECK(round.quorum);
  auto opened = cosignature::verify(round.cosigned_note, log.key.public_part(),
                                    std::vector{witness_key.public_part()}, 1);
  REQUIRE(std::holds_alternative<cosignature::cosigned_head>(opened));
  CHECK(std::get<cosignature::cosigned_head>(opened).head.size == 5);

  // The next one, with a consistency proof from 5.
  round = submit(first, log.grow_to(300));
  cosigned_at(round);
  CHECK(first.book().witness_size(0) == 300);
  CHECK(first.book().quorum_at_least(300));

  // A client that forgot (a fresh book says 0): the witness answers 409 with 300, and the
  // client follows with a proof from 300.
  auto forgetful = client(url);
  round = submit(forgetful, log.grow_to(1000));
  cosigned_at(round);
  CHECK(forgetful.book().witness_size(0) == 1000);
  CHECK(round.cosigned_note == forgetful.book().cosigned_note());

  // A checkpoint of the log's origin signed by another key: 403, nothing cosigned. (The
  // log grows first so that the client can make its proofs.)
  log.grow_to(1002);
  auto forged = checkpoint::sign({origin, 1001, digest{}}, note::signer(origin, seed_of(9)));
  round = submit(forgetful, forged);
  CHECK(failed(round).why == witness::refusal::forbidden);
  CHECK_FALSE(round.quorum);
  CHECK(round.cosigned_note == forged);

  // Signed by the log but not consistent with what the witness cosigned: 422.
  auto other_tree = checkpoint::sign({origin, 1002, digest{}}, log.key);
  round = submit(forgetful, other_tree);
  CHECK(failed(round).why == witness::refusal::inconsistent);
  CHECK(forgetful.book().witness_size(0) == 1000);
}

TEST_CASE_METHOD(go_witness_fixture, "witness client: a witness that does not answer is a failure, not a wait",
                 "[witness][go]") {
  // A port that nothing listens on any more.
  std::uint16_t port;
  {
    boost::asio::ip::tcp::acceptor acceptor(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
    port = acceptor.local_endpoint().port();
  }
  auto nobody = client("http://127.0.0.1:" + std::to_string(port) + "/witness/");
  auto round = submit(nobody, log.grow_to(3));
  CHECK(failed(round).why == witness::refusal::unreachable);
  CHECK(failed(round).detail.find("/witness/add-checkpoint") != std::string::npos);
  CHECK_FALSE(round.quorum);
}

TEST_CASE_METHOD(go_witness_fixture, "witness client: Go's note.Open verifies Foyer's cosignatures", "[witness][go]") {
  // x/mod 0.7.0's note knows no cosignature type; tests/go/witness gives it a note.Verifier
  // of cosignature/v1 lines, so Go's note parsing and Foyer's signing meet here.
  std::string note = log.grow_to(7);
  std::string text = note.substr(0, note.rfind("\n\n") + 1);
  std::string cosigned = note + cosignature::sign(witness_key, text, 1700000000);
  auto check = [&](const std::string& candidate, std::string& output) {
    std::ofstream(root / "cosigned", std::ios::binary) << candidate;
    return test::run(test::shell_quoted(binary()) + " verify -log-vkey " + test::shell_quoted(note::encode_vkey(log.key.public_part())) +
                   " -witness-vkey " + test::shell_quoted(cosignature::encode_vkey(witness_key.public_part())) + " " +
                   test::shell_quoted(root / "cosigned"),
               root / "verify.log", output);
  };
  std::string output;
  CHECK(check(cosigned, output) == 0);
  CHECK(output == "cosigned at 1700000000\n");

  // The same line claiming another time.
  std::string line = cosigned.substr(note.size());
  auto space = line.rfind(' ');
  auto payload = base64_decode(line.substr(space + 1, line.size() - space - 2));
  REQUIRE(payload);
  put_be64(payload->data() + 4, 1700000001);
  CHECK(check(note + line.substr(0, space + 1) + base64_encode(*payload) + "\n", output) == 1);
  CHECK(output.find("invalid signature") != std::string::npos);
}
