#pragma once
// A whole page in the site's look, rendered here for the pages that work without
// JavaScript (handlers/plain_queue.hpp, the resume link's question in handlers/resume.hpp).

#include <cstdint>
#include <optional>
#include <string_view>

#include "http/server.hpp"

namespace foyer::http::handlers {

// `main` is HTML whose every value was escaped. With `refresh_s` the browser loads the page
// again after that many seconds: the page's only motion. Never cached.
response html_page(const request& req, beast::http::status status, std::string_view room_name, std::string_view title,
                   std::string_view main, std::optional<std::uint32_t> refresh_s = std::nullopt);

}  // namespace foyer::http::handlers
