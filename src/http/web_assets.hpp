#pragma once
// The files of web/, and the API's description (docs/openapi.yaml), embedded at build
// time by cmake/embed_files.cmake. web/ brings the library files its scripts import, at
// /vendor/@noble/<package>@<version>/<file> (cmake/embed_web.cmake).

#include <string_view>
#include <vector>

namespace foyer::http {

struct web_asset {
  std::string_view path;  // "/js/room.js"
  std::string_view body;
};

const std::vector<web_asset>& web_assets();
// Served below /api/v1: "/openapi.yaml".
const std::vector<web_asset>& api_documents();

}  // namespace foyer::http
