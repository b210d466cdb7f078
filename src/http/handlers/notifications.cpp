#include "http/handlers/notifications.hpp"

#include <fmt/core.h>

#include "core/base/html.hpp"
#include "core/base/json.hpp"
#include "http/handlers/html_page.hpp"
#include "http/problem.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;
namespace sj = simdjson::ondemand;

constexpr std::string_view body_shape =
    "The body must be {\"push\": {\"endpoint\", \"keys\": {\"p256dh\", \"auth\"}}} or {\"email\": \"...\"}.";

// The strings of `object` named in `wanted`, copied; false if one is not a string.
bool read_strings(sj::object& object, std::initializer_list<std::pair<std::string_view, std::string*>> wanted) {
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    for (auto [name, into] : wanted) {
      if (key != name) continue;
      std::string_view value;
      if (field.value().get_string().get(value)) return false;
      *into = value;
    }
  }
  return true;
}

// An opt-in under way of one network, held from its check until it ends.
class reservation {
 public:
  reservation(notifications::under_way_map& under_way, const notifications::network_bytes& network)
      : under_way_(under_way), network_(network) {
    ++under_way_[network_];
  }
  reservation(const reservation&) = delete;
  reservation& operator=(const reservation&) = delete;
  ~reservation() {
    auto it = under_way_.find(network_);
    if (--it->second == 0) under_way_.erase(it);
  }

 private:
  notifications::under_way_map& under_way_;
  notifications::network_bytes network_;
};

// A write of one record (a braced list in a co_await is one GCC 12 can't compile).
std::vector<record_change> one(record_change change) {
  std::vector<record_change> out;
  out.push_back(std::move(change));
  return out;
}

}  // namespace

std::variant<notify::contact, field_problem> parse_contact(sj::parser& parser, simdjson::padded_string_view text,
                                                           const std::vector<std::string>& private_push_hosts) {
  const field_problem bad_body{"", std::string(body_shape)};
  sj::document doc;
  sj::object object;
  if (parser.iterate(text).get(doc) || doc.get_object().get(object)) return bad_body;
  std::optional<notify::push_subscription> push;
  std::optional<std::string> email;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return bad_body;
    if (key == "email") {
      std::string_view value;
      if (field.value().get_string().get(value)) return field_problem{"email", "must be a string"};
      email = std::string(value);
    } else if (key == "push") {
      sj::object sub;
      if (field.value().get_object().get(sub)) return field_problem{"push", "must be an object"};
      notify::push_subscription s;
      for (auto member : sub) {
        std::string_view name;
        if (member.unescaped_key().get(name)) return bad_body;
        if (name == "endpoint") {
          std::string_view value;
          if (member.value().get_string().get(value)) return field_problem{"push.endpoint", "must be a string"};
          s.endpoint = value;
        } else if (name == "keys") {
          sj::object keys;
          if (member.value().get_object().get(keys) || !read_strings(keys, {{"p256dh", &s.p256dh}, {"auth", &s.auth}})) {
            return field_problem{"push.keys", "must be an object of strings p256dh and auth"};
          }
        }
      }
      push = std::move(s);
    } else {
      return field_problem{std::string(key), "is not a member of an opt-in"};
    }
  }
  if (push.has_value() == email.has_value()) return bad_body;
  if (push) {
    if (auto why = notify::check_push(*push, private_push_hosts)) return *why;
    return notify::contact{std::move(*push)};
  }
  if (auto why = notify::check_email(*email)) return *why;
  return notify::contact{notify::email_contact{std::move(*email), {}, {}}};
}

task<response> notifications::opt_in(const request& req, const peer& who, const room& r) {
  if (!ctx_.settings.contacts) {
    co_return problem(req, errc::notifications_off, "This server sends no notifications: no channel is configured.");
  }
  response failure;
  auto t = tickets_.presented_ticket(req, r.config().id, &failure);
  if (!t) co_return failure;
  auto parsed = parse_contact(ctx_.json_parser, padded(ctx_, req.body()), ctx_.settings.private_push_hosts);
  if (auto* why = std::get_if<field_problem>(&parsed)) {
    // The detail names the field, never the value: an address is not echoed anywhere.
    auto detail = why->field.empty() ? why->message : fmt::format("{} {}.", why->field, why->message);
    co_return problem(req, errc::bad_contact, detail, {{"field", json_quote(why->field)}});
  }
  auto c = std::get<notify::contact>(std::move(parsed));
  auto ch = notify::channel_of(c);
  if (!ctx_.settings.notify_channels.has(ch)) {
    co_return problem(req, errc::notifications_off,
                      fmt::format("This server sends no {} notifications.", notify::to_string(ch)));
  }
  auto network = network_of(tickets_.client_address(req, who));
  auto now = static_cast<std::uint64_t>(ctx_.clock.steady_ms());
  auto in_flight = under_way_.find(network.bytes);
  auto reserved_already = in_flight == under_way_.end() ? 0 : in_flight->second;
  if (opt_ins_.joins(network, now) + reserved_already >= ctx_.settings.opt_in_pressure.pressure_threshold) {
    co_return problem(req, errc::too_many_opt_ins,
                      "This network asked for notices as often as it may for now. Try again in a minute.");
  }
  // Reserved before anything is awaited; given back however this ends (counted in opt_ins_ if taken).
  reservation reserved(under_way_, network.bytes);
  auto room_id = r.config().id;
  auto visitor = t->visitor;
  auto place = t->place;
  auto lobby_index = t->lobby_index;
  auto& book = *ctx_.settings.contacts;
  auto refused = [&](notify::opt_in_refusal why) {
    if (why == notify::opt_in_refusal::address_taken) {
      return problem(req, errc::contact_taken,
                     "This ticket gave another address in this room: one address per ticket. Opt out and keep it.");
    }
    return problem(req, errc::too_many_contacts, "This room takes no more notification requests for now.");
  };
  // Refused before anything is made for it (the resume link below).
  if (auto decided = book.decide_add(room_id, visitor, place, lobby_index, c); decided.refused) {
    co_return refused(*decided.refused);
  }
  if (ch == notify::channel::email) {
    // The mail carries the visitor's resume link: made (durably) first.
    std::optional<std::string> link;
    auto no_link = co_await links_.with_link(req, r, *t, [&](const std::string&, const std::string& url) {
      link = url;
      return response{};  // not sent: the contact is kept below
    });
    if (!link) co_return no_link;
    auto& email = std::get<notify::email_contact>(c);
    email.link = std::move(*link);
    if (ctx_.settings.confirm_email) {
      // The confirmation's link, at the server's public address as the resume link is.
      email.confirm_link = ctx_.settings.public_url.link(book.confirm_path(room_id, email.address, visitor));
    }
  }
  // Decided on the book as it is now (the link's write took a while), written, then applied.
  auto decided = book.decide_add(room_id, visitor, place, lobby_index, c);
  if (decided.refused) co_return refused(*decided.refused);
  if (decided.write) {
    if (!co_await durable(one(*decided.write))) co_return unavailable(req);
    if (!book.add(room_id, visitor, place, lobby_index, std::move(c))) {
      // The book changed while the record was written: the store is brought back to it.
      book.unwritten({*decided.write});
      co_return refused(notify::opt_in_refusal::room_full);
    }
    opt_ins_.record(network, static_cast<std::uint64_t>(ctx_.clock.steady_ms()));
  }
  co_return json_response(req, bhttp::status::created,
                          json_object().str("channel", notify::to_string(ch)).boolean("opted_in", true).done());
}

task<bool> notifications::durable(std::vector<record_change> changes) {
  auto start = [&ctx = ctx_, changes = std::move(changes)](auto done) mutable {
    ctx.store.write_contacts(std::move(changes), done);
  };
  auto ec = co_await await_callback<std::error_code>(std::move(start));
  co_return !ec;
}

task<response> notifications::opt_out(const request& req, const room& r) {
  if (!ctx_.settings.contacts) {
    co_return problem(req, errc::notifications_off, "This server sends no notifications: no channel is configured.");
  }
  response failure;
  auto t = tickets_.presented_ticket(req, r.config().id, &failure);
  if (!t) co_return failure;
  auto room_id = r.config().id;
  auto visitor = t->visitor;
  auto decided = ctx_.settings.contacts->decide_remove(room_id, visitor);
  if (decided.write && !co_await durable(one(*decided.write))) co_return unavailable(req);
  bool had = ctx_.settings.contacts->remove(room_id, visitor);
  co_return json_response(req, bhttp::status::ok, json_object().boolean("opted_out", had).done());
}

response notifications::confirm_page(const request& req, const room& r, std::string_view token) const {
  const auto* book = ctx_.settings.contacts;
  if (!book || !book->decide_confirm(r.config().id, token)) return not_confirmable(req);
  // Opening the link changes nothing (mail scanners open links): the button does.
  auto main = fmt::format(
      "<p class=\"lead\">Someone waiting in {} asked to be told at this address when their turn comes.</p>\n"
      "<form method=\"post\"><button class=\"button\" type=\"submit\">Yes, send me the notices</button></form>\n"
      "<p>This confirms that one request only. If it was not you, close this page: nothing more will be "
      "sent for it.</p>\n",
      html_escape(r.config().name));
  return html_page(req, bhttp::status::ok, r.config().name, "Confirm notices", main);
}

task<response> notifications::confirm(const request& req, const room& r, std::string token) {
  auto* book = ctx_.settings.contacts;
  auto room_id = r.config().id;
  auto writes = book ? book->decide_confirm(room_id, token) : std::nullopt;
  if (!writes) co_return not_confirmable(req);
  if (!writes->empty() && !co_await durable(std::move(*writes))) co_return unavailable(req);
  book->confirm(room_id, token);
  auto main = fmt::format("<p class=\"lead\">You will be told at this address when your turn at {} comes.</p>\n",
                          html_escape(r.config().name));
  co_return html_page(req, bhttp::status::ok, r.config().name, "Notices confirmed", main);
}

response notifications::not_confirmable(const request& req) const {
  return problem(req, errc::invalid_confirmation_link,
                 "This confirmation link is not one this room made, or the request it confirms is over "
                 "(opted out, told, or the room ended).");
}

}  // namespace foyer::http::handlers
