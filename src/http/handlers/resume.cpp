#include "http/handlers/resume.hpp"

#include <boost/beast/http/field.hpp>

#include <fmt/core.h>

#include "core/base/html.hpp"
#include "core/base/json.hpp"
#include "core/base/qr_svg.hpp"
#include "http/handlers/desk_runner.hpp"
#include "http/handlers/html_page.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

// Where the link is taken up: under the room's API path, to which the browser sends the
// foyer_ticket cookie it may hold (visitor.hpp), so that a place held is seen.
std::string api_path(std::string_view room_id, std::string_view token) {
  return fmt::format("/api/v1/rooms/{}/resume/{}", room_id, token);
}

response see_other(const request& req, const std::string& location) {
  response res(bhttp::status::see_other, req.version());
  res.keep_alive(req.keep_alive());
  res.set(bhttp::field::location, location);
  res.set(bhttp::field::cache_control, "no-store");
  // The token is in the location: not sent on as a referrer.
  res.set("Referrer-Policy", "no-referrer");
  return res;
}

}  // namespace

resume_links::resume_links(context& ctx, const visitor& visitors)
    : ctx_(ctx), visitors_(visitors), codec_(ctx.settings.resume_key) {}

task<response> resume_links::keep(const request& req, const room& r) {
  response failure;
  auto t = visitors_.presented_ticket(req, r.config().id, &failure);
  if (!t) co_return failure;
  co_return co_await with_link(req, r, *t, [&req](const std::string& path, const std::string& url) {
    json_object body;
    body.str("path", path).str("url", url);
    if (auto svg = qr_svg(url)) body.str("qr_svg", *svg);
    return json_response(req, bhttp::status::ok, body.done());
  });
}

task<response> resume_links::with_link(const request& req, const room& r, const ticket& t, link_answer answer) {
  std::string room_id = r.config().id;
  auto visitor = t.visitor;
  auto fresh = random_array<16>();
  auto decide = [this, visitor, fresh](const room& now) {
    return keep_place(now, visitor, fresh, ctx_.clock.steady_ms());
  };
  auto answer_link = [this, room_id, ticket_text = ctx_.tickets.encode(t), answer](const resume_link_answer& a) {
    std::string path = "/r/" + room_id + "/resume/" + codec_.mint(ticket_text, a.link);
    return answer(path, ctx_.settings.public_url.link(path));
  };
  // Built before the co_await: GCC 12 mishandles temporaries with destructors inside one.
  resume_step first = decide(r);
  co_return co_await carry(ctx_, req, std::move(first), decide_again(ctx_, room_id, decide), answer_link);
}

task<response> resume_links::revoke(const request& req, const room& r) {
  response failure;
  auto t = visitors_.presented_ticket(req, r.config().id, &failure);
  if (!t) co_return failure;
  auto visitor = t->visitor;
  auto decide = [this, visitor](const room& now) { return forget_link(now, visitor, ctx_.clock.steady_ms()); };
  auto answer = [&req](const std::monostate&) {
    response res(bhttp::status::no_content, req.version());
    res.set(bhttp::field::cache_control, "no-store");
    return res;
  };
  revoke_step first = decide(r);
  co_return co_await carry(ctx_, req, std::move(first), decide_again(ctx_, r.config().id, decide), answer);
}

response resume_links::forward(const request& req, const room& r, std::string_view token) const {
  auto opened = open_resume(r, codec_, ctx_.tickets, token);
  if (const auto* why = std::get_if<desk_refusal>(&opened)) return refused(req, *why);
  return see_other(req, api_path(r.config().id, token));
}

response resume_links::open(const request& req, const room& r, std::string_view token) const {
  auto opened = open_resume(r, codec_, ctx_.tickets, token);
  if (const auto* why = std::get_if<desk_refusal>(&opened)) return refused(req, *why);
  const auto& back = std::get<resumed>(opened);
  auto held = visitors_.presented_ticket(req, r.config().id, nullptr);
  if (!held || held->visitor == back.t.visitor) return take_up(req, r, back);
  // Another place is held here: a link opened by itself (a mail, another site's page) never
  // replaces it. The visitor is asked, and their answer is a same-site POST.
  const auto& c = r.config();
  auto main = fmt::format(
      "<p class=\"lead\">This browser already holds a place in this queue. The link you opened is for another "
      "place.</p>\n"
      "<p>Taking the link's place replaces the one this browser holds; that place stays with whoever else holds its "
      "ticket or its link.</p>\n"
      "<form method=\"post\" action=\"{}\"><button class=\"button\" type=\"submit\">Take the link's place"
      "</button></form>\n"
      "<p><a class=\"button\" href=\"/r/{}\">Keep this browser's place</a></p>\n",
      html_escape(api_path(c.id, token)), html_escape(c.id));
  auto res = html_page(req, bhttp::status::ok, c.name, "Replace your place?", main);
  res.set("Referrer-Policy", "no-referrer");
  return res;
}

response resume_links::confirm(const request& req, const room& r, std::string_view token) const {
  if (!from_own_origin(req, ctx_.settings.public_url.origin())) {
    return problem(req, errc::cross_site,
                   "This link's place can be taken from the queue's own page only: nothing was changed.");
  }
  auto opened = open_resume(r, codec_, ctx_.tickets, token);
  if (const auto* why = std::get_if<desk_refusal>(&opened)) return refused(req, *why);
  return take_up(req, r, std::get<resumed>(opened));
}

response resume_links::take_up(const request& req, const room& r, const resumed& back) const {
  // The page, without the token: it is not kept in the history.
  auto res = see_other(req, "/r/" + r.config().id + "?resumed=1");
  visitors_.set_ticket_cookie(res, r.config().id, back.text);
  return res;
}

}  // namespace foyer::http::handlers
