#include "http/handlers/html_page.hpp"

#include <boost/beast/http/field.hpp>
#include <fmt/format.h>

#include "core/base/html.hpp"
#include "http/static_files.hpp"

namespace foyer::http::handlers {

namespace bhttp = beast::http;

response html_page(const request& req, bhttp::status status, std::string_view room_name, std::string_view title,
                   std::string_view main, std::optional<std::uint32_t> refresh_s) {
  std::string refresh = refresh_s ? fmt::format("<meta http-equiv=\"refresh\" content=\"{}\">\n", *refresh_s) : "";
  response res(status, req.version());
  res.body() = fmt::format(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"referrer\" content=\"no-referrer\">\n{}<title>{}</title>\n"
      "<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n"
      "<link rel=\"stylesheet\" href=\"/css/site.css\">\n</head>\n<body>\n"
      "<header class=\"brand\"><span class=\"brand-name\">{}</span></header>\n"
      "<main id=\"main\" class=\"card\">\n<h1>{}</h1>\n{}</main>\n"
      "<footer class=\"footer\"><span>Waiting room by Foyer</span></footer>\n</body>\n</html>\n",
      refresh, html_escape(title), html_escape(room_name), html_escape(title), main);
  res.set(bhttp::field::content_type, "text/html; charset=utf-8");
  res.set(bhttp::field::cache_control, "no-store");
  add_security_headers(res);
  return res;
}

}  // namespace foyer::http::handlers
