#pragma once
// Polls answered on the I/O threads: the cacheable frontier, and the status of a visitor
// waiting far back in a queue, are answered from the rooms' fronts the owner's loop
// publishes (core/rooms/room_front.hpp), on the connection's own thread, without waiting
// for the loop. Every other request, and every status the front can't answer (near the
// front, admitted, held, a bad ticket, an overloaded loop), goes on to the loop as before.
//
// Each I/O thread has a desk of its own, touched by that thread only. The loop sends each
// desk every new front, and the desk sends back what it answered since, counted in the
// status route's metrics: they share no memory but the immutable fronts.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <foyer/clock.hpp>

#include "core/base/jitter.hpp"
#include "core/gate/ticket.hpp"
#include "core/ops/metrics.hpp"
#include "core/ops/overload.hpp"
#include "core/rooms/room_front.hpp"
#include "http/http_metrics.hpp"
#include "http/server.hpp"

namespace foyer::http {

// What the loop sends a desk: the fronts, and whether the loop is calm (no overload
// level: else shedding and stretching polls is the loop's to decide).
struct published_fronts {
  std::shared_ptr<const room_fronts> fronts;
  bool calm = true;
  // On the real steady clock, read just before the fronts were taken: a desk answers from
  // fronts no older than fresh_for, and dates its frontier answers by the time since.
  time_point at;
};

class poll_desk final : public near_answers {
 public:
  // Fronts older than this (a stalled loop publishes none) send the polls to the loop.
  static constexpr std::chrono::milliseconds fresh_for{1000};

  // The durations of the polls a desk answered, by route.
  struct answered {
    ops::histogram status = request_durations();
    ops::histogram frontier = request_durations();
  };

  poll_desk(const ticket_codec& tickets, status_window window, std::uint64_t seed);
  std::optional<response> answer(const request& req) override;
  // Takes newer fronts; gives what was answered since the last.
  answered take(published_fronts fronts);

 private:
  // A far-back visitor's status; none for the loop to answer.
  std::optional<response> status(const request& req, std::string_view room_id, const room_front& front);

  const ticket_codec& tickets_;
  status_window window_;
  jitter_source jitter_;
  published_fronts fronts_;
  answered answered_;
};

// On the owner's loop: publishes the rooms' fronts to every desk each period, and counts
// what the desks answered. Publishes nothing without desks (no I/O threads).
class poll_desks {
 public:
  static constexpr std::chrono::milliseconds period{20};

  // `count` adds the desks' answered polls to their routes' metrics.
  poll_desks(net::io_context& owner, const journal& rooms, const clock& clock, const ticket_codec& tickets,
             status_window window, const ops::overload_ladder& overload,
             std::function<void(const poll_desk::answered&)> count);
  // The desk for the I/O thread running `home` (server::answer_near).
  std::unique_ptr<near_answers> open(net::io_context& home);
  // Publishes at once, then every period.
  void start();
  void stop();

 private:
  void publish();

  net::io_context& owner_;
  const journal& rooms_;
  const clock& clock_;
  const ticket_codec& tickets_;
  status_window window_;
  const ops::overload_ladder& overload_;
  std::function<void(const poll_desk::answered&)> count_;
  struct desk_at {
    poll_desk* desk;  // owned by its I/O thread's connection host
    net::io_context* home;
  };
  std::vector<desk_at> desks_;
  steady_timer timer_;
  bool stopped_ = false;
};

}  // namespace foyer::http
