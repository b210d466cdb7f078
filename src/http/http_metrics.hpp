#pragma once
// Requests by route and status, and their durations by route: route is the router's
// pattern ("/api/v1/rooms/{room}/status"), never a raw path, so the series stay few.
// Routes show once they have been asked. Used on the event loop only.

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ops/metrics.hpp"

namespace foyer::http {

// The buckets of a request's duration, in seconds.
ops::histogram request_durations();

class http_metrics {
 public:
  // `patterns` by route index (router::patterns()); router::unmatched counts as "unmatched".
  explicit http_metrics(std::vector<std::string> patterns = {});

  void observe(std::size_t route, unsigned status, std::chrono::steady_clock::duration took);
  // Requests answered elsewhere (an I/O thread's poll desk), all with `status`.
  void add(std::size_t route, unsigned status, const ops::histogram& durations);
  // foyer_http_requests_total and foyer_http_request_duration_seconds.
  void collect(ops::metrics_writer& w) const;

 private:
  struct route_metrics {
    std::string label;
    std::vector<std::pair<unsigned, std::uint64_t>> by_status;  // a handful: a vector beats a map
    ops::histogram duration;
  };
  static void count(route_metrics& r, unsigned status, std::uint64_t n);

  std::vector<route_metrics> routes_;  // by route index, then "unmatched"
};

}  // namespace foyer::http
