// The session's request parse path (src/http/server.cpp): Beast's request_parser with the
// server's limits, fed from one buffer as bytes arrive, pipelined requests parsed one after
// another while the connection stays alive. The first input byte sets how many bytes
// arrive per read, so that requests are also cut at every odd place. Each request parsed
// then goes through the credential readers every handler uses.
#include <algorithm>
#include <cstdlib>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>

#include "fixtures.hpp"
#include "http/request_fields.hpp"

using namespace foyer;
namespace bhttp = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const http::server_limits limits;
  const std::size_t chunk = data[0] + 1u;
  auto wire = fuzz::text_of(data + 1, size - 1);
  boost::beast::flat_buffer buffer(http::read_buffer_limit(limits));
  std::size_t arrived = 0;
  for (;;) {
    http::request_reader reader(limits);
    boost::beast::error_code ec;
    for (;;) {
      if (reader.parse(buffer, ec)) break;
      if (arrived == wire.size()) return 0;  // the peer is done: the session would close
      std::size_t n = std::min(chunk, wire.size() - arrived);
      auto space = buffer.prepare(n);
      std::copy_n(wire.data() + arrived, n, static_cast<char*>(space.data()));
      buffer.commit(n);
      arrived += n;
    }
    if (ec) return 0;  // answered 4xx and closed
    http::request req = reader.release();
    if (req.body().size() > limits.body_limit) std::abort();
    (void)http::cookie(req, "foyer_ticket");
    (void)http::bearer(req);
    (void)http::query_param(req.target(), "index");
    if (!req.keep_alive()) return 0;
  }
}
