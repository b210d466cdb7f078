// The JSON bodies the API takes, read by simdjson as the handlers read them: the first
// byte picks the reader (join, the site's stock, done and signals reports, the admin's room
// settings), the rest is the body. Any bytes are read or refused, never a crash.
#include <simdjson.h>

#include "fixtures.hpp"
#include "http/handlers/admin.hpp"
#include "http/handlers/site.hpp"
#include "http/handlers/visitor.hpp"

using namespace foyer;
using namespace foyer::http::handlers;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static simdjson::ondemand::parser parser;
  if (size == 0) return 0;
  simdjson::padded_string body(fuzz::text_of(data + 1, size - 1));
  switch (data[0] % 5) {
    case 0: (void)parse_join_body(parser, body); break;
    case 1: (void)parse_stock(parser, body); break;
    case 2: (void)parse_done(parser, body); break;
    case 3: (void)parse_signals(parser, body); break;
    default: {
      room_config config;
      config.id = std::string(fuzz::room_id);
      config.target_url = "/welcome";
      (void)apply_settings(parser, body, config);
    }
  }
  return 0;
}
