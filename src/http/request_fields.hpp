#pragma once
// The parts of a request that carry credentials and parameters: cookies, the bearer token,
// query parameters.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/server.hpp"

namespace foyer::http {

// `text` without the optional whitespace (spaces and tabs) around it (RFC 9110, 5.6.3).
std::string_view trim_ows(std::string_view text);

// The value of the first cookie called `name` in the Cookie headers, as sent.
std::optional<std::string_view> cookie(const request& req, std::string_view name);

// The values of the first `max_count` cookies called `name`, in the order sent: a browser
// sends every cookie of that name whose path and domain match, a stale one included.
std::vector<std::string_view> cookies(const request& req, std::string_view name, std::size_t max_count);

// The token of "Authorization: Bearer <token>".
std::optional<std::string_view> bearer(const request& req);

// Whether a browser sent this request from a page of `origin` (the server's public address,
// public_origin::origin) or from none: Sec-Fetch-Site says so where the browser sends it
// ("same-origin", or "none": typed or bookmarked); "same-site" is refused, since a sibling
// host (user content on another subdomain) is not the waiting room. Without Sec-Fetch-Site
// the Origin field must be `origin`. A request with neither comes from no browser that
// would send a form across sites, and passes.
bool from_own_origin(const request& req, std::string_view origin);

// The value of the first query parameter called `name` in a request target, undecoded ("" for
// a name without '=').
std::optional<std::string_view> query_param(std::string_view target, std::string_view name);

// A query value that is a whole number, digits only; nullopt otherwise.
std::optional<std::uint64_t> parse_u64(std::string_view text);

// Form-style decoding of a query value: %XX escapes, '+' as a space. Nullopt for a bad escape.
std::optional<std::string> percent_decode(std::string_view text);

// The target without any `name` query parameter, and without a '?' left with nothing after it.
std::string without_query_param(std::string_view target, std::string_view name);

}  // namespace foyer::http
