#include <catch2/catch.hpp>

#include "core/base/html.hpp"

using foyer::html_escape;

TEST_CASE("text rendered into a page cannot open a tag or leave a quoted attribute") {
  CHECK(html_escape(R"(<script>alert("x")</script> & 'y')") ==
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;");
  CHECK(html_escape("Caf\xc3\xa9 \xe2\x80\x9cquoted\xe2\x80\x9d") == "Caf\xc3\xa9 \xe2\x80\x9cquoted\xe2\x80\x9d");
}
