#pragma once
// Metrics in the Prometheus text format (version 0.0.4), a registry of our own.
//
// Every value lives with the code that owns it, on the event loop: a counter is a plain
// integer, a histogram a few of them. At a scrape the registry asks each collector to
// write its families; most families (room counters, shed counts) are read from state
// that exists anyway, so nothing is kept twice and nothing can drift. The loop is one
// thread, so no value needs an atomic or a lock (prometheus-cpp pays both on every
// observation: bench/RESULTS.md, "metrics").
//
// Call on the event loop only.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace foyer::ops {

// Counts of observations at or below each upper bound, their sum and their number.
class histogram {
 public:
  // `bounds` ascending; +Inf is implied.
  explicit histogram(std::vector<double> bounds);
  void observe(double value);
  // Adds another's observations, counted in the same bounds.
  void add(const histogram& other);

  const std::vector<double>& bounds() const { return bounds_; }
  // Observations at or below bounds()[i] (not cumulative); the last entry is above them all.
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  double sum() const { return sum_; }
  std::uint64_t count() const { return count_; }

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

// Bucket bounds: `first`, then each `factor` times the one before, `n` in all.
std::vector<double> exponential_bounds(double first, double factor, std::size_t n);

using label = std::pair<std::string_view, std::string_view>;

// Writes families: a family's HELP and TYPE line, then its samples, before the next one.
class metrics_writer {
 public:
  // `type`: counter, gauge or histogram. Names are the caller's own, never input.
  metrics_writer& family(std::string_view name, std::string_view type, std::string_view help);
  metrics_writer& sample(std::string_view name, std::initializer_list<label> labels, double value);
  metrics_writer& sample(std::string_view name, std::initializer_list<label> labels, std::uint64_t value);
  // `name`_bucket (with le), _sum and _count of `h`, under `labels`.
  metrics_writer& samples(std::string_view name, std::initializer_list<label> labels, const histogram& h);

  std::string done() { return std::move(out_); }

 private:
  void series(std::string_view name, std::initializer_list<label> labels, std::string_view le = {});
  std::string out_;
};

// The collectors a scrape asks, in the order they were added.
class metrics_registry {
 public:
  using collector = std::function<void(metrics_writer&)>;
  void add(collector c) { collectors_.push_back(std::move(c)); }
  std::string scrape() const;

 private:
  std::vector<collector> collectors_;
};

}  // namespace foyer::ops
