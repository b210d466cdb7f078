#include "http/handlers/resume.hpp"

#include <boost/beast/http/field.hpp>

#include "core/base/json.hpp"
#include "core/base/qr_svg.hpp"
#include "http/handlers/desk_runner.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

// The longest Host taken into a link: a DNS name and a port.
constexpr std::size_t max_host = 260;

// The origin the visitor reached this server by, for a link they can open elsewhere:
// https behind the secure cookies' HTTPS. None if the Host field is not a plain host[:port].
std::optional<std::string> origin_of(const request& req, bool secure) {
  std::string_view host = req[bhttp::field::host];
  if (host.empty() || host.size() > max_host ||
      host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]") !=
          std::string_view::npos) {
    return std::nullopt;
  }
  std::string origin = secure ? "https://" : "http://";
  origin += host;
  return origin;
}

}  // namespace

resume_links::resume_links(context& ctx, const visitor& visitors)
    : ctx_(ctx), visitors_(visitors), codec_(ctx.settings.resume_key) {}

task<response> resume_links::keep(const request& req, const room& r) {
  response failure;
  auto t = visitors_.presented_ticket(req, r.config().id, &failure);
  if (!t) co_return failure;
  co_return co_await with_link(req, r, *t, [&req](const std::string& path, const std::optional<std::string>& url) {
    json_object body;
    body.str("path", path);
    if (url) {
      body.str("url", *url);
      if (auto svg = qr_svg(*url)) body.str("qr_svg", *svg);
    }
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
  auto answer_link = [this, &req, room_id, ticket_text = ctx_.tickets.encode(t), answer](const resume_link_answer& a) {
    std::string path = "/r/" + room_id + "/resume/" + codec_.mint(ticket_text, a.link);
    auto origin = origin_of(req, ctx_.settings.secure_cookies);
    return answer(path, origin ? std::optional(*origin + path) : std::nullopt);
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

response resume_links::open(const request& req, const room& r, std::string_view token) const {
  auto opened = open_resume(r, codec_, ctx_.tickets, token);
  if (const auto* why = std::get_if<desk_refusal>(&opened)) return refused(req, *why);
  const auto& back = std::get<resumed>(opened);
  response res(bhttp::status::see_other, req.version());
  res.keep_alive(req.keep_alive());
  // The page, without the token: it is not kept in the history, nor sent on as a referrer.
  res.set(bhttp::field::location, "/r/" + r.config().id + "?resumed=1");
  res.set(bhttp::field::cache_control, "no-store");
  res.set("Referrer-Policy", "no-referrer");
  visitors_.set_ticket_cookie(res, r.config().id, back.text);
  return res;
}

std::optional<std::string> resume_links::url_for(const request& req, std::string_view path) const {
  auto origin = origin_of(req, ctx_.settings.secure_cookies);
  if (!origin) return std::nullopt;
  return *origin + std::string(path);
}

}  // namespace foyer::http::handlers
