#include <catch2/catch.hpp>

#include <string_view>

#include <boost/beast/core/flat_buffer.hpp>

#include "http/server.hpp"

using namespace foyer::http;

// Found by the http_request fuzz target (tests/fuzz/corpus/http_request/final-chunk-a-byte-at-a-time):
// the end of a chunked body arriving a byte at a time tripped Beast 1.74's assertion in
// its chunk parser, which aborted every build with asserts on (src/boost_assert.cpp).
TEST_CASE("the end of a chunked body a byte at a time is parsed, or refused, never an abort") {
  for (std::string_view end : {"0\r\n\r\n", "0\r\n{1\r\n", "0\r\nX-Trailer: 1\r\n\r\n"}) {
    std::string wire = "POST /api/v1/rooms/demo/stock HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
    wire += end;
    server_limits limits;
    request_reader reader(limits);
    beast::flat_buffer buffer;
    beast::error_code ec;
    bool done = false;
    for (char byte : wire) {
      auto space = buffer.prepare(1);
      *static_cast<char*>(space.data()) = byte;
      buffer.commit(1);
      done = reader.parse(buffer, ec);
      if (done) break;
    }
    INFO(end);
    if (end == "0\r\n{1\r\n") {
      // A trailer that is not a field: more is needed, or it is refused.
      CHECK((!done || ec));
    } else {
      REQUIRE(done);
      CHECK_FALSE(ec);
      CHECK(reader.release().body().empty());
    }
  }
}
