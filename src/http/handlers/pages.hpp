#pragma once
// The embedded web front end:
//   GET /            with one room its waiting room, else the list of rooms
//   GET /r/{room}    the room's waiting room
//   GET /verify, /admin, /welcome   the verify page, the operator console, the demo target
//   GET <asset>      every file of web/ at its own path ("/js/room.js")

#include <string_view>

#include "http/handlers/context.hpp"
#include "http/static_files.hpp"

namespace foyer::http::handlers {

class pages {
 public:
  explicit pages(const journal& rooms) : rooms_(rooms) {}

  response front(const request& req) const;
  response room_page(const request& req, std::string_view room_id) const;
  // The embedded file at `path`; 404 if there is none.
  response file(const request& req, std::string_view path) const;

 private:
  const journal& rooms_;
  static_files files_;
};

}  // namespace foyer::http::handlers
