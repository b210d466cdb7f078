#pragma once
// What a pushed notice says: the JSON the waiting page's service worker (web/sw.js) shows,
// before the push sender encrypts it (RFC 8291). It names the room and links its page, and
// carries nothing about the visitor: the push service only relays ciphertext, but the
// payload is short-lived anyway and needs nothing more.

#include <string>
#include <string_view>

#include "core/base/public_origin.hpp"
#include "core/notify/contact_book.hpp"

namespace foyer::notify {

// {"kind", "room", "title", "body", "url", "minutes" (of a soon notice)}; `room_name` as the
// room's page shows it, `url` the room's page at the server's public address.
std::string push_payload(const notice& n, std::string_view room_name, const public_origin& at);

}  // namespace foyer::notify
