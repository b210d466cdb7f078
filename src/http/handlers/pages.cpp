#include "http/handlers/pages.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/rooms/no_script.hpp"
#include "http/problem.hpp"
#include "http/web_assets.hpp"

namespace foyer::http::handlers {
namespace {

// The waiting page of a room with a queue without JavaScript: its <noscript> points there.
response with_plain_pointer(const request& req, std::string_view room_id) {
  const auto& assets = web_assets();
  auto it = std::find_if(assets.begin(), assets.end(), [](const auto& a) { return a.path == "/room.html"; });
  std::string body(it->body);
  auto open = body.find("<noscript>");
  auto close = body.find("</noscript>");
  if (open != std::string::npos && close > open) {
    open += std::string_view("<noscript>").size();
    // Room ids are [a-z0-9_-]: nothing in one needs escaping.
    body.replace(open, close - open,
                 fmt::format("<p>This page needs JavaScript. <a href=\"/r/{}/plain\">Wait in the queue without "
                             "JavaScript</a>.</p>",
                             room_id));
  }
  response res(beast::http::status::ok, req.version());
  res.body() = std::move(body);
  res.set(beast::http::field::content_type, "text/html; charset=utf-8");
  res.set(beast::http::field::cache_control, "no-cache");
  add_security_headers(res);
  return res;
}

}  // namespace

response pages::front(const request& req) const {
  // With one room, the front page is its waiting room.
  return file(req, rooms_.rooms().size() == 1 ? "/room.html" : "/index.html");
}

response pages::room_page(const request& req, std::string_view room_id) const {
  if (const room* r = rooms_.find(room_id)) {
    if (no_script_lane(r->config().lanes)) return with_plain_pointer(req, room_id);
    return file(req, "/room.html");
  }
  // A browser gets the waiting page, which says "No such waiting room" in the visitor's
  // words; an API client gets the problem.
  if (std::string_view(req[beast::http::field::accept]).find("text/html") == std::string_view::npos) {
    return unknown_room(req, room_id);
  }
  if (auto res = files_.serve(req, "/room.html", beast::http::status::not_found)) return std::move(*res);
  return unknown_room(req, room_id);
}

response pages::file(const request& req, std::string_view path) const {
  if (auto res = files_.serve(req, path)) return std::move(*res);
  return problem(req, errc::not_found, "No such page.");
}

}  // namespace foyer::http::handlers
