// Percent-decoding, query and cookie parsing (http/request_fields.cpp) and the guard's
// same-site check. The input is a request target, and also the value of a Cookie header.
// Properties: a same-site path stays one when checked again, and percent-decoding it never
// yields something that reads as a path on another host (see same_site_path).
#include <cstdlib>

#include "fixtures.hpp"
#include "http/guard_handler.hpp"
#include "http/request_fields.hpp"

using namespace foyer;

namespace {

bool printable_without_backslash(std::string_view text) {
  for (char c : text) {
    if (c <= ' ' || c >= 0x7f || c == '\\') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto input = fuzz::text_of(data, size);
  if (auto value = http::query_param(input, "next")) {
    if (auto decoded = http::percent_decode(*value)) (void)http::same_site_path(*decoded);
  }
  (void)http::parse_u64(input);
  auto without = http::without_query_param(input, "foyer_pass");
  if (http::query_param(without, "foyer_pass")) std::abort();

  if (printable_without_backslash(input)) {
    http::request req;
    req.set(boost::beast::http::field::cookie, input);
    (void)http::cookie(req, "foyer_pass");
  }

  auto path = http::same_site_path(input);
  if (!path) return 0;
  if (http::same_site_path(*path) != path) std::abort();
  // A layer behind the guard that decodes the path once more must still see a path of
  // this site (text it would not send as is, with spaces or controls, aside).
  auto decoded = http::percent_decode(std::string_view(*path).substr(0, path->find_first_of("?#")));
  if (decoded && printable_without_backslash(*decoded) && !http::same_site_path(*decoded)) std::abort();
  return 0;
}
