#include "http/guard_handler.hpp"

#include <boost/beast/http/field.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <span>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/base/json.hpp"
#include "http/request_fields.hpp"

namespace foyer::http {
namespace {

namespace bhttp = beast::http;

constexpr std::string_view pass_cookie = "foyer_pass";
constexpr std::string_view pass_param = "foyer_pass";
constexpr std::string_view next_param = "next";
constexpr std::size_t max_next_size = 2048;
// Escapes nested deeper are refused rather than decoded without end: nothing legitimate
// nests them so.
constexpr int max_decode_rounds = 3;
// Where an admitted visitor goes when the URL they came with is not a same-site path.
constexpr std::string_view default_destination = "/";
// The query parameter of the waiting room's URL that names the refusal (web/js/bounce.js).
constexpr std::string_view refusal_param = "foyer_refused";
// A site refusing every visitor logs a line per code this often, not one per request.
constexpr std::int64_t refusal_log_interval_ms = 10'000;

response empty_response(const request& req, bhttp::status status) {
  response res{status, req.version()};
  res.set(bhttp::field::cache_control, "no-store");
  res.keep_alive(req.keep_alive());
  return res;
}

// The site URL the visitor asked for: nginx names it in X-Original-URI.
std::string_view site_target(const request& req) {
  auto it = req.find("X-Original-URI");
  return it == req.end() ? req.target() : it->value();
}

// A browser sends every foyer_pass cookie whose path and domain match, a stale one left by
// another path or subdomain included: each is a candidate, then the bearer token. Bounded,
// since each may cost a signature check.
constexpr std::size_t max_pass_cookies = 4;

std::vector<std::string_view> presented_passes(const request& req) {
  auto out = cookies(req, pass_cookie, max_pass_cookies);
  if (auto token = bearer(req)) out.push_back(*token);
  return out;
}

// One round of percent-decoding as the most lenient decoder does it: a '%' without two hex
// digits after it stays as it is. '+' stays too: a space it might become is no slash.
std::string decode_escapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::uint8_t byte = 0;
    if (text[i] == '%' && from_hex_into(text.substr(i + 1, 2), std::span(&byte, 1))) {
      out.push_back(static_cast<char>(byte));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// Whether a path that starts with '/' names a host as URL parsers read it: they drop tabs
// and newlines, take '\' for '/', and normalising the path drops dot segments, which may
// stand between the first slash and a second.
bool names_host(std::string_view path) {
  std::string read;
  for (char c : path) {
    if (c != '\t' && c != '\n' && c != '\r') read.push_back(c == '\\' ? '/' : c);
  }
  std::string_view rest = read;
  while (rest.starts_with("/./") || rest.starts_with("/../")) rest.remove_prefix(rest[2] == '/' ? 2 : 3);
  return rest.starts_with("//");
}

// `url` with `param`=`value` added to its query, before any fragment.
std::string with_query_param(std::string_view url, std::string_view param, std::string_view value) {
  auto fragment = std::min(url.find('#'), url.size());
  auto base = url.substr(0, fragment);
  std::string_view separator = "&";
  if (base.find('?') == std::string_view::npos) {
    separator = "?";
  } else if (base.ends_with('?') || base.ends_with('&')) {
    separator = "";
  }
  return fmt::format("{}{}{}={}{}", base, separator, param, value, url.substr(fragment));
}

// `text` as a query value: every byte but the unreserved ones (RFC 3986) escaped, as the
// connectors do it, so that their redirects match the guard's byte for byte.
std::string query_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

// Where the visitor asking for `target` wants to go: its `next` if that is a same-site
// path, else the target itself without any pass in it.
std::optional<std::string> wanted_destination(std::string_view target) {
  auto next = query_param(target, next_param);
  auto decoded_next = next ? percent_decode(*next) : std::nullopt;
  auto destination = decoded_next ? same_site_path(*decoded_next) : std::nullopt;
  return destination ? destination : same_site_path(without_query_param(target, pass_param));
}

// What an operator can do about the common refusals that come from a guard set up wrong.
std::string refusal_hint(std::string_view code, const pass_expectations& expect) {
  if (code == "wrong_issuer") return fmt::format(": its iss is not '{}', the issuer this guard expects", expect.issuer);
  if (code == "wrong_audience") return fmt::format(": its aud is not '{}', this guard's --room", expect.audience);
  if (code == "unknown_kid") return ": signed by a key the guard does not have";
  return "";
}

}  // namespace

std::optional<std::string> same_site_path(std::string_view target) {
  if (target.empty() || target.size() > max_next_size || target.front() != '/') return std::nullopt;
  for (char c : target) {
    if (c <= ' ' || c >= 0x7f || c == '\\') return std::nullopt;
  }
  if (names_host(target)) return std::nullopt;
  // The browser reads the escapes as they are, but the site behind may decode the path and
  // redirect to it in turn (the query is its own business).
  std::string path(target.substr(0, target.find_first_of("?#")));
  for (int round = 1; path.find('%') != std::string::npos; ++round) {
    std::string decoded = decode_escapes(path);
    if (decoded == path) break;
    if (round > max_decode_rounds || names_host(decoded)) return std::nullopt;
    path = std::move(decoded);
  }
  return std::string(target);
}

guard_handler::guard_handler(pass::gate& gate, const clock& clock, guard_settings settings,
                             std::function<void()> on_unknown_kid, std::function<void(std::string_view)> log)
    : gate_(gate), clock_(clock), settings_(std::move(settings)), on_unknown_kid_(std::move(on_unknown_kid)),
      log_(std::move(log)), refusal_lines_(refusal_log_interval_ms) {}

response guard_handler::handle(const request& req) {
  std::string_view target = req.target();
  std::string_view path = target.substr(0, target.find('?'));
  if (path == "/auth") return auth(req);
  if (path == "/enter") return enter(req);
  if (path == "/healthz") {
    if (req.method() == bhttp::verb::get || req.method() == bhttp::verb::head) return health(req);
    auto res = json_error(405, "method_not_allowed", "Use GET for this path.", req.version(), req.keep_alive());
    res.set(bhttp::field::allow, "GET");
    return res;
  }
  return json_error(404, "not_found", "The guard answers /auth, /enter and /healthz.", req.version(), req.keep_alive());
}

std::optional<pass::gate_result> guard_handler::check_presented(const request& req, bool spend) {
  std::optional<pass::gate_result> first_refusal;
  for (auto token : presented_passes(req)) {
    auto result = check(token, spend);
    if (result.ok) return result;
    if (!first_refusal) first_refusal = std::move(result);
  }
  return first_refusal;
}

pass::gate_result guard_handler::check(std::string_view token, bool spend) {
  auto result = gate_.check(token, clock_.now_ms() / 1000, spend);
  ++checks_;
  if (!result.cached) ++signature_checks_;
  if (result.error_code == "unknown_kid" && on_unknown_kid_) on_unknown_kid_();
  return result;
}

response guard_handler::auth(const request& req) {
  auto refuse = [&req](std::string_view code) {
    auto res = empty_response(req, bhttp::status::unauthorized);
    res.set("X-Foyer-Error", code);
    return res;
  };
  if (query_param(site_target(req), pass_param)) return refuse("pass_in_url");
  auto result = check_presented(req, /*spend=*/true);
  if (!result) return refuse("no_pass");
  if (!result->ok) {
    log_refusal(result->error_code);
    return refuse(result->error_code);
  }
  // The upstream gets the sub as a header: one that cannot be a field value is refused, not
  // sent (the signer is trusted, but the header must not split).
  if (!is_field_value(result->subject)) {
    log_refusal("invalid_claims");
    return refuse("invalid_claims");
  }
  auto res = empty_response(req, bhttp::status::no_content);
  res.set("X-Foyer-Visitor", result->subject);
  res.set("X-Foyer-Pass-Expires", std::to_string(result->exp));
  return res;
}

response guard_handler::redirect(const request& req, const std::string& location) const {
  auto res = empty_response(req, bhttp::status::found);
  res.set(bhttp::field::location, location);
  return res;
}

// The waiting room names the page the visitor asked for in `next`, so that the visitor comes
// back to it once admitted (web/js/room.js).
response guard_handler::to_waiting_room(const request& req, std::string_view code) const {
  auto location = code.empty() ? settings_.login_url : with_query_param(settings_.login_url, refusal_param, code);
  if (auto wanted = wanted_destination(site_target(req))) location = with_query_param(location, next_param, query_escape(*wanted));
  return redirect(req, location);
}

void guard_handler::log_refusal(std::string_view code) {
  auto held = refusal_lines_.occur(code, clock_.steady_ms());
  if (!held || !log_) return;
  log_(fmt::format("foyer guard: refused a pass ({}){}{}", code, refusal_hint(code, gate_.verifier().expectations()),
                   *held == 0 ? "" : fmt::format(" ({} more since the last such line)", *held)));
}

response guard_handler::enter(const request& req) {
  std::string_view target = site_target(req);
  auto spent = [&req] {
    auto res = empty_response(req, bhttp::status::forbidden);
    res.set(bhttp::field::content_type, "text/plain; charset=utf-8");
    res.body() = "This pass has already been used. Each pass opens this page once.\n";
    return res;
  };

  auto raw = query_param(target, pass_param);
  if (!raw) {
    // Refused by /auth (which logged why) without a pass in the URL: missing, expired, of
    // another room, or spent. Only the last is final; the others go (back) to the waiting room.
    auto presented = check_presented(req, /*spend=*/false);
    if (presented && presented->error_code == "spent") return spent();
    return to_waiting_room(req, presented ? presented->error_code : "");
  }
  auto from_url = percent_decode(*raw);
  pass::gate_result result;
  if (from_url) {
    result = check(*from_url, /*spend=*/false);
  } else {
    result.error_code = "malformed";
  }
  if (!result.ok) log_refusal(result.error_code);
  if (result.error_code == "spent") return spent();
  if (!result.ok) return to_waiting_room(req, result.error_code);

  // Failing `next` and the site URL, the front page rather than an error: the visitor holds
  // a valid pass for this site and most likely followed a link someone else made. Every
  // destination is on this site, so the cookie is set whichever it is.
  auto res = redirect(req, wanted_destination(target).value_or(std::string(default_destination)));
  // A verified pass is three base64url segments (the verifier decodes them strictly): a
  // cookie value as it is.
  std::int64_t max_age = std::max<std::int64_t>(1, result.exp - clock_.now_ms() / 1000);
  res.set(bhttp::field::set_cookie, fmt::format("{}={}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax{}", pass_cookie,
                                                *from_url, max_age, settings_.secure_cookie ? "; Secure" : ""));
  return res;
}

response guard_handler::health(const request& req) const {
  std::string kids = "[";
  for (const auto& kid : gate_.verifier().key_ids()) {
    if (kids.size() > 1) kids.push_back(',');
    kids += json_quote(kid);
  }
  kids.push_back(']');
  auto res = response::json(bhttp::status::ok, req.version(),
                            json_object()
                                .str("status", "ok")
                                .raw("keys", kids)
                                .num("cached", std::uint64_t{gate_.cached_passes()})
                                .num("spent", std::uint64_t{gate_.spent_ids()})
                                .num("checks", checks_)
                                .num("signature_checks", signature_checks_)
                                .done());
  res.keep_alive(req.keep_alive());
  return res;
}

}  // namespace foyer::http
