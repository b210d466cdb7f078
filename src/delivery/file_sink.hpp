#pragma once
// Appends envelopes to a file as NDJSON, one CloudEvent a line, and makes each batch
// durable (fdatasync) before it counts as delivered. On SIGHUP the file is reopened at
// its path, so logrotate can move it away: lines written after the reopen go to the new
// file, none is lost in between.
//
// Writing and syncing block, so they run on a thread of the sink's own; the loop hands it
// one job at a time (a batch, or a reopen) and gets the result back as a posted
// completion. The file descriptor is touched by those jobs only, one after the other.

#include <boost/asio/thread_pool.hpp>

#include "delivery/sink.hpp"

namespace foyer::delivery {

class file_sink final : public sink {
 public:
  // Opens `c.path` for appending, creating it; throws std::runtime_error naming the path
  // and the cause if it cannot.
  file_sink(net::io_context& ioc, const sink_config& c);
  ~file_sink() override;
  void reopen() override;

 private:
  std::size_t batch_size() const override { return 1'000; }
  void attempt(std::vector<envelope> entries, std::function<void(std::string problem)> done) override;

  // On the writer thread.
  std::string append(const std::string& text);
  std::string reopen_file();

  net::io_context& ioc_;
  std::filesystem::path path_;
  int fd_ = -1;
  net::thread_pool writer_{1};
};

}  // namespace foyer::delivery
