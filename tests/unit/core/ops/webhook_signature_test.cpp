#include <catch2/catch.hpp>

#include "core/ops/webhook_signature.hpp"

using namespace foyer;

// The example of the Standard Webhooks specification and its reference libraries'
// tests (standard-webhooks/standard-webhooks, libraries/*/tests).
TEST_CASE("the signature is the Standard Webhooks known answer") {
  auto key = webhook_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  REQUIRE(key);
  CHECK(webhook_signature(*key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, R"({"test": 2432232314})") ==
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST_CASE("a secret is whsec_ and the base64 of a key of 24 to 64 bytes") {
  CHECK(webhook_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")->size() == 24);
  CHECK_FALSE(webhook_key("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));       // no prefix
  CHECK_FALSE(webhook_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS!"));  // not base64
  CHECK_FALSE(webhook_key("whsec_c2hvcnQ="));                         // 5 bytes
  CHECK_FALSE(webhook_key("whsec_"));
  CHECK(webhook_key("whsec_" + std::string(86, 'A') + "=="));         // 64 bytes
  CHECK_FALSE(webhook_key("whsec_" + std::string(88, 'A')));          // 66 bytes
}
