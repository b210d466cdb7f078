// The guard's enter step (http/guard_handler.cpp): the input is the site URL nginx forwards
// in X-Original-URI, tried as it is and with a genuine pass appended as the waiting room
// appends it. Every answer is a redirect to the login URL or to a same-site path, or the
// 403 of a spent pass: never an open redirect.
#include <cstdlib>
#include <memory>

#include <foyer/clock.hpp>

#include "fixtures.hpp"
#include "http/guard_handler.hpp"
#include "http/request_fields.hpp"

using namespace foyer;
namespace bhttp = boost::beast::http;

namespace {

constexpr std::string_view login_url = "https://queue.example/r/spring-sale";

void enter(http::guard_handler& handler, const std::string& original_uri) {
  http::request req{bhttp::verb::get, "/enter", 11};
  req.set("X-Original-URI", original_uri);
  auto res = handler.handle(req);
  if (res.result() == bhttp::status::forbidden) return;
  if (res.result() != bhttp::status::found) std::abort();
  std::string wire;
  res.serialize(wire);
  auto at = wire.find("\r\nLocation: ");
  if (at == std::string::npos) std::abort();
  at += 12;
  std::string location = wire.substr(at, wire.find("\r\n", at) - at);
  if (http::same_site_path(location) == location) return;
  // Else the waiting room, maybe naming in `next` (last) a same-site page to come back to.
  if (auto next = location.find("next="); next != std::string::npos) {
    auto decoded = http::percent_decode(std::string_view(location).substr(next + 5));
    if (!decoded || http::same_site_path(*decoded) != decoded) std::abort();
    location.resize(next - 1);
  }
  if (location == login_url) return;
  // Else with the refusal's code: snake_case, at most 64 characters.
  std::string_view refused = location;
  if (!refused.starts_with(login_url) || !refused.substr(login_url.size()).starts_with("?foyer_refused=")) std::abort();
  refused.remove_prefix(login_url.size() + 15);
  if (refused.empty() || refused.size() > 64) std::abort();
  for (char c : refused) {
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string pass = pass::sign_pass(fuzz::pass_key(), fuzz::pass_claims("v1"));
  static pass::gate gate(std::make_shared<const pass_verifier>(
                             pass::keyring(fuzz::pass_key()).jwks_json(),
                             pass_expectations{std::string(fuzz::issuer), std::string(fuzz::room_id), 5}),
                         {});
  static manual_clock clock(fuzz::t0_ms + 10'000);
  static http::guard_handler handler(gate, clock, {std::string(login_url), /*secure_cookie=*/false}, nullptr,
                                     nullptr);
  std::string uri(fuzz::text_of(data, size));
  // nginx sends no field value with these in it.
  if (uri.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) return 0;
  enter(handler, uri);
  enter(handler, uri + (uri.find('?') == std::string::npos ? "?" : "&") + "foyer_pass=" + pass);
  return 0;
}
