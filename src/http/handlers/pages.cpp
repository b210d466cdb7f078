#include "http/handlers/pages.hpp"

#include "http/problem.hpp"

namespace foyer::http::handlers {

response pages::front(const request& req) const {
  // With one room, the front page is its waiting room.
  return file(req, rooms_.rooms().size() == 1 ? "/room.html" : "/index.html");
}

response pages::room_page(const request& req, std::string_view room_id) const {
  if (rooms_.find(room_id)) return file(req, "/room.html");
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
