// Boost's assertions, where asserts are on (builds without NDEBUG: the sanitized and fuzz
// builds), as assert() would have them, but for one.
//
// Beast 1.74's chunked parser asserts `n >= 5` when it is called again after the last
// chunk's line, where four bytes are possible and the code after the assertion handles
// them (asks for more); Beast fixed the assertion upstream (boostorg/beast#2861). With it
// in place, a client sending the end of a chunked body a byte at a time would abort the
// server. That one is let through; every other assertion aborts.
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace boost {

void assertion_failed(char const* expr, char const* function, char const* file, long line) {
  if (std::string_view(expr) == "n >= 5" && std::string_view(file).ends_with("beast/http/impl/basic_parser.ipp")) return;
  std::fprintf(stderr, "%s:%ld: %s: Assertion `%s' failed.\n", file, line, function, expr);
  std::abort();
}

void assertion_failed_msg(char const* expr, char const* msg, char const* function, char const* file, long line) {
  std::fprintf(stderr, "%s:%ld: %s: Assertion `%s' failed: %s\n", file, line, function, expr, msg);
  std::abort();
}

}  // namespace boost
