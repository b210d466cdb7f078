// `foyer init`'s generation (app/init_cli.cpp): the files it writes are what the server,
// nginx and the guard read, and every answer that can't make a working room is refused
// naming its flag.
#include <catch2/catch.hpp>

#include "app/config.hpp"
#include "app/init_cli.hpp"

using namespace foyer;

namespace {

constexpr std::int64_t now_ms = 1'800'000'000'000;  // 2027-01-15T08:00:00Z

app::init_answers sale() {
  app::init_answers a;
  a.room = "spring-sale";
  a.name = "Spring \"sale\"";
  a.shop_url = "https://shop.example.com/sale/";
  a.foyer_url = "https://queue.example.com";
  a.rate = "120";
  a.data_dir = "/var/lib/foyer";
  return a;
}

const app::init_secrets secrets{"admin-token-0123456789abcdef", "site-token-0123456789abcdef",
                                "hint-secret-0123456789abcdef"};

std::string refusal(const app::init_answers& a) {
  try {
    app::plan_init(a, secrets, now_ms);
  } catch (const app::init_error& e) {
    return e.what();
  }
  FAIL("accepted");
  return {};
}

}  // namespace

TEST_CASE("init's config is one room in front of the shop, with the tokens and the issuer") {
  auto out = app::plan_init(sale(), secrets, now_ms);
  auto c = app::parse_config(out.config_toml, "foyer.toml");
  CHECK(c.api.issuer == "https://queue.example.com");
  CHECK(out.issuer == c.api.issuer);
  REQUIRE(c.public_url);
  CHECK(c.public_url->origin() == "https://queue.example.com");
  CHECK(c.api.admin_token == secrets.admin_token);
  CHECK(c.api.site_token == secrets.site_token);
  CHECK(c.api.account_hint_secret == secrets.account_hint_secret);
  CHECK(c.api.secure_cookies);
  CHECK(c.api.trusted_proxies.size() == 2);
  CHECK(c.data_dir == "/var/lib/foyer");
  REQUIRE(c.rooms.size() == 1);
  const auto& room = c.rooms.front();
  CHECK(room.id == "spring-sale");
  CHECK(room.name == "Spring \"sale\"");
  CHECK(room.rate_per_minute == 120);
  CHECK(room.target_url == "https://shop.example.com/sale/");
  CHECK_FALSE(room.opens_at_ms);
  CHECK_FALSE(room.inventory);
}

TEST_CASE("init's opening and seats reach the room") {
  auto a = sale();
  a.opens_at = "2027-01-15T10:00:00+01:00";
  a.seats = "250";
  auto room = app::parse_config(app::plan_init(a, secrets, now_ms).config_toml, "foyer.toml").rooms.front();
  CHECK(room.opens_at_ms == now_ms + 3'600'000);
  REQUIRE(room.inventory);
  CHECK(room.inventory->total == 250);
}

TEST_CASE("init's nginx file and guard command agree with the config") {
  auto out = app::plan_init(sale(), secrets, now_ms);
  CHECK(out.guard_command ==
        "foyer guard --jwks http://127.0.0.1:8080/.well-known/jwks.json --listen 127.0.0.1:8081 --room spring-sale "
        "--issuer https://queue.example.com --login-url https://queue.example.com/r/spring-sale --secure-cookie");
  const auto& conf = out.nginx_conf;
  CHECK_THAT(conf, Catch::Contains("server_name queue.example.com;"));
  CHECK_THAT(conf, Catch::Contains("server_name shop.example.com;"));
  CHECK_THAT(conf, Catch::Contains("listen 443 ssl;"));
  CHECK_THAT(conf, Catch::Contains("listen 80;\n    server_name shop.example.com;\n    return 301 https://"));
  CHECK_THAT(conf, Catch::Contains("upstream foyer_spring-sale {\n    server 127.0.0.1:8080;"));
  CHECK_THAT(conf, Catch::Contains("upstream foyer_guard_spring-sale {\n    server 127.0.0.1:8081;"));
  CHECK_THAT(conf, Catch::Contains("location /sale/ {\n        auth_request /.foyer/auth;"));
  CHECK_THAT(conf, Catch::Contains("location / {\n        proxy_pass http://foyer_shop_spring-sale;"));
  CHECK_THAT(conf, Catch::Contains("location ^~ /metrics {\n        allow 127.0.0.1;\n        allow ::1;\n        deny all;"));
  // A guarded root is the whole shop: one location / only.
  auto whole = sale();
  whole.shop_url = "http://shop.example.com:8000/";
  auto plain = app::plan_init(whole, secrets, now_ms);
  CHECK_THAT(plain.nginx_conf, !Catch::Contains("proxy_pass http://foyer_shop_spring-sale;\n    }\n\n    location / {"));
  CHECK_THAT(plain.nginx_conf, Catch::Contains("listen 8000;"));
  CHECK_THAT(plain.nginx_conf, !Catch::Contains("server_name shop.example.com;\n    return 301"));
  CHECK_THAT(plain.guard_command, !Catch::Contains("--secure-cookie"));
}

TEST_CASE("init refuses what can't make a working room, naming the flag") {
  auto with = [](auto change) {
    auto a = sale();
    change(a);
    return refusal(a);
  };
  CHECK_THAT(with([](auto& a) { a.room = "Spring Sale"; }), Catch::StartsWith("--room: must be"));
  CHECK_THAT(with([](auto& a) { a.rate = "fast"; }), Catch::StartsWith("--rate: 'fast' is not a whole number"));
  CHECK_THAT(with([](auto& a) { a.rate = "0"; }), Catch::StartsWith("--rate:"));
  CHECK_THAT(with([](auto& a) { a.seats = "-3"; }), Catch::StartsWith("--seats:"));
  CHECK_THAT(with([](auto& a) { a.shop_url = "shop.example.com/sale"; }), Catch::StartsWith("--shop-url:"));
  CHECK_THAT(with([](auto& a) { a.opens_at = "tomorrow"; }), Catch::StartsWith("--opens-at: must be an RFC 3339"));
  CHECK_THAT(with([](auto& a) { a.opens_at = "2027-01-15T08:00:30Z"; }),
             Catch::StartsWith("--opens-at:") && Catch::Contains("less than a minute away"));
  CHECK_THAT(with([](auto& a) { a.foyer_url = "https://shop.example.com"; }),
             Catch::StartsWith("--foyer-url: needs its own host name"));
  CHECK_THAT(with([](auto& a) { a.foyer_url = "https://example.com/queue"; }),
             Catch::StartsWith("--foyer-url: must be the root"));
  CHECK_THAT(with([](auto& a) { a.listen = "8080"; }), Catch::StartsWith("--listen:"));
}
