#include <catch2/catch.hpp>

#include <deque>

#include "core/cluster/fencing.hpp"
#include "core/cluster/log_entry.hpp"

using namespace foyer;
using namespace foyer::cluster;

namespace {

// etcd as a script: each try of the write takes the next answer; each pause moves the
// clock on.
struct scripted_etcd {
  std::deque<fenced_try> answers;
  std::int64_t now = 0;
  std::int64_t pause_ms = 100;
  std::int64_t try_ms = 0;
  int tries = 0;

  commit_outcome commit(std::string_view ours, const lease_clock& lease) {
    return commit_until_known(
        ours,
        [&] {
          ++tries;
          now += try_ms;
          auto next = answers.front();
          answers.pop_front();
          return next;
        },
        [&] { return now; }, [&] { return lease.deadline_ms(); }, [&] { now += pause_ms; });
  }
};

fenced_try lost() { return {}; }
fenced_try answered(bool succeeded, std::optional<std::string> found = std::nullopt) {
  return {fenced_reply{succeeded, std::move(found)}, false};
}

}  // namespace

TEST_CASE("the lease is trusted from when the keepalive was sent, less the margin") {
  lease_clock lease(2000, 500);
  CHECK_FALSE(lease.holds(0));
  lease.renewed(1000, 2000);
  CHECK(lease.deadline_ms() == 2500);
  CHECK(lease.holds(2499));
  CHECK_FALSE(lease.holds(2500));
  // An answer to an older keepalive never pulls the deadline back.
  lease.renewed(900, 2000);
  CHECK(lease.deadline_ms() == 2500);
  // etcd may grant more than asked: the deadline never trusts more than the TTL configured.
  lease.renewed(2000, 9000);
  CHECK(lease.deadline_ms() == 3500);
}

TEST_CASE("a fenced write is committed when its guard holds") {
  lease_clock lease(2000, 500);
  lease.renewed(0, 2000);
  scripted_etcd etcd{{answered(true)}};
  CHECK(etcd.commit("entry", lease) == commit_outcome::committed);
  CHECK(etcd.tries == 1);
}

TEST_CASE("a deposed leader's write fails: another holds the key, or wrote the entry") {
  lease_clock lease(2000, 500);
  lease.renewed(0, 2000);
  scripted_etcd leader_moved{{answered(false)}};
  CHECK(leader_moved.commit("entry", lease) == commit_outcome::deposed);
  scripted_etcd entry_taken{{answered(false, "another leader's entry")}};
  CHECK(entry_taken.commit("entry", lease) == commit_outcome::deposed);
}

TEST_CASE("an unknown outcome is tried again until etcd says which it was") {
  lease_clock lease(2000, 500);
  lease.renewed(0, 2000);
  SECTION("the lost try had landed: the retry finds the very same entry") {
    scripted_etcd etcd{{lost(), lost(), answered(false, "entry")}};
    CHECK(etcd.commit("entry", lease) == commit_outcome::committed);
    CHECK(etcd.tries == 3);
  }
  SECTION("it had not: the retry writes it") {
    scripted_etcd etcd{{lost(), answered(true)}};
    CHECK(etcd.commit("entry", lease) == commit_outcome::committed);
  }
  SECTION("it had not, and the leader was deposed meanwhile") {
    scripted_etcd etcd{{lost(), answered(false)}};
    CHECK(etcd.commit("entry", lease) == commit_outcome::deposed);
  }
}

TEST_CASE("a write still unknown at the lease's deadline is answered neither way") {
  lease_clock lease(2000, 500);
  lease.renewed(0, 2000);
  scripted_etcd etcd{{lost(), lost(), lost(), lost(), lost(), lost(), lost(), lost(), lost(), lost(), lost(), lost(),
                      lost(), lost(), lost(), lost()}};
  etcd.pause_ms = 400;
  CHECK(etcd.commit("entry", lease) == commit_outcome::lapsed);
  CHECK(etcd.tries == 4);  // at 0, 400, 800 and 1200 ms; at 1600 the 1500 ms deadline has passed
}

TEST_CASE("an answer that comes after the deadline is not acted on, even a success") {
  lease_clock lease(2000, 500);
  lease.renewed(0, 2000);
  scripted_etcd etcd{{answered(true)}};
  etcd.now = 1000;
  etcd.try_ms = 600;  // a paused process: it sent at 1000 ms and reads the answer at 1600
  CHECK(etcd.commit("entry", lease) == commit_outcome::lapsed);
}

TEST_CASE("a leader whose lease has lapsed does not even try") {
  lease_clock lease(2000, 500);
  lease.renewed(0, 2000);
  scripted_etcd etcd{{answered(true)}};
  etcd.now = 1500;
  CHECK(etcd.commit("entry", lease) == commit_outcome::lapsed);
  CHECK(etcd.tries == 0);
}

TEST_CASE("a refusal is definite: nothing was applied") {
  lease_clock lease(2000, 500);
  lease.renewed(0, 2000);
  scripted_etcd etcd{{fenced_try{std::nullopt, true}}};
  CHECK(etcd.commit("entry", lease) == commit_outcome::refused);
}

TEST_CASE("log entries round-trip, side records alone included, and refuse what they are not") {
  std::vector<std::string_view> events{"first", "", "third"};
  std::vector<side_record> sides{{"k1", "v1"}, {"k2", ""}};
  auto bytes = encode_log_entry(41, events, sides);
  auto back = decode_log_entry(bytes);
  REQUIRE(back);
  CHECK(back->first_seq == 41);
  CHECK(back->events == std::vector<std::string>{"first", "", "third"});
  REQUIRE(back->side_records.size() == 2);
  CHECK(back->side_records[1].key == "k2");
  auto alone = decode_log_entry(encode_log_entry(44, {}, sides));
  REQUIRE(alone);
  CHECK(alone->events.empty());
  CHECK_FALSE(decode_log_entry(bytes.substr(0, bytes.size() - 1)));
  CHECK_FALSE(decode_log_entry(bytes + "x"));
  CHECK_FALSE(decode_log_entry(""));
  auto huge_count = bytes;
  huge_count[9] = '\x7f';  // the event count's first byte
  CHECK_FALSE(decode_log_entry(huge_count));
}

TEST_CASE("log keys sort in entry order and name their entry") {
  CHECK(log_key("/foyer", 7) == "/foyer/log/00000000000000000007");
  CHECK(log_key("/foyer", 7) < log_key("/foyer", 10));
  CHECK(log_key("/foyer", 99999) < log_keys_end("/foyer"));
  CHECK(log_key_entry("/foyer", log_key("/foyer", 12345)) == 12345u);
  CHECK_FALSE(log_key_entry("/foyer", "/foyer/log/0000000000000000000x"));
  CHECK_FALSE(log_key_entry("/foyer", "/other/log/00000000000000000007"));
  CHECK_FALSE(log_key_entry("/foyer", log_key("/foyer", 0)));
  CHECK(leader_key("/foyer") == "/foyer/leader");
}

TEST_CASE("a refusal after a lost try is not definite: the lost one may have landed") {
  lease_clock lease(2000, 500);
  lease.renewed(0, 2000);
  const fenced_try refused{std::nullopt, true};
  SECTION("it had landed: a later try finds the very same entry") {
    scripted_etcd etcd{{lost(), refused, answered(false, "entry")}};
    CHECK(etcd.commit("entry", lease) == commit_outcome::committed);
    CHECK(etcd.tries == 3);
  }
  SECTION("it had not: a later try writes it") {
    scripted_etcd etcd{{lost(), refused, refused, answered(true)}};
    CHECK(etcd.commit("entry", lease) == commit_outcome::committed);
  }
  SECTION("etcd refuses until the deadline: answered neither way") {
    scripted_etcd etcd{{lost(), refused, refused, refused, refused, refused, refused, refused}};
    etcd.pause_ms = 400;
    CHECK(etcd.commit("entry", lease) == commit_outcome::lapsed);
    CHECK(etcd.tries == 4);
  }
}
