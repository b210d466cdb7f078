#include "http/poll_desk.hpp"

#include <boost/asio/post.hpp>

#include "core/base/json.hpp"
#include "core/rooms/journal.hpp"
#include "http/handlers/poll_bodies.hpp"
#include "http/handlers/visitor.hpp"
#include "http/request_fields.hpp"

namespace foyer::http {
namespace {

// What a poll asks of which room: GET /api/v1/rooms/{room}/status or .../frontier, plainly
// spelled (anything else, a query included, is the loop's to answer).
struct polled {
  std::string_view room;
  bool frontier = false;
};

std::optional<polled> polled_room(const request& req) {
  if (req.method() != beast::http::verb::get) return std::nullopt;
  std::string_view target = req.target();
  if (!target.starts_with(handlers::rooms_path)) return std::nullopt;
  target.remove_prefix(handlers::rooms_path.size());
  polled p;
  if (target.ends_with("/status")) {
    target.remove_suffix(std::string_view("/status").size());
  } else if (target.ends_with("/frontier")) {
    target.remove_suffix(std::string_view("/frontier").size());
    p.frontier = true;
  } else {
    return std::nullopt;
  }
  if (!target.starts_with('/')) return std::nullopt;
  target.remove_prefix(1);
  if (target.empty() || target.find_first_of("/?%") != std::string_view::npos) return std::nullopt;
  p.room = target;
  return p;
}

}  // namespace

poll_desk::poll_desk(const ticket_codec& tickets, status_window window, std::uint64_t seed)
    : tickets_(tickets), window_(window), jitter_(seed) {}

std::optional<response> poll_desk::answer(const request& req) {
  if (!fronts_.fronts) return std::nullopt;
  auto asked = polled_room(req);
  if (!asked) return std::nullopt;
  auto started = std::chrono::steady_clock::now();
  if (started - fronts_.at > fresh_for) return std::nullopt;
  const auto& fronts = *fronts_.fronts;
  auto front = fronts.rooms.find(asked->room);
  if (front == fronts.rooms.end()) return std::nullopt;
  // The frontier's `at` is when it is answered, as the loop's is: pages measure the
  // server's clock by it, so it must not be earlier than the request.
  auto answered_wall_ms = fronts.taken_wall_ms + std::chrono::ceil<std::chrono::milliseconds>(started - fronts_.at).count();
  auto res = asked->frontier ? handlers::cacheable(req, handlers::frontier_body(front->second, answered_wall_ms))
                             : status(req, asked->room, front->second);
  if (!res) return std::nullopt;
  (asked->frontier ? answered_.frontier : answered_.status)
      .observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return res;
}

std::optional<response> poll_desk::status(const request& req, std::string_view room_id, const room_front& front) {
  // An overloaded loop decides whom to shed and whose polls to stretch.
  if (!fronts_.calm) return std::nullopt;
  auto text = bearer(req);
  if (!text) text = cookie(req, handlers::ticket_cookie);
  if (!text) return std::nullopt;
  auto t = tickets_.decode(*text);
  if (!t || t->room != room_id || !t->place) return std::nullopt;
  auto st = far_status(front, fronts_.fronts->taken_ms, *t->place, jitter_.next(), window_);
  if (!st) return std::nullopt;
  json_object body;
  handlers::status_fields(body, *st, t->lobby_index);
  handlers::stock_fields(body, front.stock_left, front.claim_ratio);
  return response::json(beast::http::status::ok, req.version(), body.done());
}

poll_desk::answered poll_desk::take(published_fronts fronts) {
  fronts_ = std::move(fronts);
  return std::exchange(answered_, answered{});
}

poll_desks::poll_desks(net::io_context& owner, const journal& rooms, const clock& clock, const ticket_codec& tickets,
                       status_window window, const ops::overload_ladder& overload,
                       std::function<void(const poll_desk::answered&)> count)
    : owner_(owner),
      rooms_(rooms),
      clock_(clock),
      tickets_(tickets),
      window_(window),
      overload_(overload),
      count_(std::move(count)),
      timer_(owner) {}

std::unique_ptr<near_answers> poll_desks::open(net::io_context& home) {
  auto seed = static_cast<std::uint64_t>(clock_.now_ms()) + desks_.size();
  auto desk = std::make_unique<poll_desk>(tickets_, window_, seed);
  desks_.push_back({desk.get(), &home});
  return desk;
}

void poll_desks::start() {
  if (desks_.empty()) return;
  publish();
}

void poll_desks::stop() {
  stopped_ = true;
  timer_.cancel();
}

void poll_desks::publish() {
  // Read before the fronts' clocks, so the time a desk counts since is never too short.
  auto at = std::chrono::steady_clock::now();
  published_fronts message{std::make_shared<const room_fronts>(fronts_of(rooms_, clock_.steady_ms(), clock_.now_ms())),
                           overload_.level() == ops::overload_level::normal, at};
  for (const auto& to : desks_) {
    // Runs on the desk's thread; its count comes back to the loop. Holds nothing of this
    // object there: the I/O threads outlive it at the end.
    net::post(*to.home, [desk = to.desk, message, &owner = owner_, count = &count_] {
      auto answered = desk->take(message);
      if (answered.status.count() == 0 && answered.frontier.count() == 0) return;
      net::post(owner, [count, answered = std::move(answered)] { (*count)(answered); });
    });
  }
  timer_.expires_after(period);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !stopped_) publish();
  });
}

}  // namespace foyer::http
