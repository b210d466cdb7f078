#include "http/http_metrics.hpp"

#include <algorithm>

namespace foyer::http {

ops::histogram request_durations() {
  // From half a millisecond (a poll) to 10 s (a join waiting on a stalled disk).
  return ops::histogram({0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10});
}

http_metrics::http_metrics(std::vector<std::string> patterns) {
  patterns.emplace_back("unmatched");
  for (auto& p : patterns) routes_.push_back({std::move(p), {}, request_durations()});
}

void http_metrics::observe(std::size_t route, unsigned status, std::chrono::steady_clock::duration took) {
  auto& r = routes_[std::min(route, routes_.size() - 1)];
  count(r, status, 1);
  r.duration.observe(std::chrono::duration<double>(took).count());
}

void http_metrics::add(std::size_t route, unsigned status, const ops::histogram& durations) {
  auto& r = routes_[std::min(route, routes_.size() - 1)];
  count(r, status, durations.count());
  r.duration.add(durations);
}

void http_metrics::count(route_metrics& r, unsigned status, std::uint64_t n) {
  auto it = std::find_if(r.by_status.begin(), r.by_status.end(), [status](const auto& s) { return s.first == status; });
  if (it == r.by_status.end()) {
    r.by_status.emplace_back(status, n);
  } else {
    it->second += n;
  }
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
