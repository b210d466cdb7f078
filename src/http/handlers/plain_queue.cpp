#include "http/handlers/plain_queue.hpp"

#include <algorithm>

#include <boost/beast/http/field.hpp>
#include <fmt/format.h>

#include "core/base/html.hpp"
#include "core/base/time_text.hpp"
#include "core/rooms/no_script.hpp"
#include "core/rooms/status.hpp"
#include "http/handlers/desk_runner.hpp"
#include "http/handlers/html_page.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"
#include "http/static_files.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

constexpr std::string_view not_here = "This room has no queue for visitors without JavaScript.";

bool wants_html(const request& req) {
  return std::string_view(req[bhttp::field::accept]).find("text/html") != std::string_view::npos;
}

std::string wait_path(std::string_view room_id) { return fmt::format("/api/v1/rooms/{}/plain", room_id); }
std::string form_path(std::string_view room_id) { return fmt::format("/r/{}/plain", room_id); }

// A refusal as a page for a browser, with a link `back`; else as a problem.
response refused_page(const request& req, const desk_refusal& why, std::string_view back) {
  auto res = refused(req, why);
  if (!wants_html(req)) return res;
  auto main = fmt::format("<p class=\"lead\">{}</p>\n<p><a class=\"button\" href=\"{}\">Back to the queue</a></p>\n",
                          html_escape(why.detail), html_escape(back));
  auto out = html_page(req, res.result(), "", type_of(why.code).title, main);
  if (why.retry_after_s) out.set(bhttp::field::retry_after, std::to_string(*why.retry_after_s));
  return out;
}

// A join's refusal: back to the waiting page, which sends a visitor without a ticket on
// to the form (relative, as this is answered at the waiting page's path).
response refused_page(const request& req, const desk_refusal& why) { return refused_page(req, why, "plain"); }

response refused_page(const request& req, errc code, std::string_view detail, std::string_view back = "plain") {
  return refused_page(req, desk_refusal{code, std::string(detail)}, back);
}

response see_other(const request& req, std::string_view location) {
  response res(bhttp::status::see_other, req.version());
  res.set(bhttp::field::location, location);
  res.set(bhttp::field::cache_control, "no-store");
  return res;
}

// What the lane's share means for the visitor, honestly.
std::string share_text(const lane_config& lane) {
  if (lane.share == 0) {
    return "It admits visitors whenever the room's other lanes have nobody waiting.";
  }
  auto percent = static_cast<double>(lane.share) * 100 / share_scale;
  return fmt::format("It admits {:.3g} % of the room's visitors while the other lanes have visitors waiting, and more "
                     "when they have none.",
                     percent);
}

}  // namespace

response plain_queue::form(const request& req, std::string_view room_id) const {
  const room* r = ctx_.rooms.find(room_id);
  if (!r) return refused_page(req, errc::unknown_room, fmt::format("No waiting room is called '{}'.", room_id), "/");
  const auto& c = r->config();
  const auto* lane = no_script_lane(c.lanes);
  if (!lane) return refused_page(req, errc::not_found, not_here, fmt::format("/r/{}", c.id));
  std::string main;
  if (!r->accepts_joins()) {
    main = "<p class=\"lead\">This room takes no new visitors.</p>\n";
  } else {
    main = fmt::format(
        "<p class=\"lead\">Join the queue here if your browser runs no JavaScript. Your place is kept in a cookie; "
        "the waiting page reloads itself, and when it is your turn it shows a link to the site.</p>\n"
        "<p>Visitors who join here wait in the lane \u201c{}\u201d. {} Each network may join here {} times a minute.</p>\n"
        "<form method=\"post\" action=\"{}\"><button class=\"button\" type=\"submit\">Join the queue</button></form>\n",
        html_escape(lane->name), share_text(*lane), join_desk::no_script_joins_per_minute, wait_path(c.id));
  }
  main += fmt::format("<p class=\"small\"><a href=\"/r/{}\">The waiting room with JavaScript</a></p>\n", c.id);
  return html_page(req, bhttp::status::ok, c.name, c.name, main);
}

task<response> plain_queue::join(const request& req, const room& r, const peer& who) {
  if (!no_script_lane(r.config().lanes)) co_return refused_page(req, errc::not_found, not_here);
  // Another site's form would join this browser and replace the place it holds.
  if (!from_own_origin(req, ctx_.settings.public_url.origin())) {
    co_return refused_page(req, errc::cross_site,
                           "This form was sent from another page than the queue's own: nothing was changed. Join from the queue's own page.",
                           form_path(r.config().id));
  }
  if (ctx_.overload.refuses_join()) {
    co_return refused_page(req, errc::overloaded, "Many visitors at once: no new visitors for now; try again later.");
  }
  join_request jr;
  jr.room_id = r.config().id;
  jr.no_script = true;
  // The form sends nothing the join needs: its body is not read.
  jr.presented = visitors_.presented_ticket(req, jr.room_id, nullptr);
  jr.address = visitors_.client_address(req, who);
  random_bytes(jr.ids);
  join_step first = ctx_.desk.decide(ctx_.rooms, jr, ctx_.clock.now_ms());
  auto finish = [this](const join_commit& c, std::error_code ec, const join_outcome& outcome) {
    return ctx_.desk.finish(ctx_.rooms, c, ec, outcome, ctx_.clock.now_ms());
  };
  auto answer = [this, &req, &jr](const join_entry& entry) {
    auto res = see_other(req, wait_path(jr.room_id));
    if (!entry.existing) visitors_.set_ticket_cookie(res, jr.room_id, ctx_.tickets.encode(entry.t));
    return res;
  };
  co_return co_await carry(ctx_, req, std::move(first), finish, answer, refused_page);
}

response plain_queue::wait(const request& req, const room& r) {
  const auto& c = r.config();
  if (!no_script_lane(c.lanes)) return refused_page(req, errc::not_found, not_here);
  // No ticket yet: the form.
  if (!bearer(req) && !cookie(req, "foyer_ticket")) return see_other(req, form_path(c.id));
  auto t = visitors_.presented_ticket(req, c.id, nullptr);
  if (!t) {
    return refused_page(req, errc::invalid_ticket, "Your ticket for this room is not good any more: join again.",
                        form_path(c.id));
  }
  auto reissued = visitors_.place_after_draw(*t, r);
  auto now = ctx_.clock.steady_ms();
  auto st = status_of(r, t->place, now, visitors_.jitter(), ctx_.settings.status_within, t->lobby_index);
  std::string main;
  std::optional<std::uint32_t> refresh = std::max<std::uint32_t>(1, (st.poll_after_ms + 999) / 1000);
  std::string_view title = "You are in the queue";
  if (st.state == "admitted") {
    refresh.reset();
    if (r.pass_live_until(*t->place, now) || r.claimable(*t->place, now)) {
      title = "It is your turn";
      main = fmt::format("<p class=\"lead\">Go on to the site now: your pass is made when you follow the link.</p>\n"
                         "<p><a class=\"button\" href=\"{}/pass\">Continue to {}</a></p>\n",
                         wait_path(c.id), html_escape(c.name));
    } else {
      title = "Your turn has passed";
      main = "<p class=\"lead\">Your pass ended, or it was not taken in time.</p>\n";
    }
  } else if (st.state == "lobby" || st.state == "drawing") {
    title = "You are in the draw";
    auto closes = r.lobby_closes_at_ms();
    main = closes ? fmt::format("<p class=\"lead\">Places are drawn by lottery at {}. This page reloads itself.</p>\n",
                                html_escape(format_rfc3339_ms(*closes)))
                  : std::string("<p class=\"lead\">Places are being drawn by lottery. This page reloads itself.</p>\n");
  } else if (st.state == "sold_out" || st.state == "closed") {
    refresh.reset();
    title = st.state == "sold_out" ? "Sold out" : "The room is closed";
    main = "<p class=\"lead\">Nobody more is let through from this queue.</p>\n";
  } else {
    main = "<p class=\"lead\">Keep this page open: it reloads itself, and shows a link when it is your turn.</p>\n"
           "<dl class=\"figures\">\n";
    if (st.lane) main += fmt::format("<div><dt>Lane</dt><dd class=\"words\">{}</dd></div>\n", html_escape(*st.lane));
    if (st.place) main += fmt::format("<div><dt>Your place</dt><dd id=\"place\">{}</dd></div>\n", *st.place + 1);
    if (st.position) main += fmt::format("<div><dt>Ahead of you</dt><dd id=\"ahead\">{}</dd></div>\n", *st.position);
    if (st.eta_seconds) {
      main += fmt::format("<div><dt>Your wait</dt><dd class=\"words\">about {} min</dd></div>\n",
                          (*st.eta_seconds + 59) / 60);
    }
    main += "</dl>\n";
    if (st.state == "paused") main += "<p class=\"notice\">Admission is paused for now; your place is kept.</p>\n";
    if (st.held) main += "<p class=\"notice\">Admission waits for the site to have room; your place is kept.</p>\n";
  }
  auto res = html_page(req, bhttp::status::ok, c.name, title, main, refresh);
  if (reissued) visitors_.set_ticket_cookie(res, c.id, *reissued);
  return res;
}

response plain_queue::pass(const request& req, const room& r) {
  const auto& c = r.config();
  if (!no_script_lane(c.lanes)) return refused_page(req, errc::not_found, not_here);
  auto t = visitors_.presented_ticket(req, c.id, nullptr);
  auto now = ctx_.clock.steady_ms();
  auto st = t ? status_of(r, t->place, now, 0, ctx_.settings.status_within, t->lobby_index) : visitor_status{};
  auto until = st.state == "admitted" ? visitors_.pass_until(r, *t->place, *t, now) : std::nullopt;
  // Not (or no longer) admitted: the waiting page says where the visitor stands.
  if (!until) return see_other(req, wait_path(c.id));
  auto pass = visitors_.passes_.pass_for(ctx_.keys.pass_signer(), c.id, t->visitor, seconds(*until),
                                         seconds(ctx_.clock.now_ms()));
  return see_other(req, with_pass(c.target_url, pass));
}

}  // namespace foyer::http::handlers
