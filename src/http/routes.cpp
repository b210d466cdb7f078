#include "http/routes.hpp"

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <utility>

#include <fmt/core.h>

#include "http/handlers/admin.hpp"
#include "http/handlers/holds.hpp"
#include "http/handlers/ledger.hpp"
#include "http/handlers/ops.hpp"
#include "http/handlers/room.hpp"
#include "http/handlers/site.hpp"
#include "http/web_assets.hpp"

namespace foyer::http {
namespace {

using verb = router::verb;

// A handler that answers at once: f(req, params) gives the response.
template <typename F>
route_handler at_once(F f) {
  return [f = std::move(f)](request& req, const peer&, route_params p) -> task<response> { co_return f(req, p); };
}

// A handler of the room `find` gives for a request's parameters, or 404 unknown_room:
// f(req, who, room, params) gives the response, or a task of it. A task is returned as it
// is, without a coroutine frame around it; an answer at once is made in this coroutine's
// frame, as a poll's is.
template <typename Find, typename F>
route_handler with_room(Find find, F f) {
  using found = std::remove_pointer_t<std::invoke_result_t<Find&, route_params&>>;
  if constexpr (std::is_same_v<std::invoke_result_t<F&, request&, const peer&, found&, route_params&>, response>) {
    return [find = std::move(find), f = std::move(f)](request& req, const peer& who, route_params p) -> task<response> {
      auto* r = find(p);
      if (!r) co_return unknown_room(req, p["room"]);
      co_return f(req, who, *r, p);
    };
  } else {
    return [find = std::move(find), f = std::move(f)](request& req, const peer& who, route_params p) -> task<response> {
      auto* r = find(p);
      if (!r) return ready(unknown_room(req, p["room"]));
      return f(req, who, *r, p);
    };
  }
}

// A handler of the room named by {room}: f(req, who, room).
template <typename F>
route_handler in_room(context& ctx, F f) {
  return with_room([&ctx](route_params& p) { return ctx.rooms.find(p["room"]); },
                   [f = std::move(f)](request& req, const peer& who, room& r, route_params&) { return f(req, who, r); });
}

// A handler of the resume link {token} of the room named by {room}: (links.*f)(req, room, token).
route_handler with_token(context& ctx, const handlers::resume_links& links,
                         response (handlers::resume_links::*f)(const request&, const room&, std::string_view) const) {
  return with_room([&ctx](route_params& p) { return ctx.rooms.find(p["room"]); },
                   [&links, f](request& req, const peer&, const room& r, route_params& p) {
                     return (links.*f)(req, r, p["token"]);
                   });
}

// A handler of the hold named by {hold} in the room named by {room}: f(req, room, hold).
// A room removed with seats still answers about its holds for its late grace
// (journal::find_for_holds).
template <typename F>
route_handler of_hold(context& ctx, F f) {
  return with_room([&ctx](route_params& p) { return ctx.rooms.find_for_holds(p["room"], ctx.clock.steady_ms()); },
                   [f = std::move(f)](request& req, const peer&, const room& r, route_params& p) {
                     return f(req, r, p["hold"]);
                   });
}

// A handler of the code batch named by {batch} in the room named by {room}: f(req, room, batch).
template <typename F>
route_handler of_batch(context& ctx, F f) {
  return with_room([&ctx](route_params& p) -> const room* { return ctx.rooms.find(p["room"]); },
                   [f = std::move(f)](request& req, const peer&, const room& r, route_params& p) {
                     return f(req, r, p["batch"]);
                   });
}

// The polls, which the I/O threads' desks answer too.
constexpr std::string_view status_pattern = "/api/v1/rooms/{room}/status";
constexpr std::string_view frontier_pattern = "/api/v1/rooms/{room}/frontier";

}  // namespace

routes::routes(journal& rooms, event_store& store, const ticket_codec& tickets, const pass::keyring& keys,
               const clock& clock, join_price& price, rate_controller& rates, api_settings settings,
               ops::overload_ladder& overload, const ledger::publisher& ledger, ops::metrics_registry& metrics)
    : ctx_{rooms, store, tickets, keys, clock, price, rates, settings, join_desk(price, settings.account_hint_secret, {settings.invite_keys, settings.account_key}),
           overload, ledger, pass::room_gates(keys.jwks_json(), settings.issuer),
           pass::pass_budget(settings.hold_requests_per_minute)},
      visitor_(ctx_),
      resume_(ctx_, visitor_),
      notifications_(ctx_, visitor_, resume_),
      plain_(ctx_, visitor_),
      pages_(rooms) {
  auto& c = ctx_;
  auto& r = router_;

  // Visitors. The status poll comes first: it is most of the traffic.
  r.add({verb::get}, status_pattern,
        in_room(c, [this](request& req, const peer&, room& rm) { return visitor_.status(req, rm); }));
  r.add({verb::post}, "/api/v1/rooms/{room}/challenge",
        in_room(c, [this](request& req, const peer& who, room& rm) { return visitor_.challenge(req, rm, who); }));
  r.add({verb::post}, "/api/v1/rooms/{room}/join",
        in_room(c, [this](request& req, const peer& who, room& rm) { return visitor_.join(req, rm, who); }));
  r.add({verb::post}, "/api/v1/rooms/{room}/notifications",
        in_room(c, [this](request& req, const peer& who, room& rm) { return notifications_.opt_in(req, who, rm); }));
  r.add({verb::delete_}, "/api/v1/rooms/{room}/notifications",
        in_room(c, [this](request& req, const peer&, room& rm) { return notifications_.opt_out(req, rm); }));
  r.add({verb::post}, "/api/v1/rooms/{room}/resume-link",
        in_room(c, [this](request& req, const peer&, room& rm) { return resume_.keep(req, rm); }));
  r.add({verb::delete_}, "/api/v1/rooms/{room}/resume-link",
        in_room(c, [this](request& req, const peer&, room& rm) { return resume_.revoke(req, rm); }));
  r.add({verb::get}, "/api/v1/rooms/{room}/resume/{token}", with_token(c, resume_, &handlers::resume_links::open));
  r.add({verb::post}, "/api/v1/rooms/{room}/resume/{token}", with_token(c, resume_, &handlers::resume_links::confirm));
  // The queue without JavaScript (handlers/plain_queue.hpp).
  r.add({verb::get}, "/r/{room}/plain",
        at_once([this](const request& req, const route_params& p) { return plain_.form(req, p["room"]); }));
  r.add({verb::post}, "/api/v1/rooms/{room}/plain",
        in_room(c, [this](request& req, const peer& who, room& rm) { return plain_.join(req, rm, who); }));
  r.add({verb::get}, "/api/v1/rooms/{room}/plain",
        in_room(c, [this](request& req, const peer&, room& rm) { return plain_.wait(req, rm); }));
  r.add({verb::get}, "/api/v1/rooms/{room}/plain/pass",
        in_room(c, [this](request& req, const peer&, room& rm) { return plain_.pass(req, rm); }));

  // Rooms, as anyone may read them.
  r.add({verb::get}, "/api/v1/rooms", at_once([&c](const request& req, auto&) { return handlers::rooms_list(c, req); }));
  r.add({verb::get}, "/api/v1/rooms/{room}",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::room_info(c, req, rm); }));
  r.add({verb::get}, frontier_pattern,
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::frontier(c, req, rm); }));
  r.add({verb::get}, "/api/v1/rooms/{room}/lottery",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::lottery(c, req, rm); }));
  r.add({verb::get}, "/api/v1/rooms/{room}/lottery/proof",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::lottery_proof(c, req, rm); }));

  // The site: its token is checked by each call.
  // The public record of the draws.
  r.add({verb::get}, "/api/v1/ledger", at_once([&c](const request& req, auto&) { return handlers::ledger_info(c, req); }));
  r.add({verb::get}, "/ledger/checkpoint",
        at_once([&c](const request& req, auto&) { return handlers::ledger_checkpoint(c, req); }));
  // A lane's lobby under the room's, before the room's: the first route that matches answers.
  // Each finds the room and the lane ("" for the room's own lobby) before it answers.
  auto in_lobby = [&c](auto answer) -> route_handler {
    return [&c, answer](request& req, const peer&, route_params p) -> task<response> {
      const room* rm = c.rooms.find(p["room"]);
      if (!rm) co_return unknown_room(req, p["room"]);
      response refusal;
      auto lane = handlers::drawing_lane(req, *rm, p["lane"], refusal);
      if (!lane) co_return refusal;
      co_return co_await answer(req, *rm, *lane, p);
    };
  };
  for (std::string_view lobby : {"/ledger/lobbies/{room}/lanes/{lane}", "/ledger/lobbies/{room}"}) {
    r.add({verb::get}, fmt::format("{}/checkpoint", lobby),
          in_lobby([&c](request& req, const room& rm, std::uint8_t lane, route_params) -> task<response> {
            co_return handlers::lobby_checkpoint(c, req, rm, lane);
          }));
    r.add({verb::get}, fmt::format("{}/proof/{{index}}", lobby),
          in_lobby([&c](request& req, const room& rm, std::uint8_t lane, route_params p) {
            return handlers::lobby_proof(c, req, rm, lane, p["index"]);
          }));
    r.add({verb::get}, fmt::format("{}/{{path...}}", lobby),
          in_lobby([&c](request& req, const room& rm, std::uint8_t lane, route_params p) {
            return handlers::lobby_file(c, req, rm, lane, p["path"]);
          }));
  }
  // After the lobbies: the first route that has a path answers it.
  r.add({verb::get}, "/ledger/{path...}",
        at_once([&c](const request& req, const route_params& p) { return handlers::ledger_file(c, req, p["path"]); }));

  r.add({verb::post}, "/api/v1/rooms/{room}/stock",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::report_stock(c, req, rm); }));
  r.add({verb::post}, "/api/v1/rooms/{room}/passes/done",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::report_done(c, req, rm); }));
  r.add({verb::post}, "/api/v1/rooms/{room}/signals",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::report_signals(c, req, rm); }));

  // Holds on the seats: the visitor's pass or the site's token, checked by each call.
  r.add({verb::post}, "/api/v1/rooms/{room}/holds",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::place_hold(c, req, rm); }));
  r.add({verb::get}, "/api/v1/rooms/{room}/holds/{hold}",
        of_hold(c, [&c](request& req, const room& rm, std::string_view hold) { return handlers::get_hold(c, req, rm, hold); }));
  for (auto [action, kind] : {std::pair{"payment-pending", hold_action::extend}, std::pair{"confirm", hold_action::confirm},
                              std::pair{"release", hold_action::release}}) {
    r.add({verb::post}, fmt::format("/api/v1/rooms/{{room}}/holds/{{hold}}/{}", action),
          of_hold(c, [&c, kind = kind](request& req, const room& rm, std::string_view hold) {
            return handlers::act_on_hold(c, req, rm, hold, kind);
          }));
  }
  r.add({verb::get}, "/api/v1/rooms/{room}/inventory",
        in_room(c, [](request& req, const peer&, room& rm) { return handlers::inventory(req, rm); }));

  // Operators: the token is checked before any path below is matched.
  r.guard("/api/v1/admin", [&c](const request& req) { return handlers::admin_check(c, req); });
  r.exact("/api/v1/admin");
  r.add({verb::get}, "/api/v1/admin/rooms",
        at_once([&c](const request& req, auto&) { return handlers::admin_rooms(c, req); }));
  r.add({verb::post}, "/api/v1/admin/rooms",
        [&c](request& req, const peer&, route_params) { return handlers::create_room(c, req); });
  r.add({verb::get}, "/api/v1/admin/rooms/{room}",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::admin_room(c, req, rm); }));
  r.add({verb::patch}, "/api/v1/admin/rooms/{room}",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::patch_room(c, req, rm); }));
  r.add({verb::delete_}, "/api/v1/admin/rooms/{room}",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::delete_room(c, req, rm); }));
  r.add({verb::get}, "/api/v1/admin/rooms/{room}/audit",
        [&c](request& req, const peer&, route_params p) { return handlers::audit(c, req, p["room"]); });
  for (auto [action, target] : {std::pair{"pause", room_state::paused}, std::pair{"resume", room_state::open},
                                std::pair{"sold-out", room_state::sold_out}, std::pair{"close", room_state::closed}}) {
    r.add({verb::post}, fmt::format("/api/v1/admin/rooms/{{room}}/{}", action),
          in_room(c, [&c, target = target](request& req, const peer&, room& rm) {
            return handlers::change_state(c, req, rm, target);
          }));
  }
  r.add({verb::post}, "/api/v1/admin/rooms/{room}/close-lobby",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::close_lobby(c, req, rm); }));
  r.add({verb::post}, "/api/v1/admin/rooms/{room}/beacon",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::supply_beacon(c, req, rm); }));
  r.add({verb::post}, "/api/v1/admin/rooms/{room}/inventory/recount",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::recount_seats(c, req, rm); }));
  r.add({verb::post}, "/api/v1/admin/rooms/{room}/codes",
        in_room(c, [&c](request& req, const peer&, room& rm) { return handlers::add_codes(c, req, rm); }));
  r.add({verb::get}, "/api/v1/admin/rooms/{room}/codes",
        in_room(c, [](request& req, const peer&, room& rm) { return handlers::code_batches(req, rm); }));
  r.add({verb::get}, "/api/v1/admin/rooms/{room}/codes/{batch}",
        of_batch(c, [&c](request& req, const room& rm, std::string_view batch) {
          return handlers::export_codes(c, req, rm, batch);
        }));
  r.add({verb::delete_}, "/api/v1/admin/rooms/{room}/codes/{batch}",
        of_batch(c, [&c](request& req, const room& rm, std::string_view batch) {
          return handlers::revoke_codes(c, req, rm, batch);
        }));
  r.add({verb::get}, "/api/v1/admin/ops", at_once([&c](const request& req, auto&) { return handlers::ops_status(c, req); }));

  // Operations.
  r.add({verb::get}, "/.well-known/jwks.json", at_once([&c](const request& req, auto&) { return handlers::jwks(c, req); }));
  r.add({verb::get}, "/.well-known/foyer.json",
        at_once([&c](const request& req, auto&) { return handlers::discovery(c, req); }));
  r.add({verb::get}, "/metrics",
        at_once([&metrics](const request& req, auto&) { return handlers::metrics(metrics, req); }));
  // For this machine only behind the nginx file `foyer init` writes: its rule must see every
  // spelling answered here.
  r.exact("/metrics");
  r.add({verb::get}, "/healthz", at_once([](const request& req, auto&) { return handlers::healthz(req); }));
  r.add({verb::get}, "/readyz", at_once([&c](const request& req, auto&) { return handlers::readyz(c, req); }));
  // The API's description (docs/openapi.yaml) and the lottery's specification
  // (docs/fairness.md, which the verify page links to), as they were built in.
  for (const auto& doc : api_documents()) {
    const bool specification = doc.path.ends_with(".md");
    r.add({verb::get}, fmt::format("{}{}", specification ? "/docs" : "/api/v1", doc.path),
          at_once([body = doc.body, type = specification ? "text/markdown; charset=utf-8" : "application/yaml"](
                      const request& req, auto&) { return private_text(req, type, std::string(body)); }));
  }

  // Pages, and every embedded file at its own path.
  r.add({verb::get}, "/", at_once([this](const request& req, auto&) { return pages_.front(req); }));
  r.add({verb::get}, "/r/{room}",
        at_once([this](const request& req, const route_params& p) { return pages_.room_page(req, p["room"]); }));
  r.add({verb::get}, "/r/{room}/notify/confirm/{token}", [this, &c](request& req, const peer&, route_params p) -> task<response> {
    room* rm = c.rooms.find(p["room"]);
    if (!rm) co_return unknown_room(req, p["room"]);
    co_return notifications_.confirm_page(req, *rm, p["token"]);
  });
  r.add({verb::post}, "/r/{room}/notify/confirm/{token}", [this, &c](request& req, const peer&, route_params p) -> task<response> {
    room* rm = c.rooms.find(p["room"]);
    if (!rm) co_return unknown_room(req, p["room"]);
    co_return co_await notifications_.confirm(req, *rm, std::string(p["token"]));
  });
  r.add({verb::get}, "/r/{room}/resume/{token}", with_token(c, resume_, &handlers::resume_links::forward));
  for (std::string_view page : {"/verify", "/admin", "/welcome"}) {
    r.add({verb::get}, page, at_once([this, file = fmt::format("{}.html", page)](const request& req, auto&) {
            return pages_.file(req, file);
          }));
  }
  // Browsers ask for /favicon.ico whatever the page links: the same drawing, as SVG.
  r.add({verb::get}, "/favicon.ico",
        at_once([this](const request& req, auto&) { return pages_.file(req, "/favicon.svg"); }));
  for (const auto& asset : web_assets()) {
    r.add({verb::get}, asset.path,
          at_once([this, path = asset.path](const request& req, auto&) { return pages_.file(req, path); }));
  }

  auto patterns = router_.patterns();
  auto index_of = [&patterns](std::string_view pattern) {
    return static_cast<std::size_t>(std::find(patterns.begin(), patterns.end(), pattern) - patterns.begin());
  };
  status_route_ = index_of(status_pattern);
  frontier_route_ = index_of(frontier_pattern);
  http_metrics_ = http_metrics(std::move(patterns));
  metrics.add([this](ops::metrics_writer& w) { http_metrics_.collect(w); });
  metrics.add([&c](ops::metrics_writer& w) { handlers::collect_rooms(c, w); });
}

void routes::count_near_polls(const ops::histogram& status, const ops::histogram& frontier) {
  http_metrics_.add(status_route_, 200, status);
  http_metrics_.add(frontier_route_, 200, frontier);
}

task<response> routes::handle(request& req, const peer& who) {
  const auto started = std::chrono::steady_clock::now();
  std::size_t route = router::unmatched;
  auto answer = router_.handle(req, who, &route);
  response res = co_await std::move(answer);
  http_metrics_.observe(route, res.result_int(), std::chrono::steady_clock::now() - started);
  co_return res;
}

}  // namespace foyer::http
