#include <catch2/catch.hpp>

#include <memory>
#include <regex>
#include <vector>
#include <optional>
#include <string>

#include <fmt/core.h>
#include <foyer/clock.hpp>

#include "core/passes/pass.hpp"
#include "core/passes/pass_gate.hpp"
#include "http/guard_handler.hpp"

using namespace foyer;
using http::same_site_path;
using namespace std::string_literals;
namespace bhttp = boost::beast::http;

namespace {

constexpr std::int64_t t0 = 1'700'000'000;
constexpr std::int64_t lifetime = 600;
const std::string issuer = "https://queue.example";
const std::string room = "spring-sale";
const std::string login_url = "https://queue.example/r/spring-sale";

pass::signing_key test_key() {
  pass::seed_bytes seed;
  seed.fill(7);
  return pass::key_from_seed(seed, t0);
}

struct guard_fixture {
  pass::signing_key key = test_key();
  pass::gate gate{std::make_shared<const pass_verifier>(pass::keyring(key).jwks_json(),
                                                        pass_expectations{issuer, room, /*leeway_seconds=*/5}),
                  {}};
  manual_clock clock{(t0 + 10) * 1000};
  std::vector<std::string> log;
  http::guard_handler handler = handler_to(login_url);

  http::guard_handler handler_to(const std::string& waiting_room) {
    return {gate, clock, {waiting_room, /*secure_cookie=*/false}, nullptr,
            [this](std::string_view line) { log.emplace_back(line); }};
  }

  std::string pass_for(const std::string& visitor, const std::string& iss = issuer, std::int64_t exp = t0 + lifetime) const {
    return pass::sign_pass(key, {iss, room, visitor, t0, t0, exp, "jti-" + visitor});
  }

  http::response auth(const std::string& pass) {
    http::request req{bhttp::verb::get, "/auth", 11};
    req.set("X-Original-URI", "/shop/");
    req.set(bhttp::field::authorization, "Bearer " + pass);
    return handler.handle(req);
  }

  // The site URL with a pass, as the waiting room appends it: after a '?' or an '&'.
  std::string with_pass(const std::string& target) const {
    return target + (target.find('?') == std::string::npos ? "?" : "&") + "foyer_pass=" + pass_for("v1");
  }

  http::response enter(const std::string& original_uri) {
    http::request req{bhttp::verb::get, "/enter", 11};
    req.set("X-Original-URI", original_uri);
    return handler.handle(req);
  }
};

std::string wire(const http::response& res) {
  std::string out;
  res.serialize(out);
  return out;
}

// The value of field `name` in the answer as written, if it has one.
std::optional<std::string> field(const http::response& res, const std::string& name) {
  std::string wire = ::wire(res);
  auto at = wire.find("\r\n" + name + ": ");
  if (at == std::string::npos) return std::nullopt;
  at += name.size() + 4;
  return wire.substr(at, wire.find("\r\n", at) - at);
}

// Shapes of a site URL that a browser, or a layer behind the guard decoding the path, would
// read as another host or as no URL of this site at all.
const std::string off_site[] = {
    "//evil.example/x",
    "/\\evil.example/x",
    "/%2F%2Fevil.example/x",
    "/%2f%2fevil.example/x",
    "/%5Cevil.example/x",
    "/%5cevil.example/x",
    "/%2f%5cevil.example/x",
    "/%252F%252Fevil.example/x",  // encoded twice
    "/%25252F%25252Fevil.example/x",
    "/%09/evil.example/x",  // URL parsers drop tabs and newlines
    "/%0d%0a/evil.example/x",
    "/%0A%5Cevil.example/x",
    "/.//evil.example/x",  // dot segments go when the path is normalised
    "/../..//evil.example/x",
    "/%2e%2e%2f%2fevil.example/x",
    "/.%2e/%5Cevil.example/x",
    "https://evil.example/",
    "http:evil.example",
    "http:/evil.example",
    "javascript:alert(1)",
    "evil.example/x",
    "",
    "\t//evil.example/x",
    "/\t/evil.example/x",
    "/\n/evil.example/x",
    "/\r\n/evil.example/x",
    "/shop/\r\nSet-Cookie: x=1",
    "/shop/\0x"s,
    "/shop/\x7f",
    "/shop/ x",
    "/shop/\\..\\x",
    "/shop/x?q=\\",
    "/caf\xc3\xa9",
    "/" + std::string(2048, 'a'),
    "/%25252541",  // nested four times over
};

const std::string same_site[] = {
    "/",
    "/shop/",
    "/shop/item?color=red&size=9",
    "/caf%C3%A9",
    "/100%25",
    "/100%",
    "/a%2541",
    "/%252541",  // nested three times over
    "/shop/%2F%2Fx",
    "/shop/%5Cx",
    "/%7Euser/",
    "/shop?back=//evil.example",
    "/shop?back=%2F%2Fevil.example",
    "/+/x",
    "/./shop/",
    "/../shop/",
    "/.well-known/x",
    "/..x//y",
    "/" + std::string(2047, 'a'),
};

}  // namespace

TEST_CASE("same_site_path lets through paths of this site, escapes and queries included") {
  for (const std::string& ok : same_site) {
    CAPTURE(ok);
    CHECK(same_site_path(ok) == ok);
  }
}

TEST_CASE("same_site_path refuses what names another host, however it is spelt") {
  for (const std::string& bad : off_site) {
    CAPTURE(bad);
    CHECK_FALSE(same_site_path(bad));
  }
}

TEST_CASE_METHOD(guard_fixture, "entering from a site URL of another host goes to the front page, with the cookie") {
  auto pass = pass_for("v1");
  for (const std::string& bad : off_site) {
    CAPTURE(bad);
    // The whole answer: no line more, none split.
    CHECK(wire(enter(with_pass(bad))) ==
          "HTTP/1.1 302 Found\r\nCache-Control: no-store\r\nLocation: /\r\nSet-Cookie: foyer_pass=" + pass +
              "; Path=/; Max-Age=590; HttpOnly; SameSite=Lax\r\nContent-Length: 0\r\n\r\n");
  }
}

TEST_CASE_METHOD(guard_fixture, "entering with a next of another host goes to the site URL, or else the front page") {
  auto pass = pass_for("v1");
  auto encoded = [](const std::string& text) {
    std::string out;
    for (unsigned char c : text) out += fmt::format("%{:02X}", c);
    return out;
  };
  for (const std::string& bad : off_site) {
    CAPTURE(bad);
    auto next = encoded(bad);
    std::string site = "/shop/?next=" + next;
    // The long one makes the site URL too long in turn.
    CHECK(field(enter(site + "&foyer_pass=" + pass), "Location") == (site.size() <= 2048 ? site : "/"));
    CHECK(field(enter("//evil.example/?next=" + next + "&foyer_pass=" + pass), "Location") == "/");
  }
  // A same-site next wins over any site URL.
  CHECK(field(enter("//evil.example/?foyer_pass=" + pass + "&next=%2Fshop%2F"), "Location") == "/shop/");
}

TEST_CASE_METHOD(guard_fixture, "entering from a same-site URL goes back to it without the pass") {
  auto pass = pass_for("v1");
  for (const std::string& ok : same_site) {
    CAPTURE(ok);
    CHECK(field(enter(with_pass(ok)), "Location") == ok);
  }
  CHECK(field(enter("/shop/item?color=red&foyer_pass=" + pass + "&size=9"), "Location") ==
        "/shop/item?color=red&size=9");
  CHECK(field(enter("/shop/?foyer_pass=" + pass + "&next=%2Fshop%2Fcheckout%3Fstep%3D2"), "Location") ==
        "/shop/checkout?step=2");

  // Without X-Original-URI the request's own target is the site URL, `next` checked alike.
  http::request req{bhttp::verb::get, "/enter?foyer_pass=" + pass + "&next=%2F%2Fevil.example", 11};
  CHECK(field(handler.handle(req), "Location") == "/enter?next=%2F%2Fevil.example");
  req.target("/enter?foyer_pass=" + pass + "&next=%2Fshop%2F");
  CHECK(field(handler.handle(req), "Location") == "/shop/");
}

TEST_CASE_METHOD(guard_fixture, "without a valid pass no shape of site URL leads anywhere but the waiting room") {
  for (const std::string& bad : off_site) {
    CAPTURE(bad);
    auto res = enter(bad + "?foyer_pass=garbage");
    // The reason when the pass is found as a parameter ("/x?q=\\?foyer_pass=" has none).
    auto location = field(res, "Location");
    CHECK((location == login_url + "?foyer_refused=malformed" || location == login_url));
    CHECK_FALSE(field(res, "Set-Cookie"));
  }
}

TEST_CASE_METHOD(guard_fixture, "a pass whose visitor id cannot be a header is refused, not sent upstream") {
  http::request req{bhttp::verb::get, "/auth", 11};
  req.set("X-Original-URI", "/shop/");
  req.set(bhttp::field::authorization, "Bearer " + pass_for("v1\r\nX-Admin: 1"));
  auto res = handler.handle(req);
  CHECK(res.result() == bhttp::status::unauthorized);
  CHECK(field(res, "X-Foyer-Error") == "invalid_claims");
  CHECK_FALSE(field(res, "X-Foyer-Visitor"));

  req.set(bhttp::field::authorization, "Bearer " + pass_for("v1"));
  auto ok = handler.handle(req);
  CHECK(ok.result() == bhttp::status::no_content);
  CHECK(field(ok, "X-Foyer-Visitor") == "v1");
}

TEST_CASE_METHOD(guard_fixture, "each foyer_pass cookie is tried in order, up to four, a stale one first included") {
  auto auth = [&](const std::string& cookies) {
    http::request req{bhttp::verb::get, "/auth", 11};
    req.set("X-Original-URI", "/shop/");
    req.set(bhttp::field::cookie, cookies);
    return handler.handle(req);
  };
  auto good = pass_for("v1");
  for (const auto& cookies : {"foyer_pass=stale; foyer_pass=" + good, "a=1; foyer_pass=; foyer_pass=x; foyer_pass=" + good,
                              "foyer_pass=" + good + "; foyer_pass=stale"}) {
    CAPTURE(cookies);
    auto res = auth(cookies);
    CHECK(res.result() == bhttp::status::no_content);
    CHECK(field(res, "X-Foyer-Visitor") == "v1");
  }
  // Only the first refusal is told, and a fifth candidate is never tried.
  CHECK(field(auth("foyer_pass=stale"), "X-Foyer-Error") == "malformed");
  CHECK(field(auth("foyer_pass=a; foyer_pass=b; foyer_pass=c; foyer_pass=d; foyer_pass=" + good), "X-Foyer-Error") ==
        "malformed");
}

TEST_CASE_METHOD(guard_fixture, "a refused pass sends the visitor to the waiting room with the reason; no pass, without") {
  CHECK(field(enter("/shop/"), "Location") == login_url + "?next=%2Fshop%2F");
  CHECK(field(enter("/shop/?foyer_pass=" + pass_for("v1", "foyer")), "Location") ==
        login_url + "?foyer_refused=wrong_issuer&next=%2Fshop%2F");
  CHECK(field(enter("/shop/?foyer_pass=%zz"), "Location") == login_url + "?foyer_refused=malformed&next=%2Fshop%2F");

  // A refused cookie, as /auth left it to the enter step.
  http::request req{bhttp::verb::get, "/enter", 11};
  req.set("X-Original-URI", "/shop/");
  req.set(bhttp::field::cookie, "foyer_pass=" + pass_for("v1", issuer, t0 + 5));
  CHECK(field(handler.handle(req), "Location") == login_url + "?foyer_refused=expired&next=%2Fshop%2F");

  // The reason joins a query the waiting room's URL has, before any fragment.
  for (const auto& [waiting_room, expected] : {
           std::pair{"https://q.example/r/s?lang=en"s, "https://q.example/r/s?lang=en&foyer_refused=wrong_issuer&next=%2Fshop%2F"s},
           std::pair{"https://q.example/r/s?"s, "https://q.example/r/s?foyer_refused=wrong_issuer&next=%2Fshop%2F"s},
           std::pair{"https://q.example/r/s?a=1&"s, "https://q.example/r/s?a=1&foyer_refused=wrong_issuer&next=%2Fshop%2F"s},
           std::pair{"/r/s#top"s, "/r/s?foyer_refused=wrong_issuer&next=%2Fshop%2F#top"s},
       }) {
    auto other = handler_to(waiting_room);
    http::request to_other{bhttp::verb::get, "/enter", 11};
    to_other.set("X-Original-URI", "/shop/?foyer_pass=" + pass_for("v1", "foyer"));
    CHECK(field(other.handle(to_other), "Location") == expected);
  }
}

TEST_CASE_METHOD(guard_fixture, "the waiting room learns the page asked for in next: a same-site path only") {
  CHECK(field(enter("/shop/item?color=red&size=9"), "Location") == login_url + "?next=%2Fshop%2Fitem%3Fcolor%3Dred%26size%3D9");
  // A pass in the URL never goes into next; a same-site next of the URL does, as it is.
  CHECK(field(enter("/shop/?a=1&foyer_pass=%zz&next=%2Fcart"), "Location") == login_url + "?foyer_refused=malformed&next=%2Fcart");
  for (const std::string& bad : off_site) {
    CAPTURE(bad);
    CHECK(field(enter(bad), "Location") == login_url);
  }
  CHECK(field(enter("/shop/" + std::string(2048, 'a')), "Location") == login_url);
}

TEST_CASE_METHOD(guard_fixture, "every refusal code fits the waiting page's reason: snake_case, at most 64 characters") {
  const std::regex reason("[a-z0-9_]{1,64}");
  for (const auto& pass : {"garbage"s, pass_for("v1", "foyer"), pass_for("v1", issuer, t0 + 5), pass_for("v1") + "x"}) {
    auto location = field(enter("/shop/?foyer_pass=" + pass), "Location").value_or("");
    auto at = location.find("foyer_refused=");
    REQUIRE(at != std::string::npos);
    CHECK(std::regex_match(location.substr(at + 14, location.find('&', at) - at - 14), reason));
  }
}

TEST_CASE_METHOD(guard_fixture, "refusals are logged with their reason, one line per reason every 10 s") {
  auto foreign = pass_for("v1", "foyer");
  auto expired = pass_for("v2", issuer, t0 + 5);
  const std::string wrong_issuer_line =
      "foyer guard: refused a pass (wrong_issuer): its iss is not 'https://queue.example', the issuer this guard expects";

  CHECK(auth(foreign).result() == bhttp::status::unauthorized);
  CHECK(log == std::vector<std::string>{wrong_issuer_line});
  for (int i = 0; i < 5; ++i) auth(foreign);
  enter("/shop/?foyer_pass=" + foreign);  // the pass in the URL is checked here, not at /auth
  auth(expired);
  CHECK(log == std::vector<std::string>{wrong_issuer_line, "foyer guard: refused a pass (expired)"});

  clock.advance_ms(9'999);
  auth(foreign);
  CHECK(log.size() == 2);
  clock.advance_ms(1);
  auth(foreign);
  CHECK(log.back() == wrong_issuer_line + " (7 more since the last such line)");

  // No pass, a pass in the URL as /auth sees it, and a valid pass are no refusals to log.
  log.clear();
  clock.advance_ms(60'000);
  http::request none{bhttp::verb::get, "/auth", 11};
  none.set("X-Original-URI", "/shop/?foyer_pass=" + foreign);
  CHECK(field(handler.handle(none), "X-Foyer-Error") == "pass_in_url");
  none.set("X-Original-URI", "/shop/");
  CHECK(field(handler.handle(none), "X-Foyer-Error") == "no_pass");
  CHECK(auth(pass_for("v1")).result() == bhttp::status::no_content);
  enter("/shop/");
  CHECK(log.empty());
}
