#pragma once
// Text as HTML, for pages rendered on the server.

#include <string>
#include <string_view>

namespace foyer {

// `text` safe inside an element or a quoted attribute: & < > " ' as character references.
std::string html_escape(std::string_view text);

}  // namespace foyer
