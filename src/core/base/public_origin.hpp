#pragma once
// The one address visitors reach Foyer by ([server] public_url): every link Foyer makes
// (resume links and their QR codes, mailed and pushed notices, the discovery document)
// starts with it, never with a request's Host. Same-site checks compare a request's
// Origin with it.

#include <optional>
#include <string>
#include <string_view>

namespace foyer {

class public_origin {
 public:
  // "http[s]://host[:port]", a trailing "/" allowed; nullopt for a path, a query, a
  // fragment, user info or anything parse_url refuses. The origin is kept as a browser
  // serializes it (RFC 6454 §6.2): the host in lower case, a default port left out, so
  // that it compares equal to the Origin field of the pages served from it.
  static std::optional<public_origin> parse(std::string_view text);

  // Default: http://127.0.0.1:8080, the default listen address.
  public_origin() = default;

  const std::string& origin() const { return origin_; }
  // The absolute URL of `path`, a path on this server starting with '/'.
  std::string link(std::string_view path) const { return origin_ + std::string(path); }

 private:
  std::string origin_ = "http://127.0.0.1:8080";
};

}  // namespace foyer
