#pragma once
// A QR code as an SVG drawing (libqrencode draws the modules), for a link a phone's
// camera can open: black modules on white, with the quiet zone of four modules that
// ISO/IEC 18004 asks for, scaled by the viewer.

#include <optional>
#include <string>
#include <string_view>

namespace foyer {

// The SVG of `text` in byte mode at error correction level M; nullopt if it does not fit
// a QR code (about 2300 bytes) or libqrencode fails.
std::optional<std::string> qr_svg(std::string_view text);

}  // namespace foyer
