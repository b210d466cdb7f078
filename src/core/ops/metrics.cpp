#include "core/ops/metrics.hpp"

#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace foyer::ops {

histogram::histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void histogram::observe(double value) {
  // A dozen bounds: a linear scan beats a binary search's branches.
  std::size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void histogram::add(const histogram& other) {
  if (other.bounds_ != bounds_) throw std::invalid_argument("histogram::add: the bounds differ");
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  sum_ += other.sum_;
  count_ += other.count_;
}

std::vector<double> exponential_bounds(double first, double factor, std::size_t n) {
  std::vector<double> out;
  for (double b = first; out.size() < n; b *= factor) out.push_back(b);
  return out;
}

metrics_writer& metrics_writer::family(std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  return *this;
}

void metrics_writer::series(std::string_view name, std::initializer_list<label> labels, std::string_view le) {
  out_ += name;
  if (labels.size() == 0 && le.empty()) return;
  char sep = '{';
  auto put = [&](std::string_view key, std::string_view value) {
    out_ += sep;
    sep = ',';
    out_ += key;
    out_ += "=\"";
    // Label values may be room ids or reasons: escaped as the format asks.
    for (char c : value) {
      if (c == '\\' || c == '"') out_ += '\\';
      if (c == '\n') {
        out_ += "\\n";
        continue;
      }
      out_ += c;
    }
    out_ += '"';
  };
  for (const auto& [key, value] : labels) put(key, value);
  if (!le.empty()) put("le", le);
  out_ += '}';
}

metrics_writer& metrics_writer::sample(std::string_view name, std::initializer_list<label> labels, double value) {
  series(name, labels);
  fmt::format_to(std::back_inserter(out_), " {}\n", value);
  return *this;
}

metrics_writer& metrics_writer::sample(std::string_view name, std::initializer_list<label> labels,
                                       std::uint64_t value) {
  series(name, labels);
  fmt::format_to(std::back_inserter(out_), " {}\n", value);
  return *this;
}

metrics_writer& metrics_writer::samples(std::string_view name, std::initializer_list<label> labels,
                                        const histogram& h) {
  std::string bucket = fmt::format("{}_bucket", name);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= h.bounds().size(); ++i) {
    cumulative += h.counts()[i];
    std::string le = i < h.bounds().size() ? fmt::format("{}", h.bounds()[i]) : "+Inf";
    series(bucket, labels, le);
    fmt::format_to(std::back_inserter(out_), " {}\n", cumulative);
  }
  sample(fmt::format("{}_sum", name), labels, h.sum());
  sample(fmt::format("{}_count", name), labels, h.count());
  return *this;
}

std::string metrics_registry::scrape() const {
  metrics_writer w;
  for (const auto& c : collectors_) c(w);
  return w.done();
}

}  // namespace foyer::ops
