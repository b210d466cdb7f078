#include "core/base/log_line.hpp"

#include "core/base/time_text.hpp"

namespace foyer {

std::string log_line(std::int64_t unix_ms, std::string_view level, std::string_view msg,
                     const std::vector<log_field>& fields) {
  json_object line;
  line.str("ts", format_rfc3339_ms(unix_ms)).str("level", level).str("msg", msg);
  for (const auto& f : fields) line.raw(f.key, f.json);
  return line.done();
}

}  // namespace foyer
