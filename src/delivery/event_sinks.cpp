#include "delivery/event_sinks.hpp"

#include <stdexcept>

#include <fmt/core.h>

#include "delivery/file_sink.hpp"
#include "delivery/webhook_sink.hpp"

namespace foyer::delivery {
namespace {

// How late a second's join count may leave after the second is over.
constexpr std::chrono::milliseconds flush_period{250};

}  // namespace

event_sinks::event_sinks(net::io_context& ioc, const clock& clock, std::string source,
                         const std::vector<sink_config>& configs)
    : clock_(clock), events_(std::move(source), [this](envelope e) { emit(e); }), flush_timer_(ioc) {
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const auto& c = configs[i];
    if (c.type == sink_type::webhook) {
      sinks_.push_back(std::make_unique<webhook_sink>(ioc, clock, c));
      continue;
    }
    try {
      sinks_.push_back(std::make_unique<file_sink>(ioc, c));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(fmt::format("config: sinks[{}].path: {}", i, e.what()));
    }
  }
}

void event_sinks::follow(journal& rooms) {
  if (sinks_.empty()) return;
  rooms.on_applied([this](std::uint64_t seq, const event& e, const applied_effect& effect) {
    events_.on_applied(seq, e, effect);
  });
  schedule_flush();
}

void event_sinks::emit(const envelope& e) {
  for (auto& s : sinks_) {
    if (s->wants(e.type)) s->push(e);
  }
}

void event_sinks::schedule_flush() {
  flush_timer_.expires_after(flush_period);
  flush_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    events_.flush(clock_.now_ms());
    schedule_flush();
  });
}

void event_sinks::reopen() {
  for (auto& s : sinks_) s->reopen();
}

void event_sinks::stop() {
  stopped_ = true;
  flush_timer_.cancel();
  for (auto& s : sinks_) s->stop();
}

std::vector<sink_stats> event_sinks::stats() const {
  std::vector<sink_stats> out;
  out.reserve(sinks_.size());
  for (const auto& s : sinks_) out.push_back(s->stats());
  return out;
}

void event_sinks::collect(ops::metrics_writer& w) const {
  if (sinks_.empty()) return;
  auto all = stats();
  w.family("foyer_sink_queued", "gauge", "Events waiting in the sink's buffer.");
  for (const auto& s : all) w.sample("foyer_sink_queued", {{"sink", s.name}}, std::uint64_t{s.queued});
  w.family("foyer_sink_delivered_total", "counter", "Events the receiver accepted.");
  for (const auto& s : all) w.sample("foyer_sink_delivered_total", {{"sink", s.name}}, s.delivered_total);
  w.family("foyer_sink_dropped_total", "counter", "Events dropped, oldest first, because the buffer was full.");
  for (const auto& s : all) w.sample("foyer_sink_dropped_total", {{"sink", s.name}}, s.dropped_total);
  w.family("foyer_sink_failed_total", "counter", "Delivery attempts that failed.");
  for (const auto& s : all) w.sample("foyer_sink_failed_total", {{"sink", s.name}}, s.failed_total);
}

}  // namespace foyer::delivery
