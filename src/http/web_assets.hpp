#pragma once
// The files of web/, embedded at build time by cmake/embed_web.cmake.

#include <string_view>
#include <vector>

namespace foyer::http {

struct web_asset {
  std::string_view path;  // "/js/room.js"
  std::string_view body;
};

const std::vector<web_asset>& web_assets();

}  // namespace foyer::http
