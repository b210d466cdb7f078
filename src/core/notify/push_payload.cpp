#include "core/notify/push_payload.hpp"

#include <fmt/core.h>

#include "core/base/json.hpp"

namespace foyer::notify {

std::string push_payload(const notice& n, std::string_view room_name, const public_origin& at) {
  json_object body;
  body.str("kind", to_string(n.kind)).str("room", n.room);
  if (n.kind == notice_kind::soon) {
    body.str("title", "Your turn is near")
        .str("body", fmt::format("{}: your turn in about {} minute{}.", room_name, n.minutes, n.minutes == 1 ? "" : "s"))
        .num("minutes", n.minutes);
  } else {
    body.str("title", "It's your turn").str("body", fmt::format("{}: it's your turn. Open the page to go through.", room_name));
  }
  return body.str("url", at.link(fmt::format("/r/{}", n.room))).done();
}

}  // namespace foyer::notify
