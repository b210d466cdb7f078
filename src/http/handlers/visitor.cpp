#include "http/handlers/visitor.hpp"

#include <array>
#include <memory>

#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/range/iterator_range.hpp>
#include <fmt/core.h>

#include "core/base/json.hpp"
#include "core/gate/account_hint.hpp"
#include "core/rooms/status.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

constexpr std::string_view rooms_path = "/api/v1/rooms";
constexpr std::string_view ticket_cookie = "foyer_ticket";
constexpr std::string_view ticket_cookie_max_age = "604800";  // seconds: a week

// The 410 of a room that takes no new visitors: its state is the code.
response no_joins(const request& req, const room& r, std::string_view detail) {
  return problem(req, r.state() == room_state::sold_out ? errc::sold_out : errc::closed, detail);
}

// nullopt if the body is not a JSON object of string fields.
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
  }
  return body;
}

// The ticket a join was given, rebuilt from what it left in the log.
ticket ticket_of(const std::string& room_id, const joined_entry& entry) {
  ticket t;
  t.room = room_id;
  t.visitor = entry.visitor;
  t.place = entry.outcome.place;
  t.lobby_index = entry.outcome.lobby_index;
  if (t.lobby_index) t.entrant = entry.entrant;
  t.issued_ms = entry.at_ms;
  return t;
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

visitor::visitor(context& ctx)
    : ctx_(ctx), passes_(ctx.settings.issuer), jitter_state_(static_cast<std::uint64_t>(ctx.clock.now_ms()) | 1) {}

double visitor::jitter() {
  // xorshift64: poll jitter needs spread, not secrecy.
  jitter_state_ ^= jitter_state_ << 13;
  jitter_state_ ^= jitter_state_ >> 7;
  jitter_state_ ^= jitter_state_ << 17;
  return static_cast<double>(jitter_state_ >> 11) / static_cast<double>(std::uint64_t{1} << 53);
}

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
  auto initiate = [this, fields = std::move(fields)](auto handler) mutable {
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    // The first receipt of a batch schedules the signing after the completions that
    // are already queued, so every join made durable by the same write shares it.
    if (pending_receipts_.empty()) {
      net::post(net::get_associated_executor(*shared), [this] { sign_pending_receipts(); });
    }
    pending_receipts_.push_back({std::move(fields), [shared](receipt::receipt r) { (*shared)(std::move(r)); }});
  };
  co_return co_await net::async_initiate<decltype(use_task), void(receipt::receipt)>(
      std::move(initiate), use_task);
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
  auto st = status_of(r, t.place, ctx_.clock.now_ms(), jitter());
  auto body = json_object()
                  .str("ticket", ctx_.tickets.encode(t))
                  .opt_num("place", t.place)
                  .opt_num("position", st.position)
                  .num("poll_after_ms", st.poll_after_ms)
                  .str("visitor_id", to_hex(t.visitor))
                  .boolean("existing", true);
  if (t.lobby_index) body.num("lobby_index", *t.lobby_index).str("entrant_id", to_hex(t.entrant));
  return json_response(req, bhttp::status::ok, body.done());
}

std::variant<std::optional<id16>, response> visitor::check_account(const request& req, const room& r,
                                                                   const join_body& body) const {
  if (body.account.empty() && body.account_hint.empty()) return std::optional<id16>();
  const auto& secret = ctx_.settings.account_hint_secret;
  if (secret.empty()) return problem(req, errc::account_hints_off, "This server takes no account hints.");
  auto account = verify_account_hint(as_bytes(secret), r.config().id, body.account, body.account_hint);
  if (!account) return problem(req, errc::bad_account_hint, "The account hint does not match the account.");
  return account;
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
  auto address = client_address(req, who);
  if (!r.accepts_joins()) return no_joins(req, r, "This room takes no new visitors.");
  auto network = network_of(address);
  auto now = static_cast<std::uint64_t>(ctx_.clock.now_ms());
  auto& price = ctx_.price;
  std::uint32_t extra = price.pressure.extra_bits(network, now) + price.rules.extra_bits(address);
  auto c = price.authority.mint(r.config().id, network, now, extra);
  return json_response(req, bhttp::status::ok,
                       json_object()
                           .str("challenge", c.token)
                           .num("difficulty_bits", c.difficulty_bits)
                           .num("expires_at", c.expires_at_ms)
                           .done());
}

std::optional<response> visitor::check_proof(const request& req, const room& r, const ip_address& address,
                                             const join_body& body) {
  auto network = network_of(address);
  auto now = static_cast<std::uint64_t>(ctx_.clock.now_ms());
  auto& price = ctx_.price;
  // Without any price, local development and tests may join with no challenge.
  bool free = price.base_bits == 0 && price.rules.extra_bits(address) == 0 &&
              price.pressure.extra_bits(network, now) == 0;
  if (free && body.challenge.empty()) return std::nullopt;
  if (body.challenge.empty() || body.nonce.empty()) {
    return problem(req, errc::bad_join_body,
                   "Send {\"challenge\": \"...\", \"nonce\": \"...\"} from POST .../challenge and its solution.");
  }
  auto verdict = price.authority.verify(body.challenge, body.nonce, r.config().id, network, now);
  bool ok = verdict.ok() &&
            price.spent.try_spend(verdict.challenge_id, verdict.expires_at_ms, now) == pow::spend_outcome::spent;
  if (ok) return std::nullopt;
  // One answer for every reason, so a bot learns nothing about why; the reason
  // goes to the metrics.
  ++ctx_.proof_rejections[verdict.ok() ? "replayed" : std::string(pow::to_string(verdict.outcome))];
  return problem(req, errc::proof_rejected,
                 "The proof of work was not accepted. Fetch a new challenge and solve it again.");
}

task<response> visitor::join(const request& req, const room& r, const peer& who) {
  std::string room_id = r.config().id;
  // One entry per visitor: a visitor who already holds a ticket for this room gets it back.
  if (auto existing = presented_ticket(req, room_id, nullptr)) co_return existing_entry(req, *existing, r);
  if (!r.accepts_joins()) {
    co_return no_joins(req, r, r.state() == room_state::sold_out ? "Everything has been sold; the queue is closed."
                                                                 : "This room is closed to new visitors.");
  }

  auto address = client_address(req, who);
  auto parsed = parse_join_body(ctx_.json_parser, padded(ctx_, req.body()));
  if (!parsed) {
    co_return problem(req, errc::bad_join_body,
                      "The body must be a JSON object: {\"challenge\", \"nonce\"} and optionally {\"account\", \"account_hint\"}.");
  }
  auto account_check = check_account(req, r, *parsed);
  if (auto* refused = std::get_if<response>(&account_check)) co_return std::move(*refused);
  const auto& account = std::get<std::optional<id16>>(account_check);
  // Held from here until the join is decided, across every suspension below: a second
  // join with the same account meanwhile is told to wait, never given a second place.
  struct account_hold {
    std::set<id16>& joining;
    std::optional<id16> held;
    ~account_hold() {
      if (held) joining.erase(*held);
    }
  } hold{accounts_joining_, std::nullopt};
  if (account) {
    if (!accounts_joining_.insert(*account).second) {
      co_return problem(req, errc::join_in_progress, "This account is joining already; retry in a moment.");
    }
    hold.held = account;
    // Built before the co_await: GCC 12 cannot keep an initializer_list across one.
    std::vector<std::string> keys(1, journal::account_key(room_id, *account));
    auto stored = co_await read_side_records(ctx_, std::move(keys));
    if (!stored) co_return unavailable(req);
    if ((*stored)[0]) {
      auto entry = joined_entry::decode(*(*stored)[0]);
      room* again = ctx_.rooms.find(room_id);
      if (entry && again) co_return existing_entry(req, ticket_of(room_id, *entry), *again);
    }
  }
  if (auto refused = check_proof(req, r, address, *parsed)) co_return std::move(*refused);

  visitor_joined e;
  e.room = room_id;
  e.account = account;
  // One read of the system's randomness for both ids: each read is a system call.
  std::array<std::uint8_t, sizeof e.visitor + sizeof e.entrant> ids;
  random_bytes(ids);
  std::copy_n(ids.begin(), e.visitor.size(), e.visitor.begin());
  std::copy_n(ids.begin() + e.visitor.size(), e.entrant.size(), e.entrant.begin());
  e.at_ms = ctx_.clock.now_ms();
  auto [ec, outcome] = co_await commit(ctx_, e);
  if (ec) co_return unavailable(req);
  ctx_.price.pressure.record(network_of(address), static_cast<std::uint64_t>(ctx_.clock.now_ms()));
  // The room may have been looked up before the suspension; find it again.
  room* now = ctx_.rooms.find(room_id);
  if (!now) co_return unavailable(req);

  auto t = ticket_of(room_id, joined_entry{e.visitor, e.entrant, e.at_ms, outcome});
  std::string ticket_text = ctx_.tickets.encode(t);
  auto st = status_of(*now, t.place, ctx_.clock.now_ms(), jitter());

  json_object body;
  body.str("ticket", ticket_text)
      .opt_num("place", t.place)
      .opt_num("position", st.position)
      .num("poll_after_ms", st.poll_after_ms)
      .str("visitor_id", to_hex(t.visitor));
  if (outcome.lobby_index) {
    receipt::receipt_fields fields{room_id, *outcome.lobby_index, e.entrant,
                                   static_cast<std::uint64_t>(e.at_ms), now->commitment()};
    auto receipt = co_await sign_receipt(std::move(fields));
    body.num("lobby_index", *outcome.lobby_index)
        .str("entrant_id", to_hex(e.entrant))
        .raw("receipt", receipt::to_json(receipt));
    if (auto closes = now->lobby_closes_at_ms()) body.num("draw_at", seconds(*closes));
  }
  auto res = json_response(req, bhttp::status::created, body.done());
  set_ticket_cookie(res, room_id, ticket_text);
  co_return res;
}

void visitor::set_ticket_cookie(response& res, std::string_view room_id, std::string_view ticket_text) const {
  // Scoped to the room's API path: a visitor's tickets for different rooms don't collide.
  // Appended, not formatted: a format string is parsed anew on every join.
  std::string cookie;
  cookie.reserve(ticket_text.size() + room_id.size() + 128);
  cookie.append(ticket_cookie).append("=").append(ticket_text);
  cookie.append("; Path=").append(rooms_path).append("/").append(room_id);
  cookie.append("; Max-Age=").append(ticket_cookie_max_age).append("; HttpOnly; SameSite=Lax");
  if (ctx_.settings.secure_cookies) cookie.append("; Secure");
  res.set(bhttp::field::set_cookie, cookie);
}

response visitor::status(const request& req, const room& r) {
  response failure;
  auto t = presented_ticket(req, r.config().id, &failure);
  if (!t) return failure;
  std::optional<std::string> reissued;
  if (!t->place && t->lobby_index) {
    // After the draw a lobby member's place is computed once and carried in a new
    // ticket, so that later polls are arithmetic again.
    if (auto place = r.place_of(*t->lobby_index)) {
      t->place = place;
      reissued = ctx_.tickets.encode(*t);
    }
  }
  auto now_ms = ctx_.clock.now_ms();
  auto st = status_of(r, t->place, now_ms, jitter());
  json_object body;
  body.str("state", st.state)
      .opt_num("place", st.place)
      .num("served", st.served)
      .opt_num("position", st.position)
      .opt_num("eta_seconds", st.eta_seconds)
      .num("poll_after_ms", st.poll_after_ms);
  if (t->lobby_index) body.num("lobby_index", *t->lobby_index);
  if (st.state == "lobby") {
    if (auto closes = r.lobby_closes_at_ms()) body.num("draw_at", seconds(*closes));
  }
  if (st.state == "admitted") {
    const auto& c = r.config();
    body.str("pass", passes_.pass_for(ctx_.keys.pass_signer(), c.id, t->visitor, c.pass_ttl_seconds, seconds(now_ms)))
        .str("target_url", c.target_url);
  }
  if (r.config().stock) {
    body.num("stock_left", *r.config().stock > st.served ? *r.config().stock - st.served : 0);
  }
  if (reissued) body.str("ticket", *reissued);
  auto res = json_response(req, bhttp::status::ok, body.done());
  if (reissued) {
    set_ticket_cookie(res, r.config().id, *reissued);
  }
  return res;
}

}  // namespace foyer::http::handlers
