#pragma once
// The route table: (methods, pattern, handler). A path no route has is 404 not_found; a
// path some route has, asked with another method, is 405 with Allow naming the methods
// its routes take. GET routes answer HEAD too (the server sends HEAD no body).
//
// Patterns are "/"-separated segments, each literal or "{name}", which captures one
// segment. Paths match segment by segment; empty segments are skipped, so "/a/b/" and
// "/a//b" are "/a/b", except below a prefix marked exact(). The query is not part of the path. The first route that matches
// path and method wins. Matching allocates nothing.
//
// Built once at start, then used on the event loop only.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/beast/http/verb.hpp>

#include "http/server.hpp"

namespace foyer::http {

// What a route's "{name}" segments captured; views into the request's target.
class route_params {
 public:
  static constexpr std::size_t capacity = 4;

  // The segment `{name}` captured; empty if the pattern has no such name.
  std::string_view operator[](std::string_view name) const;

 private:
  friend class router;
  std::array<std::pair<std::string_view, std::string_view>, capacity> items_{};  // (name, value)
  std::size_t size_ = 0;
};

// An answer already made, as a task.
task<response> ready(response res);

// Params by value: a handler is a coroutine that outlives the call that started it.
using route_handler = std::function<task<response>(request&, const peer&, route_params)>;

class router {
 public:
  using verb = beast::http::verb;
  // Methods as a set of bits, 1 << verb.
  using method_set = std::uint64_t;
  // Paths longer than this match no route.
  static constexpr std::size_t max_segments = 12;

  // A last segment "{name...}" captures the rest of the path, one segment or more, as
  // the request spelled it. Throws std::invalid_argument for a pattern with more than
  // route_params::capacity captures or max_segments segments, or with no methods.
  void add(std::initializer_list<verb> methods, std::string_view pattern, route_handler handler);

  // Requests whose path is `prefix` or below it are checked before routing: a refusal is
  // the answer whatever the path and method, so that callers it refuses learn nothing
  // of which paths exist there.
  using check = std::function<std::optional<response>(const request&)>;
  void guard(std::string_view prefix, check c);

  // Paths at or below `prefix` are answered only as written canonically, one '/' before
  // each segment and none after the last: "//metrics" and "/metrics/" are 404. A proxy's
  // rule for such a path (nginx's `location = /metrics`, or one an operator writes for
  // the admin API) then sees every spelling Foyer answers. Guards still answer first.
  void exact(std::string_view prefix);

  // The route of a path no route has.
  static constexpr std::size_t unmatched = static_cast<std::size_t>(-1);

  struct match_result {
    const route_handler* handler = nullptr;  // set when a route has the path and the method
    route_params params;
    method_set allowed = 0;  // methods of the routes that have the path
    std::size_t route = unmatched;  // the first route that has the path, by the order of add()
  };
  match_result match(verb method, std::string_view path) const;

  // The answer: the guard's refusal, the route's handler's, 404 or 405. Sets `*route` to
  // the route that has the path (match_result::route), for the metrics.
  task<response> handle(request& req, const peer& who, std::size_t* route = nullptr) const;

  // The patterns of the routes, by the order of add().
  std::vector<std::string> patterns() const;
  // "GET /api/v1/rooms": each method of each route (HEAD with GET), by the order of add().
  std::vector<std::string> table() const;

  // "GET, HEAD, POST": the value of Allow.
  static std::string allow(method_set methods);

 private:
  struct segment {
    std::string text;  // the literal, or the capture's name
    bool capture = false;
    bool rest = false;  // captures this segment and every one after it
  };
  struct route {
    std::string pattern;
    method_set methods = 0;
    std::vector<segment> segments;
    route_handler handler;
  };
  struct prefix_check {
    std::vector<std::string> segments;
    check c;
  };
  struct path_segments {
    std::array<std::string_view, max_segments> items{};
    std::size_t size = 0;
    bool fits = true;  // false: more than max_segments
    const char* end = nullptr;  // the path's end, for a capture of the rest
    bool canonical = true;  // false: an empty segment, a trailing '/' among them
  };
  static path_segments split(std::string_view path);
  static std::vector<std::string> segments_of(std::string_view prefix);
  // Whether `path` is `prefix` or below it.
  static bool below(const std::vector<std::string>& prefix, const path_segments& path);
  match_result match(verb method, const path_segments& path) const;

  std::vector<route> routes_;
  std::vector<prefix_check> guards_;
  std::vector<std::vector<std::string>> exact_;
};

}  // namespace foyer::http
