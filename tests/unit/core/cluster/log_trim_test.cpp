#include <catch2/catch.hpp>

#include <vector>

#include "core/cluster/log_entry.hpp"
#include "core/cluster/log_trim.hpp"

using namespace foyer::cluster;

TEST_CASE("the log is trimmed below the lowest entry any live node holds, less the window kept", "[cluster]") {
  const std::vector<std::uint64_t> none;
  // Alone, the leader keeps only the window below its own last entry.
  CHECK(trim_through(lowest_held(1000, none), 100) == 900);
  CHECK(trim_through(lowest_held(100, none), 100) == 0);
  CHECK(trim_through(lowest_held(0, none), 100) == 0);
  // A standby behind holds the log back; the slowest one decides.
  const std::vector<std::uint64_t> standbys{950, 400, 990};
  CHECK(trim_through(lowest_held(1000, standbys), 100) == 300);
  const std::vector<std::uint64_t> fresh{0};
  CHECK(trim_through(lowest_held(1000, fresh), 100) == 0);
  // A report ahead of the leader (a node that led before) never trims past the leader's own.
  const std::vector<std::uint64_t> ahead{5000};
  CHECK(trim_through(lowest_held(1000, ahead), 10) == 990);
  CHECK(lowest_held(1000, standbys) == 400);
  CHECK(lowest_held(1000, ahead) == 1000);
}

TEST_CASE("the newest entry is never trimmed, whatever window is asked for", "[cluster]") {
  const std::vector<std::uint64_t> caught_up{50};
  CHECK(trim_through(lowest_held(50, caught_up), 1) == 49);
  CHECK(trim_through(lowest_held(50, caught_up), 0) == 49);
}

TEST_CASE("held keys name their node and lie apart from the log and the leader key", "[cluster]") {
  const auto key = held_key("/foyer", "node-b");
  CHECK(key == "/foyer/held/node-b");
  CHECK(held_key_node("/foyer", key) == "node-b");
  CHECK_FALSE(held_key_node("/foyer", "/foyer/held/"));
  CHECK_FALSE(held_key_node("/foyer", "/other/held/node-b"));
  CHECK(held_keys_begin("/foyer") <= key);
  CHECK(key < held_keys_end("/foyer"));
  // The log's range and the leader key are outside the held range.
  for (const auto& other : {log_key("/foyer", 1), log_keys_end("/foyer"), leader_key("/foyer")}) {
    CHECK_FALSE((held_keys_begin("/foyer") <= other && other < held_keys_end("/foyer")));
  }
}

TEST_CASE("a held report is a plain decimal or nothing", "[cluster]") {
  CHECK(held_value("0") == 0u);
  CHECK(held_value("18446744073709551615") == 18446744073709551615u);
  CHECK_FALSE(held_value(""));
  CHECK_FALSE(held_value("12x"));
  CHECK_FALSE(held_value("-1"));
  CHECK_FALSE(held_value("18446744073709551616"));
}
