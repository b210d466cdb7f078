#include <catch2/catch.hpp>

#include <string>

#include "core/gate/account_hint.hpp"

using namespace foyer;

namespace {

const std::string secret = "site-and-foyer-share-this";

std::string hint_for(std::string_view room, std::string_view account) {
  return to_hex(account_hint(as_bytes(secret), room, account));
}

}  // namespace

TEST_CASE("the site's hint for an account opens one digest per account and room") {
  auto a = verify_account_hint(as_bytes(secret), "shop", "alice", hint_for("shop", "alice"));
  REQUIRE(a);
  CHECK(a == verify_account_hint(as_bytes(secret), "shop", "alice", hint_for("shop", "alice")));
  auto other_room = verify_account_hint(as_bytes(secret), "sale", "alice", hint_for("sale", "alice"));
  REQUIRE(other_room);
  CHECK(*other_room != *a);
  // The digest is not the hint: the stored id reveals nothing the site signed.
  CHECK(to_hex(*a) != hint_for("shop", "alice").substr(0, 32));
}

TEST_CASE("a hint of another account, room or secret, or one that is not hex, is refused") {
  CHECK_FALSE(verify_account_hint(as_bytes(secret), "shop", "bob", hint_for("shop", "alice")));
  CHECK_FALSE(verify_account_hint(as_bytes(secret), "sale", "alice", hint_for("shop", "alice")));
  CHECK_FALSE(verify_account_hint(as_bytes(std::string("another-secret-entirely")), "shop", "alice",
                                  hint_for("shop", "alice")));
  CHECK_FALSE(verify_account_hint(as_bytes(secret), "shop", "alice", "not hex"));
  CHECK_FALSE(verify_account_hint(as_bytes(secret), "shop", "alice", hint_for("shop", "alice").substr(2)));
}

TEST_CASE("an empty account or one over the limit is refused even with its hint") {
  CHECK_FALSE(verify_account_hint(as_bytes(secret), "shop", "", hint_for("shop", "")));
  std::string longest(max_account_size, 'a');
  CHECK(verify_account_hint(as_bytes(secret), "shop", longest, hint_for("shop", longest)));
  std::string too_long(max_account_size + 1, 'a');
  CHECK_FALSE(verify_account_hint(as_bytes(secret), "shop", too_long, hint_for("shop", too_long)));
}
