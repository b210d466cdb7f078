// The whole-draw audit's frame (core/fairness/draw_audit.cpp): every check reported, in
// order, in one of three states; a reader's failure names itself in the first check and
// stops the checks that need it. The audit of real draws runs against the real binary in
// tests/integration/foyer_audit.test.js and audit.test.js.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "core/fairness/draw_audit.hpp"

using namespace foyer;

namespace {

std::vector<std::string> names(const audit::report& r) {
  std::vector<std::string> out;
  for (const auto& c : r.checks) out.push_back(c.name);
  return out;
}

}  // namespace

TEST_CASE("draw audit: a server that cannot be read fails the first check with its cause, and no check passes") {
  auto r = audit::audit_draw("tatkal", {}, [](const std::string& path) -> std::optional<std::string> {
    throw std::runtime_error("http://127.0.0.1:1/" + path + ": cannot connect: Connection refused");
  });
  REQUIRE(r.checks.size() == audit::check_names.size());
  CHECK(names(r) == std::vector<std::string>(audit::check_names.begin(), audit::check_names.end()));
  CHECK(r.checks[0].status == audit::state::fail);
  CHECK(r.checks[0].detail == "http://127.0.0.1:1/api/v1/ledger: cannot connect: Connection refused");
  CHECK(r.checks[1].detail == "not run: \"ledger key\" did not pass");
  CHECK(r.count(audit::state::fail) == r.checks.size());
  CHECK_FALSE(r.passed());
}

TEST_CASE("draw audit: a missing or malformed ledger document fails, a pinned key that differs fails") {
  auto missing = audit::audit_draw("tatkal", {}, [](const std::string&) { return std::optional<std::string>(); });
  CHECK(missing.checks[0].detail == "api/v1/ledger: not found");
  auto garbled = audit::audit_draw("tatkal", {}, [](const std::string&) { return std::optional<std::string>("{"); });
  CHECK(garbled.checks[0].status == audit::state::fail);
  const std::string doc =
      R"({"origin":"o.example/ledger","vkey":"o.example/ledger+00000000+AA==","witnesses":[],"quorum":0})";
  audit::pins pins;
  pins.vkey = "another+00000000+AA==";
  auto pinned = audit::audit_draw("tatkal", pins, [&](const std::string&) { return std::optional<std::string>(doc); });
  CHECK(pinned.checks[0].detail ==
        "the published key o.example/ledger+00000000+AA== is not the pinned another+00000000+AA==");
  CHECK(audit::to_string(audit::state::absent) == "absent");
}
