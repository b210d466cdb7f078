// Fetching a drand round from relays (delivery/drand_relay.cpp), from the loopback relay
// of tests/lib/drand-relay.js serving real recorded quicknet rounds, and its misbehaving
// variants.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "delivery/drand_relay.hpp"

using namespace foyer;

extern char** environ;

namespace {

constexpr std::uint64_t recorded_round = 30662982;  // recorded in tests/data/drand-quicknet-rounds.json
constexpr auto randomness = "ae76da5137c6d0a0d3b50d325948b26cc3ff1f804cd7bbca29b9250c2bfe8d67";

// `node tests/lib/drand-relay.js`, which serves until its stdin closes: so it ends with
// this process, however this process ends.
class relay_process {
 public:
  relay_process() {
    int in[2];
    int out[2];
    REQUIRE(::pipe2(in, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    std::string script = FOYER_TESTS_DIR "/lib/drand-relay.js";
    char* argv[] = {const_cast<char*>("node"), script.data(), nullptr};
    int spawned = ::posix_spawnp(&pid_, "node", &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    REQUIRE(spawned == 0);
    // The first line is the URL; an early exit ends the read with what was written.
    char c;
    while (::read(out[0], &c, 1) == 1 && c != '\n') url_ += c;
    ::close(out[0]);
    REQUIRE(url_.starts_with("http://127.0.0.1:"));
  }
  ~relay_process() {
    ::close(stdin_);
    int status;
    ::waitpid(pid_, &status, 0);
  }
  http_url at(std::string_view prefix) const { return parse_url(url_ + std::string(prefix)).value(); }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  std::string url_;
};

delivery::drand_fetch fetch(const std::vector<http_url>& relays, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  boost::asio::io_context ioc;
  std::optional<delivery::drand_fetch> result;
  delivery::fetch_drand_round(ioc, relays, recorded_round, timeout, [&](delivery::drand_fetch f) { result = std::move(f); });
  ioc.run();
  REQUIRE(result);
  return std::move(*result);
}

}  // namespace

TEST_CASE("drand relay: a recorded round from a relay, whose URL may end in a slash") {
  relay_process relay;
  for (auto prefix : {"", "/"}) {
    auto f = fetch({relay.at(prefix)});
    INFO(prefix);
    REQUIRE(f.answers.size() == 1);
    REQUIRE(f.answers[0]);
    CHECK(f.answers[0]->round == recorded_round);
    CHECK(to_hex(f.answers[0]->randomness) == randomness);
    CHECK(f.problems.empty());
  }
}

TEST_CASE("drand relay: relays that fail or answer wrongly are passed over, in order, each named") {
  relay_process relay;
  auto f = fetch({relay.at("/wrong-round"), relay.at("/bad-randomness"), relay.at("/redirect"), relay.at("/large"),
                  relay.at("/unknown"), relay.at("/silent"), relay.at("")},
                 std::chrono::milliseconds(500));
  REQUIRE(f.answers.size() == 7);
  REQUIRE(f.answers[6]);
  CHECK(to_hex(f.answers[6]->randomness) == randomness);
  CHECK(std::none_of(f.answers.begin(), f.answers.end() - 1, [](auto& a) { return a.has_value(); }));
  REQUIRE(f.problems.size() == 6);
  CHECK_THAT(f.problems[0], Catch::Contains("/wrong-round/52db9ba7") && Catch::Contains("another round"));
  CHECK_THAT(f.problems[1], Catch::Contains("/bad-randomness/") && Catch::Contains("SHA-256(signature)"));
  CHECK_THAT(f.problems[2], Catch::Contains("/redirect/") && Catch::Contains("answered 302"));
  CHECK_THAT(f.problems[3], Catch::Contains("/large/") && Catch::Contains("larger than 8192 bytes"));
  CHECK_THAT(f.problems[4], Catch::Contains("/unknown/") && Catch::Contains("answered 404"));
  CHECK_THAT(f.problems[5], Catch::Contains("/silent/") && Catch::Contains("no whole answer"));
}

TEST_CASE("drand relay: with no relay that answers well, no round") {
  relay_process relay;
  auto closed = relay.at("");
  closed.port = "1";  // nothing listens on loopback port 1
  auto f = fetch({closed, relay.at("/bad-randomness")});
  CHECK(f.answers == std::vector<std::optional<drand::round_value>>(2));
  REQUIRE(f.problems.size() == 2);
  CHECK_THAT(f.problems[0], Catch::Contains("cannot connect"));
  CHECK(fetch({}).problems.empty());
}

TEST_CASE("drand relay: every relay is asked until two agree; a forged round is one answer among them") {
  relay_process relay;
  // The forged round passes the server's checks: only a second relay shows it up.
  auto f = fetch({relay.at("/forged"), relay.at(""), relay.at("/"), relay.at("/unknown")});
  REQUIRE(f.answers.size() == 3);  // the fourth is not asked: two agreed
  REQUIRE(f.answers[0]);
  CHECK(f.answers[0] != f.answers[1]);
  CHECK(f.answers[1] == f.answers[2]);
  auto decision = drand::decide_beacon(f.answers);
  CHECK(decision.check == drand::beacon_check::two_relays);
  CHECK(decision.value == f.answers[1]);
  CHECK(decision.contradicted);
  // The forged relay and one honest one: no round, however long the wait.
  auto pair = fetch({relay.at("/forged"), relay.at("")});
  CHECK_FALSE(drand::decide_beacon(pair.answers).value);
}
