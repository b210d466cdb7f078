#include "http/http_metrics.hpp"

#include <algorithm>

namespace foyer::http {
namespace {

// From half a millisecond (a poll) to 10 s (a join waiting on a stalled disk).
std::vector<double> duration_bounds() { return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}; }

}  // namespace

http_metrics::http_metrics(std::vector<std::string> patterns) {
  patterns.emplace_back("unmatched");
  for (auto& p : patterns) routes_.push_back({std::move(p), {}, ops::histogram(duration_bounds())});
}

void http_metrics::observe(std::size_t route, unsigned status, std::chrono::steady_clock::duration took) {
  auto& r = routes_[std::min(route, routes_.size() - 1)];
  auto it = std::find_if(r.by_status.begin(), r.by_status.end(), [status](const auto& s) { return s.first == status; });
  if (it == r.by_status.end()) {
    r.by_status.emplace_back(status, 1);
  } else {
    ++it->second;
  }
  r.duration.observe(std::chrono::duration<double>(took).count());
}

void http_metrics::collect(ops::metrics_writer& w) const {
  w.family("foyer_http_requests_total", "counter", "HTTP requests answered, by route pattern and status code.");
  for (const auto& r : routes_) {
    for (const auto& [status, count] : r.by_status) {
      auto code = std::to_string(status);
      w.sample("foyer_http_requests_total", {{"route", r.label}, {"code", code}}, count);
    }
  }
  w.family("foyer_http_request_duration_seconds", "histogram",
           "Time from a parsed request to its answer, by route pattern.");
  for (const auto& r : routes_) {
    if (r.duration.count() > 0) w.samples("foyer_http_request_duration_seconds", {{"route", r.label}}, r.duration);
  }
}

}  // namespace foyer::http
