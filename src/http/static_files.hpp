#pragma once
// The embedded web front end: content types, ETags, gzip where it pays, and strict
// security headers. Only paths that name an embedded file are served, so no request
// path ever reaches the file system.

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "http/server.hpp"

namespace foyer::http {

// Whether the request's Accept-Encoding fields take gzip (RFC 9110, 12.5.3): with a weight
// above zero for "gzip" (or "x-gzip") itself, or, if it is not named, for "*".
bool accepts_gzip(const request& req);

// Every page's headers: no framing, no sniffing, no referrer, and a CSP without inline
// scripts or third-party origins, but for images (a room's logo_url may be on any https host).
void add_security_headers(response& res);

class static_files {
 public:
  static_files();
  // The asset at `path` ("/room.html"), or nullopt if there is none. With another
  // `status` than 200 (a page that says what is missing) it is sent whole, never 304.
  std::optional<response> serve(const request& req, std::string_view path,
                                beast::http::status status = beast::http::status::ok) const;

 private:
  struct file {
    std::string_view body;
    std::string gzipped;  // empty where compression does not pay
    std::string etag;
    std::string_view content_type;
  };
  std::unordered_map<std::string, file> files_;
};

}  // namespace foyer::http
