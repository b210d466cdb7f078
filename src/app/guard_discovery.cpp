#include "app/guard_discovery.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <stdexcept>

namespace foyer::app {
namespace {

std::string_view required_string(simdjson::dom::object object, std::string_view name) {
  std::string_view text;
  if (object[name].get_string().get(text) || text.empty()) {
    throw std::invalid_argument(fmt::format("the discovery document has no \"{}\" string", name));
  }
  return text;
}

}  // namespace

std::string discovery_url(std::string_view foyer_url) {
  while (foyer_url.ends_with('/')) foyer_url.remove_suffix(1);
  return fmt::format("{}{}", foyer_url, discovery_path);
}

foyer_discovery parse_discovery(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(json.data(), json.size()).get_object().get(object)) {
    throw std::invalid_argument("the discovery document is not a JSON object");
  }
  foyer_discovery out{std::string(required_string(object, "issuer")),
                      std::string(required_string(object, "jwks_uri")), {}};
  simdjson::dom::array rooms;
  if (object["rooms"].get_array().get(rooms)) {
    throw std::invalid_argument("the discovery document has no \"rooms\" array");
  }
  for (auto room : rooms) {
    std::string_view id;
    if (room.get_string().get(id)) throw std::invalid_argument("the discovery document's rooms are not strings");
    out.rooms.emplace_back(id);
  }
  return out;
}

std::string jwks_location(std::string_view foyer_url, std::string_view jwks_uri) {
  if (jwks_uri.starts_with("https://") || jwks_uri.starts_with("http://")) return std::string(jwks_uri);
  // "//host/path" would be another host to a browser: no path of this server either.
  if (!jwks_uri.starts_with('/') || jwks_uri.starts_with("//")) {
    throw std::invalid_argument(fmt::format("jwks_uri '{}' is neither an http(s) URL nor a path", jwks_uri));
  }
  auto scheme_end = foyer_url.find("://");
  auto origin_end = scheme_end == std::string_view::npos ? foyer_url.size() : foyer_url.find('/', scheme_end + 3);
  return fmt::format("{}{}", foyer_url.substr(0, origin_end), jwks_uri);
}

std::string agreed_issuer(const foyer_discovery& server, std::string_view given, std::string_view room,
                          std::string_view source) {
  if (!given.empty() && given != server.issuer) {
    throw std::invalid_argument(fmt::format(
        "--issuer '{}' disagrees with the server's issuer '{}' (from {}): every pass would be refused; "
        "leave --issuer out to take the server's",
        given, server.issuer, source));
  }
  if (std::find(server.rooms.begin(), server.rooms.end(), room) == server.rooms.end()) {
    std::string rooms = server.rooms.empty() ? "none" : fmt::format("{}", fmt::join(server.rooms, ", "));
    throw std::invalid_argument(
        fmt::format("--room '{}' is not a room of the server (from {}; its rooms: {})", room, source, rooms));
  }
  return server.issuer;
}

}  // namespace foyer::app
