#include <catch2/catch.hpp>

#include <initializer_list>
#include <string_view>

#include "http/static_files.hpp"

using namespace foyer::http;
namespace bhttp = boost::beast::http;

namespace {

bool takes_gzip(std::initializer_list<std::string_view> accept_encoding) {
  request req{bhttp::verb::get, "/room.html", 11};
  for (auto value : accept_encoding) req.insert(bhttp::field::accept_encoding, value);
  return accepts_gzip(req);
}

}  // namespace

TEST_CASE("gzip is sent only where Accept-Encoding gives it a weight above zero") {
  CHECK(takes_gzip({"gzip"}));
  CHECK(takes_gzip({"br, GZIP;q=0.5"}));
  CHECK(takes_gzip({"x-gzip"}));
  CHECK(takes_gzip({"*"}));
  CHECK(takes_gzip({"identity;q=0, *"}));
  CHECK(takes_gzip({"deflate", "gzip"}));
  CHECK(takes_gzip({"gzip;q=0.001"}));
  CHECK_FALSE(takes_gzip({}));
  CHECK_FALSE(takes_gzip({"identity"}));
  CHECK_FALSE(takes_gzip({"gzip;q=0"}));
  CHECK_FALSE(takes_gzip({"gzip ; q=0.000"}));
  CHECK_FALSE(takes_gzip({"gzip;Q=0."}));
  CHECK_FALSE(takes_gzip({"*;q=0"}));
  CHECK_FALSE(takes_gzip({"*, gzip;q=0"}));  // named, its own weight counts over "*"
  CHECK_FALSE(takes_gzip({"br, x-gzip-ish"}));
}
