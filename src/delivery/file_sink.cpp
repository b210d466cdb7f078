#include "delivery/file_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <boost/asio/post.hpp>
#include <fmt/core.h>

namespace foyer::delivery {
namespace {

int open_for_append(const std::filesystem::path& path) {
  return ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
}

}  // namespace

file_sink::file_sink(net::io_context& ioc, const sink_config& c)
    : sink(ioc, c), ioc_(ioc), path_(c.path), fd_(open_for_append(c.path)) {
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot open '{}' for appending: {}", path_.string(), std::strerror(errno)));
}

file_sink::~file_sink() {
  // A job under way finishes first; none is left to touch the descriptor.
  writer_.stop();
  writer_.join();
  ::close(fd_);
}

void file_sink::reopen() {
  net::post(writer_, [this] {
    auto problem = reopen_file();
    net::post(ioc_, [this, problem = std::move(problem)] {
      if (problem.empty()) return;
      fmt::print(stderr, "foyer: sink '{}': {}; writing on to the file as it was\n", name(), problem);
    });
  });
}

void file_sink::attempt(std::vector<envelope> entries, std::function<void(std::string problem)> done) {
  std::string text;
  for (const auto& e : entries) {
    text += e.json;
    text += '\n';
  }
  net::post(writer_, [this, text = std::move(text), done = std::move(done)]() mutable {
    auto problem = append(text);
    net::post(ioc_, [problem = std::move(problem), done = std::move(done)] { done(problem); });
  });
}

std::string file_sink::append(const std::string& text) {
  // A write cut short by a full disk or an error is taken back and retried whole, so that
  // no line is left cut in two; a synced batch whose sync failed may appear twice, never not
  // at all (receivers de-duplicate by id).
  const off_t start = ::lseek(fd_, 0, SEEK_END);
  std::size_t written = 0;
  while (written < text.size()) {
    auto n = ::write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto problem = fmt::format("cannot write to '{}': {}", path_.string(), std::strerror(errno));
      if (written > 0 && start >= 0 && ::ftruncate(fd_, start) != 0) {
        problem += fmt::format("; a line may be cut short ({})", std::strerror(errno));
      }
      return problem;
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fdatasync(fd_) != 0) return fmt::format("cannot sync '{}': {}", path_.string(), std::strerror(errno));
  return {};
}

std::string file_sink::reopen_file() {
  int fd = open_for_append(path_);
  if (fd < 0) return fmt::format("cannot reopen '{}': {}", path_.string(), std::strerror(errno));
  ::close(fd_);
  fd_ = fd;
  return {};
}

}  // namespace foyer::delivery
