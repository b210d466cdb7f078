#include "app/log.hpp"

#include <chrono>
#include <cstdio>

namespace foyer::app::log {
namespace {

void write(std::string_view level, std::string_view msg, const std::vector<log_field>& fields) {
  // The wall clock: the time leaves the process.
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  std::string line = log_line(now.count(), level, msg, fields);
  line += '\n';
  // One write per line, so that lines of the two threads never interleave.
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace

void info(std::string_view msg, const std::vector<log_field>& fields) { write("info", msg, fields); }
void warn(std::string_view msg, const std::vector<log_field>& fields) { write("warn", msg, fields); }
void error(std::string_view msg, const std::vector<log_field>& fields) { write("error", msg, fields); }

void repeated_errors::error(const std::string& key, std::int64_t now_ms, std::string msg,
                            std::vector<log_field> fields) {
  auto it = pending_.find(key);
  if (it == pending_.end()) {
    log::error(msg, fields);
    pending_.emplace(key, pending{now_ms, 0, {}, {}});
    return;
  }
  ++it->second.count;
  it->second.msg = std::move(msg);
  it->second.fields = std::move(fields);
}

void repeated_errors::flush(std::int64_t now_ms) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    auto& p = it->second;
    if (now_ms - p.since_ms < interval_ms_) {
      ++it;
    } else if (p.count == 0) {
      it = pending_.erase(it);
    } else {
      p.fields.emplace_back("repeated", p.count);
      log::error(p.msg, p.fields);
      p = pending{now_ms, 0, {}, {}};
      ++it;
    }
  }
}

}  // namespace foyer::app::log
