#include "core/base/qr_svg.hpp"

#include <memory>

#include <fmt/core.h>
#include <qrencode.h>

namespace foyer {
namespace {

constexpr int quiet_zone = 4;

struct qrcode_free {
  void operator()(QRcode* code) const { QRcode_free(code); }
};

}  // namespace

std::optional<std::string> qr_svg(std::string_view text) {
  // libqrencode takes a length with 8-bit data: the text need not end in a NUL.
  std::unique_ptr<QRcode, qrcode_free> code(QRcode_encodeData(static_cast<int>(text.size()),
                                                              reinterpret_cast<const unsigned char*>(text.data()),
                                                              /*version=*/0, QR_ECLEVEL_M));
  if (!code) return std::nullopt;
  const int width = code->width;
  const int size = width + 2 * quiet_zone;
  std::string svg = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {0} {0}" shape-rendering="crispEdges">)"
      R"(<rect width="{0}" height="{0}" fill="#fff"/><path fill="#000" d=")",
      size);
  // One subpath per run of dark modules in a row.
  for (int y = 0; y < width; ++y) {
    const unsigned char* row = code->data + static_cast<std::ptrdiff_t>(y) * width;
    for (int x = 0; x < width;) {
      if (!(row[x] & 1)) {
        ++x;
        continue;
      }
      int run = 1;
      while (x + run < width && (row[x + run] & 1)) ++run;
      svg += fmt::format("M{} {}h{}v1h-{}z", x + quiet_zone, y + quiet_zone, run, run);
      x += run;
    }
  }
  svg += R"("/></svg>)";
  return svg;
}

}  // namespace foyer
