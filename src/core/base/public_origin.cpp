#include "core/base/public_origin.hpp"

#include <algorithm>
#include <cctype>

#include "core/base/url.hpp"

namespace foyer {

std::optional<public_origin> public_origin::parse(std::string_view text) {
  auto url = parse_url(text);
  if (!url || url->target != "/") return std::nullopt;
  std::string host = url->host;
  // A DNS name or an address: nothing a page, a mail or a header would have to escape.
  if (host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:") != std::string::npos) {
    return std::nullopt;
  }
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
  public_origin out;
  out.origin_ = url->tls ? "https://" : "http://";
  out.origin_ += host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (url->port != (url->tls ? "443" : "80")) out.origin_ += ":" + url->port;
  return out;
}

}  // namespace foyer
