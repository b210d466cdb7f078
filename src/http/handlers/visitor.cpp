#include "http/handlers/visitor.hpp"

#include <array>

#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/range/iterator_range.hpp>
#include <fmt/core.h>

#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "core/gate/account_hint.hpp"
#include "core/inventory/hold_desk.hpp"
#include "core/rooms/status.hpp"
#include "http/handlers/desk_runner.hpp"
#include "http/handlers/room.hpp"
#include "http/handlers/poll_bodies.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"
#include "http/router.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

constexpr std::string_view ticket_cookie_max_age = "604800";  // seconds: a week
constexpr std::string_view overloaded_detail = "Many visitors at once: no new visitors for now; try again later.";

// The 410 of a room that takes no new visitors: its state is the code.
response no_joins(const request& req, const room& r, std::string_view detail) {
  return problem(req, r.state() == room_state::sold_out ? errc::sold_out : errc::closed, detail);
}

// Read from the socket's address as it is: formatting it to parse it again costs more
// than the rest of a challenge.
ip_address peer_address(const peer& who) {
  ip_address out;
  if (who.address.is_v4()) {
    auto bytes = who.address.to_v4().to_bytes();
    std::copy(bytes.begin(), bytes.end(), out.bytes.begin());
    return out;
  }
  return from_v6_bytes(who.address.to_v6().to_bytes());
}

}  // namespace

std::optional<join_body> parse_join_body(simdjson::ondemand::parser& parser, simdjson::padded_string_view text) {
  join_body body;
  if (text.length() == 0) return body;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  if (parser.iterate(text).get(doc) || doc.get_object().get(object)) return std::nullopt;
  for (auto field : object) {
    std::string_view key, value;
    if (field.unescaped_key().get(key) || field.value().get_string().get(value)) return std::nullopt;
    if (key == "challenge") body.challenge = value;
    else if (key == "nonce") body.nonce = value;
    else if (key == "account") body.account = value;
    else if (key == "account_hint") body.account_hint = value;
    else if (key == "code") body.code = value;
    else if (key == "invite") body.invite = value;
  }
  return body;
}

visitor::visitor(context& ctx)
    : ctx_(ctx), passes_(ctx.settings.issuer), jitter_(static_cast<std::uint64_t>(ctx.clock.now_ms())) {}

std::optional<ticket> visitor::presented_ticket(const request& req, std::string_view room_id,
                                                response* failure) const {
  // Without `failure` the caller only asks whether there is a good ticket: no answer is built.
  auto refuse = [&](errc code, std::string_view detail) -> std::optional<ticket> {
    if (failure) *failure = problem(req, code, detail);
    return std::nullopt;
  };
  auto text = bearer(req);
  if (!text) text = cookie(req, ticket_cookie);
  if (!text) {
    return refuse(errc::missing_ticket,
                  "Send your ticket as 'Authorization: Bearer <ticket>' or the foyer_ticket cookie.");
  }
  ticket_error why{};
  auto t = ctx_.tickets.decode(*text, &why);
  if (const room* r = t && t->room == room_id ? ctx_.rooms.find(room_id) : nullptr; r && !r->gave(*t)) {
    why = ticket_error::lost_in_restore;
    t.reset();
  }
  if (!t && why == ticket_error::lost_in_restore) {
    return refuse(errc::ticket_lost_in_restore,
                  "This server was restored from a backup taken before your ticket was issued, so it does not "
                  "hold your place: join again.");
  }
  if (!t) {
    return refuse(errc::invalid_ticket, why == ticket_error::forged
                                            ? "The ticket's signature does not match; it was altered or forged."
                                            : "The ticket is malformed or truncated.");
  }
  if (t->room != room_id) {
    return refuse(errc::ticket_for_other_room, failure ? fmt::format("This ticket is for room '{}'.", t->room) : "");
  }
  return t;
}

task<receipt::receipt> visitor::sign_receipt(receipt::receipt_fields fields) {
  auto executor = co_await net::this_coro::executor;
  auto start = [this, executor, fields = std::move(fields)](auto done) mutable {
    // The first receipt of a batch schedules the signing after the completions that
    // are already queued, so every join made durable by the same write shares it.
    if (pending_receipts_.empty()) net::post(executor, [this] { sign_pending_receipts(); });
    pending_receipts_.push_back({std::move(fields), done});
  };
  co_return co_await await_callback<receipt::receipt>(std::move(start));
}

void visitor::sign_pending_receipts() {
  auto pending = std::exchange(pending_receipts_, {});
  std::vector<receipt::receipt_fields> fields;
  fields.reserve(pending.size());
  for (auto& p : pending) fields.push_back(p.fields);
  const auto& key = ctx_.keys.active();
  auto signed_receipts = receipt::sign_batch(std::move(fields), key.secret, key.kid);
  for (std::size_t i = 0; i < pending.size(); ++i) pending[i].done(std::move(signed_receipts[i]));
}

response visitor::existing_entry(const request& req, const ticket& t, const room& r) {
  auto st = status_of(r, t.place, ctx_.clock.steady_ms(), jitter(), ctx_.settings.status_within, t.lobby_index);
  auto body = json_object()
                  .str("ticket", ctx_.tickets.encode(t))
                  .opt_num("place", st.place)
                  .opt_num("position", st.position)
                  .num("poll_after_ms", st.poll_after_ms)
                  .hex("visitor_id", t.visitor)
                  .boolean("existing", true);
  if (st.lane) body.str("lane", *st.lane);
  if (t.lobby_index) body.num("lobby_index", place_in_lane(*t.lobby_index)).hex("entrant_id", t.entrant);
  return json_response(req, bhttp::status::ok, body.done());
}

ip_address visitor::client_address(const request& req, const peer& who) const {
  auto address = peer_address(who);
  if (ctx_.settings.trusted_proxies.empty()) return address;
  // Several X-Forwarded-For fields are one list, in order (RFC 9110, 5.3).
  std::string forwarded_for;
  for (const auto& field : boost::make_iterator_range(req.equal_range("X-Forwarded-For"))) {
    if (!forwarded_for.empty()) forwarded_for += ',';
    forwarded_for.append(field.value().data(), field.value().size());
  }
  return forwarded_client(address, forwarded_for, ctx_.settings.trusted_proxies);
}

response visitor::challenge(const request& req, const room& r, const peer& who) {
  if (ctx_.overload.refuses_join()) return problem(req, errc::overloaded, overloaded_detail);
  auto address = client_address(req, who);
  if (!r.accepts_joins()) return no_joins(req, r, "This room takes no new visitors.");
  auto now = static_cast<std::uint64_t>(ctx_.clock.now_ms());
  return json_response(req, bhttp::status::ok, challenge_json(ctx_.price.mint(r.config().id, address, now)));
}

// Not a coroutine itself: the join's one frame is carry's.
task<response> visitor::join(const request& req, const room& r, const peer& who) {
  if (ctx_.overload.refuses_join()) return ready(problem(req, errc::overloaded, overloaded_detail));
  join_request jr;
  jr.room_id = r.config().id;
  // A visitor who already holds a ticket for this room gets it back, whatever the body.
  jr.presented = presented_ticket(req, jr.room_id, nullptr);
  // Outlives the decision: the request's fields are views into it.
  std::optional<join_body> parsed;
  if (!jr.presented) {
    parsed = parse_join_body(ctx_.json_parser, padded(ctx_, req.body()));
    if (!parsed) {
      return ready(problem(req, errc::bad_join_body,
                           "The body must be a JSON object: {\"challenge\", \"nonce\"} and optionally {\"account\", \"account_hint\"}, {\"code\"} or {\"invite\"}."));
    }
    jr.challenge = parsed->challenge;
    jr.nonce = parsed->nonce;
    jr.account = parsed->account;
    jr.account_hint = parsed->account_hint;
    jr.code = parsed->code;
    jr.invite = parsed->invite;
  }
  jr.address = client_address(req, who);
  // One read of the system's randomness for both ids: each read is a system call.
  random_bytes(jr.ids);
  auto finish = [this](const join_commit& c, std::error_code ec, const join_outcome& outcome) {
    return ctx_.desk.finish(ctx_.rooms, c, ec, outcome, ctx_.clock.now_ms());
  };
  auto answer = [this, &req, room_id = jr.room_id](const join_entry& entry) { return entered(req, room_id, entry); };
  return carry(ctx_, req, ctx_.desk.decide(ctx_.rooms, jr, ctx_.clock.now_ms()), finish, answer);
}

answer_or_task visitor::entered(const request& req, const std::string& room_id, const join_entry& entry) {
  // The room may have been removed while the join was written: found again by id.
  room* now = ctx_.rooms.find(room_id);
  if (!now) return unknown_room(req, room_id);
  if (entry.existing) return existing_entry(req, entry.t, *now);
  if (entry.t.lobby_index) return entered_lobby(req, room_id, entry.t);
  json_object body;
  auto ticket_text = entry_fields(body, *now, entry.t);
  return entry_answer(req, room_id, body, ticket_text);
}

visitor::text_span visitor::entry_fields(json_object& body, const room& r, const ticket& t) {
  auto st = status_of(r, t.place, ctx_.clock.steady_ms(), jitter(), ctx_.settings.status_within, t.lobby_index);
  text_span ticket_text;
  body.str_written("ticket", [&](std::string& out) {
    ticket_text.at = out.size();
    ctx_.tickets.encode_into(out, t);
    ticket_text.size = out.size() - ticket_text.at;
  });
  body.opt_num("place", st.place)
      .opt_num("position", st.position)
      .num("poll_after_ms", st.poll_after_ms)
      .hex("visitor_id", t.visitor);
  if (st.lane) body.str("lane", *st.lane);
  return ticket_text;
}

task<response> visitor::entered_lobby(const request& req, std::string room_id, ticket t) {
  room* now = ctx_.rooms.find(room_id);
  if (!now) co_return unknown_room(req, room_id);
  json_object body;
  auto ticket_text = entry_fields(body, *now, t);
  // Within its lane's lobby, which has its own commitment.
  auto lane = lane_of(*t.lobby_index);
  receipt::receipt_fields fields{room_id,
                                 place_in_lane(*t.lobby_index),
                                 t.entrant,
                                 static_cast<std::uint64_t>(t.issued_ms),
                                 now->commitment(lane),
                                 std::string(now->ledger_lane(lane))};
  auto receipt = co_await sign_receipt(std::move(fields));
  // The room may have gone while the receipt was signed; what was found is not kept.
  now = ctx_.rooms.find(room_id);
  if (!now) co_return unknown_room(req, room_id);
  body.num("lobby_index", place_in_lane(*t.lobby_index))
      .hex("entrant_id", t.entrant)
      .raw("receipt", receipt::to_json(receipt));
  if (auto closes = now->lobby_closes_at_ms()) body.num("draw_at", seconds(*closes));
  co_return entry_answer(req, room_id, body, ticket_text);
}

response visitor::entry_answer(const request& req, std::string_view room_id, json_object& body, text_span ticket_text) {
  auto res = json_response(req, bhttp::status::created, body.done());
  set_ticket_cookie(res, room_id, ticket_text.in(res.body()));
  return res;
}

void visitor::set_ticket_cookie(response& res, std::string_view room_id, std::string_view ticket_text) const {
  // Scoped to the room's API path: a visitor's tickets for different rooms don't collide.
  // Written in parts, not formatted: a format string is parsed anew on every join.
  res.set_parts(bhttp::field::set_cookie,
                {ticket_cookie, "=", ticket_text, "; Path=", rooms_path, "/", room_id, "; Max-Age=",
                 ticket_cookie_max_age, "; HttpOnly; SameSite=Lax", ctx_.settings.secure_cookies ? "; Secure" : ""});
}

std::int64_t visitor::claim_pass(const room& r, std::uint64_t place, const id16& visitor, std::int64_t now_ms) {
  auto key = std::pair(r.config().id, place);
  if (auto it = claims_in_flight_.find(key); it != claims_in_flight_.end()) return it->second;
  auto expires = now_ms + std::int64_t{r.config().pass_ttl_seconds} * 1000;
  claims_in_flight_.emplace(key, expires);
  ctx_.rooms.submit(pass_claimed{r.config().id, place, pass::pass_id(r.config().id, visitor), now_ms},
                    [this, key](std::error_code, const join_outcome&) { claims_in_flight_.erase(key); });
  return expires;
}

std::optional<std::int64_t> visitor::pass_until(const room& r, std::uint64_t place, const ticket& t, std::int64_t now_ms) {
  auto live = r.pass_live_until(place, now_ms);
  if (!live && r.claimable(place, now_ms)) live = claim_pass(r, place, t.visitor, now_ms);
  return live;
}

std::optional<std::string> visitor::place_after_draw(ticket& t, const room& r) const {
  if (t.place || !t.lobby_index) return std::nullopt;
  auto place = r.place_of(*t.lobby_index);
  if (!place) return std::nullopt;
  t.place = place;
  return ctx_.tickets.encode(t);
}

response visitor::status(const request& req, const room& r) {
  response failure;
  auto t = presented_ticket(req, r.config().id, &failure);
  if (!t) return failure;
  auto reissued = place_after_draw(*t, r);
  auto now = ctx_.clock.steady_ms();
  auto st = status_of(r, t->place, now, jitter(), ctx_.settings.status_within, t->lobby_index);
  if (ctx_.overload.sheds_poll(st.eta_seconds, st.poll_after_ms)) {
    return problem(req, errc::overloaded, "Many visitors at once: your place is kept; ask again later.");
  }
  std::optional<std::int64_t> pass_until;
  std::optional<live_hold> holding;
  if (st.state == "admitted") {
    pass_until = this->pass_until(r, *t->place, *t, now);
    // A hold took the pass's slot: the visitor sees their seats, or their place in line for
    // them, and their time. Else their pass ended, or they never came for it in time.
    if (!pass_until) holding = show_hold(r, t->visitor, now, st);
  }
  json_object body;
  status_fields(body, st, t->lobby_index);
  if (st.state == "lobby") {
    if (auto closes = r.lobby_closes_at_ms()) body.num("draw_at", seconds(*closes));
  }
  if (pass_until) {
    const auto& c = r.config();
    // The wall clock is read only here: a pass's times leave the process.
    auto now_s = seconds(ctx_.clock.now_ms());
    // The claim's expiry on the rooms' clock, which runs with the wall clock: the same
    // for every poll, so every poll gets the same pass.
    auto expires_s = seconds(*pass_until);
    body.str("pass", passes_.pass_for(ctx_.keys.pass_signer(), c.id, t->visitor, expires_s, now_s))
        .num("pass_expires_at", expires_s)
        .str("target_url", c.target_url);
  }
  if (holding) {
    body.hex("hold_id", holding->id)
        .num("hold_seats", std::uint64_t{holding->entry->seats})
        .str("hold_expires_at", format_rfc3339_ms(holding->entry->expires_ms))
        .str("target_url", r.config().target_url);
    if (auto in_line = r.seats().waitlist_position(holding->id)) body.num("waitlist_position", std::uint64_t{*in_line});
  }
  stock_fields(body, r.stock_remaining(), r.claim_ratio());
  if (st.state == "sold_out" && !r.config().alternatives.empty()) body.raw("alternatives", alternatives_of(ctx_, r));
  if (reissued) body.str("ticket", *reissued);
  auto res = json_response(req, bhttp::status::ok, body.done());
  if (reissued) {
    set_ticket_cookie(res, r.config().id, *reissued);
  }
  return res;
}

}  // namespace foyer::http::handlers
