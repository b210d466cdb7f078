#include <catch2/catch.hpp>

#include <string>

#include "http/handlers/desk_runner.hpp"

using namespace foyer;
using namespace foyer::http;

namespace {

request post() { return request{beast::http::verb::post, "/", 11}; }

}  // namespace

TEST_CASE("a refusal's problem body carries each of its parts that is set, in one order") {
  CHECK(refused(post(), desk_refusal{errc::closed, "Closed."}).body() ==
        R"({"type":"urn:foyer:problem:closed","title":"Room closed","status":410,"detail":"Closed.",)"
        R"("error":"closed","message":"Closed."})");
  auto seats = refused(post(), desk_refusal{errc::change_refused, "Held.", "inventory.total", seat_counts{2, 3}});
  CHECK(seats.result_int() == 409);
  CHECK_THAT(seats.body(), Catch::EndsWith(R"("message":"Held.","field":"inventory.total","held":2,"confirmed":3})"));
  auto waiting = refused(post(), desk_refusal{errc::visitors_waiting, "Waiting.", "", std::nullopt, 4});
  CHECK_THAT(waiting.body(), Catch::EndsWith(R"("message":"Waiting.","waiting":4})"));
  auto rose = refused(post(), desk_refusal{.code = errc::price_rose, .detail = "Rose.", .offer = pow::challenge{"t", 9, 7}});
  CHECK_THAT(rose.body(),
             Catch::EndsWith(R"("message":"Rose.","new_challenge":{"challenge":"t","difficulty_bits":9,"expires_at":7}})"));
}

TEST_CASE("the Idempotency-Key is 1 to 255 visible ASCII characters, and required") {
  auto req = post();
  CHECK(std::get<response>(idempotency_key(req)).body().find("idempotency_key_required") != std::string::npos);
  req.set("Idempotency-Key", "a b");
  CHECK(std::get<response>(idempotency_key(req)).result_int() == 400);
  req.set("Idempotency-Key", "k-1");
  CHECK(std::get<std::string>(idempotency_key(req)) == "k-1");
}
