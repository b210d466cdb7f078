#include <catch2/catch.hpp>

#include <array>
#include <optional>
#include <string>

#include "core/cluster/log_claim.hpp"

using namespace foyer::cluster;

namespace {

const std::array<std::uint8_t, 32> secret{1, 2, 3};
const std::array<std::uint8_t, 32> other_secret{9};

log_identity restored(bool secret_new = false) {
  return {incarnation_mark(secret, "b2"), {incarnation_mark(secret, ""), incarnation_mark(secret, "a1")}, secret_new};
}

}  // namespace

TEST_CASE("an incarnation's mark is its secret's and its id's, and shows neither", "[cluster]") {
  const auto first = incarnation_mark(secret, "");
  CHECK(first.size() == 32);
  CHECK(first == incarnation_mark(secret, ""));
  CHECK(first != incarnation_mark(secret, "a1"));
  CHECK(first != incarnation_mark(other_secret, ""));
  CHECK(incarnation_key("/foyer") == "/foyer/incarnation");
}

TEST_CASE("a node leads only a log that holds its incarnation's tickets", "[cluster]") {
  const auto self = restored();
  // Its own log, empty or not.
  CHECK(judge_log(self.mark, true, self) == log_claim::lead);
  CHECK(judge_log(self.mark, false, self) == log_claim::lead);
  // A log of an incarnation it was restored from: its tickets are honoured up to the cut.
  CHECK(judge_log(incarnation_mark(secret, "a1"), false, self) == log_claim::adopt);
  // Another sale's, or an incarnation it does not descend from.
  CHECK(judge_log(incarnation_mark(other_secret, ""), false, self) == log_claim::foreign);
  CHECK(judge_log(incarnation_mark(secret, "zz"), true, self) == log_claim::foreign);
  // An unmarked log with entries was written before marks: it is this secret's own.
  CHECK(judge_log(std::nullopt, false, self) == log_claim::adopt);
}

TEST_CASE("an empty, unmarked log is claimed only by a secret made for it", "[cluster]") {
  // etcd wiped, a new prefix, a log deleted beside its secret: the old tickets would be
  // honoured for places this log never gave.
  CHECK(judge_log(std::nullopt, true, restored(/*secret_new=*/false)) == log_claim::unknown);
  CHECK(judge_log(std::nullopt, true, restored(/*secret_new=*/true)) == log_claim::adopt);
  const auto why = log_refusal(log_claim::unknown, "the cluster's log under '/x'", "foyer new-incarnation --config F");
  CHECK(why.find("the cluster's log under '/x' is empty") != std::string::npos);
  CHECK(why.find("`foyer new-incarnation --config F`") != std::string::npos);
  CHECK(why.find("ticket_lost_in_restore") != std::string::npos);
  CHECK(log_refusal(log_claim::foreign, "the log in d", "r").find("secrets_dir") != std::string::npos);
}

TEST_CASE("a standby continues only the log its entries came from; an empty store follows any", "[cluster]") {
  const auto mark = incarnation_mark(secret, "b2");
  CHECK(may_follow(mark, 40, mark));
  CHECK(may_follow(std::nullopt, 0, mark));
  CHECK(may_follow(incarnation_mark(secret, ""), 0, mark));
  // An earlier log's entries, marked or from before marks: the new log is not copied after them.
  CHECK_FALSE(may_follow(incarnation_mark(secret, ""), 40, mark));
  CHECK_FALSE(may_follow(std::nullopt, 40, mark));
}
