#pragma once
// What `foyer guard --foyer URL` learns from the server: its discovery document,
// GET {URL}/.well-known/foyer.json = {"issuer": "...", "jwks_uri": "<absolute URL or path>",
// "rooms": ["id", ...]}. Pure: the guard fetches the document and calls these.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace foyer::app {

struct foyer_discovery {
  std::string issuer;
  std::string jwks_uri;            // as published: an absolute URL, or a path on the server
  std::vector<std::string> rooms;  // the server's rooms when the document was read
};

// Like a JWKS: nothing legitimate comes near it, and the guard reads it on its only loop.
inline constexpr std::size_t max_discovery_size = 64 * 1024;
inline constexpr std::string_view discovery_path = "/.well-known/foyer.json";

// `foyer_url` with any trailing '/' dropped, then the document's path.
std::string discovery_url(std::string_view foyer_url);

// Throws std::invalid_argument naming what is missing or of the wrong type.
foyer_discovery parse_discovery(std::string_view json);

// Where the keys are: `jwks_uri` itself when it is an absolute http(s) URL, else that path
// on the server at `foyer_url` (its scheme and authority). Anything else (which the guard
// would read as a file name) throws std::invalid_argument.
std::string jwks_location(std::string_view foyer_url, std::string_view jwks_uri);

// The issuer the guard checks passes against: the server's. A `given` one (--issuer) that
// differs, or a `room` the server does not have, would refuse every visitor: both throw
// std::invalid_argument naming the two values and `source` (the document's URL).
std::string agreed_issuer(const foyer_discovery& server, std::string_view given, std::string_view room,
                          std::string_view source);

}  // namespace foyer::app
