#include "http/api.hpp"

#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/container/small_vector.hpp>
#include <boost/range/iterator_range.hpp>
#include <array>
#include <boost/beast/http/field.hpp>
#include <charconv>
#include <fmt/format.h>
#include <simdjson.h>

#include "core/base/json.hpp"
#include "core/gate/account_hint.hpp"
#include "core/rooms/status.hpp"
#include "http/request_fields.hpp"

namespace foyer::http {
namespace {

namespace bhttp = beast::http;

constexpr std::string_view api_prefix = "/api/v1/rooms";
constexpr std::string_view admin_prefix = "/api/v1/admin/rooms";
constexpr std::string_view ticket_cookie = "foyer_ticket";
constexpr std::string_view ticket_cookie_max_age = "604800";  // seconds: a week

response json_response(const request& req, unsigned status, std::string body) {
  return response::json(static_cast<bhttp::status>(status), req.version(), std::move(body));
}

response error(const request& req, unsigned status, std::string_view code, std::string_view message) {
  return json_error(status, code, message, req.version(), req.keep_alive());
}

response unavailable(const request& req) {
  auto res = error(req, 503, "storage_unavailable",
                   "The server could not make this change durable; nothing was recorded. Retry shortly.");
  res.set(bhttp::field::retry_after, "2");
  return res;
}

// Splits "/a/b/c" into {"a","b","c"}; the query string is not part of it.
boost::container::small_vector<std::string_view, 8> segments(std::string_view path) {
  boost::container::small_vector<std::string_view, 8> out;
  while (!path.empty()) {
    if (path.front() == '/') {
      path.remove_prefix(1);
      continue;
    }
    auto end = path.find('/');
    out.push_back(path.substr(0, end));
    path = end == std::string_view::npos ? std::string_view() : path.substr(end);
  }
  return out;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
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

// The operator actions that move a room between states.
std::optional<room_state> operator_state(std::string_view action) {
  if (action == "pause") return room_state::paused;
  if (action == "resume") return room_state::open;
  if (action == "sold-out") return room_state::sold_out;
  if (action == "close") return room_state::closed;
  return std::nullopt;
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

std::string hex_or_null(const std::optional<digest>& d) {
  return d ? json_quote(to_hex(*d)) : "null";
}

std::int64_t seconds(std::int64_t ms) { return ms / 1000; }

}  // namespace

api::api(journal& rooms, event_store& store, const ticket_codec& tickets, const pass::keyring& keys,
         const clock& clock, join_price& price, api_settings settings)
    : rooms_(rooms),
      store_(store),
      tickets_(tickets),
      keys_(keys),
      clock_(clock),
      price_(price),
      settings_(std::move(settings)),
      jitter_state_(static_cast<std::uint64_t>(clock.now_ms()) | 1),
      passes_(settings_.issuer) {}

simdjson::padded_string_view api::padded(std::string_view text) {
  json_scratch_.assign(text);
  json_scratch_.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  return simdjson::padded_string_view(json_scratch_.data(), json_scratch_.size(), json_scratch_.capacity());
}

double api::jitter() {
  // xorshift64: poll jitter needs spread, not secrecy.
  jitter_state_ ^= jitter_state_ << 13;
  jitter_state_ ^= jitter_state_ >> 7;
  jitter_state_ ^= jitter_state_ << 17;
  return static_cast<double>(jitter_state_ >> 11) / static_cast<double>(std::uint64_t{1} << 53);
}

task<response> api::handle(request& req, const peer& who) {
  std::string_view target = req.target();
  std::string_view path = target.substr(0, target.find('?'));
  auto parts = segments(path);
  bool get = req.method() == bhttp::verb::get || req.method() == bhttp::verb::head;
  bool post = req.method() == bhttp::verb::post;
  auto wrong_method = [&](std::string_view allowed) {
    auto res = error(req, 405, "method_not_allowed", fmt::format("Use {} for this path.", allowed));
    res.set(bhttp::field::allow, allowed);
    return res;
  };

  if (path.starts_with(admin_prefix) || path == "/api/v1/admin") co_return co_await admin(req, path);

  if (parts.size() >= 3 && parts[0] == "api" && parts[1] == "v1" && parts[2] == "rooms") {
    if (parts.size() == 3) co_return get ? rooms_list(req) : wrong_method("GET");
    room* r = rooms_.find(parts[3]);
    if (!r) co_return error(req, 404, "unknown_room", fmt::format("There is no room '{}'.", parts[3]));
    std::string_view action = parts.size() > 4 ? parts[4] : "";
    if (parts.size() == 4) co_return get ? room_info(req, *r) : wrong_method("GET");
    if (parts.size() == 5 && action == "join") {
      if (!post) co_return wrong_method("POST");
      co_return co_await join(req, *r, who);
    }
    if (parts.size() == 5 && action == "challenge") {
      co_return post ? challenge(req, *r, who) : wrong_method("POST");
    }
    if (parts.size() == 5 && action == "status") co_return get ? status(req, *r) : wrong_method("GET");
    if (parts.size() == 5 && action == "frontier") co_return get ? frontier(req, *r) : wrong_method("GET");
    if (parts.size() == 5 && action == "lottery") co_return get ? lottery(req, *r) : wrong_method("GET");
    if (parts.size() == 6 && action == "lottery" && parts[5] == "proof") {
      if (!get) co_return wrong_method("GET");
      co_return co_await lottery_proof(req, *r);
    }
    co_return error(req, 404, "not_found", "No such API path.");
  }
  if (path == "/.well-known/jwks.json") co_return get ? jwks(req) : wrong_method("GET");
  if (path == "/metrics") co_return get ? metrics(req) : wrong_method("GET");
  if (path == "/healthz") {
    co_return get ? json_response(req, 200, R"({"status":"ok"})") : wrong_method("GET");
  }
  if (path.starts_with("/api/")) co_return error(req, 404, "not_found", "No such API path.");

  // Pages: the waiting room of a room, the verify page, the console, and their assets.
  std::string page(path);
  if (parts.size() == 2 && parts[0] == "r") {
    if (!rooms_.find(parts[1])) co_return error(req, 404, "unknown_room", fmt::format("There is no room '{}'.", parts[1]));
    page = "/room.html";
  } else if (path == "/") {
    // With one room, the front page is its waiting room.
    page = rooms_.rooms().size() == 1 ? "/room.html" : "/index.html";
  } else if (path == "/verify" || path == "/admin" || path == "/welcome") {
    page = std::string(path) + ".html";
  }
  if (!static_files_.contains(page)) co_return error(req, 404, "not_found", "No such page.");
  if (!get) co_return wrong_method("GET, HEAD");
  co_return *static_files_.serve(req, page);
}

std::optional<ticket> api::presented_ticket(const request& req, std::string_view room_id,
                                            response* failure) const {
  // Without `failure` the caller only asks whether there is a good ticket: no answer is built.
  auto refuse = [&](unsigned status, std::string_view code, std::string_view message) -> std::optional<ticket> {
    if (failure) *failure = error(req, status, code, message);
    return std::nullopt;
  };
  auto text = bearer(req);
  if (!text) text = cookie(req, ticket_cookie);
  if (!text) {
    return refuse(401, "missing_ticket", "Send your ticket as 'Authorization: Bearer <ticket>' or the foyer_ticket cookie.");
  }
  ticket_error why{};
  auto t = tickets_.decode(*text, &why);
  if (!t) {
    return refuse(401, "invalid_ticket",
                  why == ticket_error::forged ? "The ticket's signature does not match; it was altered or forged."
                                              : "The ticket is malformed or truncated.");
  }
  if (t->room != room_id) {
    return refuse(403, "ticket_for_other_room", failure ? fmt::format("This ticket is for room '{}'.", t->room) : "");
  }
  return t;
}

task<std::tuple<std::error_code, join_outcome>> api::commit(event e) {
  auto initiate = [this, e = std::move(e)](auto handler) mutable {
    // std::function needs a copyable callable; the coroutine's handler is move-only.
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    rooms_.submit(std::move(e), [shared](std::error_code ec, const join_outcome& outcome) {
      (*shared)(std::make_tuple(ec, outcome));
    });
  };
  co_return co_await net::async_initiate<decltype(use_task), void(std::tuple<std::error_code, join_outcome>)>(
      std::move(initiate), use_task);
}

task<std::optional<std::vector<std::optional<std::string>>>> api::read_side_records(
    std::vector<std::string> keys) {
  using values = std::vector<std::optional<std::string>>;
  auto initiate = [this, keys = std::move(keys)](auto handler) mutable {
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    store_.read(std::move(keys), [shared](std::error_code ec, values v) {
      (*shared)(ec ? std::nullopt : std::optional<values>(std::move(v)));
    });
  };
  co_return co_await net::async_initiate<decltype(use_task), void(std::optional<values>)>(std::move(initiate), use_task);
}

task<receipt::receipt> api::sign_receipt(receipt::receipt_fields fields) {
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

void api::sign_pending_receipts() {
  auto pending = std::exchange(pending_receipts_, {});
  std::vector<receipt::receipt_fields> fields;
  fields.reserve(pending.size());
  for (auto& p : pending) fields.push_back(p.fields);
  const auto& key = keys_.active();
  auto signed_receipts = receipt::sign_batch(std::move(fields), key.secret, key.kid);
  for (std::size_t i = 0; i < pending.size(); ++i) pending[i].done(std::move(signed_receipts[i]));
}

response api::existing_entry(const request& req, const ticket& t, const room& r) {
  auto st = status_of(r, t.place, clock_.steady_ms(), jitter());
  auto body = json_object()
                  .str("ticket", tickets_.encode(t))
                  .opt_num("place", t.place)
                  .opt_num("position", st.position)
                  .num("poll_after_ms", st.poll_after_ms)
                  .str("visitor_id", to_hex(t.visitor))
                  .boolean("existing", true);
  if (t.lobby_index) body.num("lobby_index", *t.lobby_index).str("entrant_id", to_hex(t.entrant));
  return json_response(req, 200, body.done());
}

std::variant<std::optional<id16>, response> api::check_account(const request& req, const room& r,
                                                               const join_body& body) const {
  if (body.account.empty() && body.account_hint.empty()) return std::optional<id16>();
  const auto& secret = settings_.account_hint_secret;
  if (secret.empty()) return error(req, 400, "account_hints_off", "This server takes no account hints.");
  auto account = verify_account_hint(as_bytes(secret), r.config().id, body.account, body.account_hint);
  if (!account) return error(req, 403, "bad_account_hint", "The account hint does not match the account.");
  return account;
}

namespace {

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

ip_address api::client_address(const request& req, const peer& who) const {
  auto address = peer_address(who);
  if (settings_.trusted_proxies.empty()) return address;
  // Several X-Forwarded-For fields are one list, in order (RFC 9110, 5.3).
  std::string forwarded_for;
  for (const auto& field : boost::make_iterator_range(req.equal_range("X-Forwarded-For"))) {
    if (!forwarded_for.empty()) forwarded_for += ',';
    forwarded_for.append(field.value().data(), field.value().size());
  }
  return forwarded_client(address, forwarded_for, settings_.trusted_proxies);
}

response api::challenge(const request& req, const room& r, const peer& who) {
  auto address = client_address(req, who);
  if (!r.accepts_joins()) return error(req, 410, std::string(to_string(r.state())), "This room takes no new visitors.");
  auto network = network_of(address);
  auto now = static_cast<std::uint64_t>(clock_.now_ms());
  std::uint32_t extra = price_.pressure.extra_bits(network, now) + price_.rules.extra_bits(address);
  auto c = price_.authority.mint(r.config().id, network, now, extra);
  return json_response(req, 200,
                       json_object()
                           .str("challenge", c.token)
                           .num("difficulty_bits", c.difficulty_bits)
                           .num("expires_at", c.expires_at_ms)
                           .done());
}

std::optional<response> api::check_proof(const request& req, const room& r, const ip_address& address,
                                         const join_body& body) {
  auto network = network_of(address);
  auto now = static_cast<std::uint64_t>(clock_.now_ms());
  // Without any price, local development and tests may join with no challenge.
  bool free = price_.base_bits == 0 && price_.rules.extra_bits(address) == 0 &&
              price_.pressure.extra_bits(network, now) == 0;
  if (free && body.challenge.empty()) return std::nullopt;
  if (body.challenge.empty() || body.nonce.empty()) {
    return error(req, 400, "bad_join_body",
                 "Send {\"challenge\": \"...\", \"nonce\": \"...\"} from POST .../challenge and its solution.");
  }
  auto verdict = price_.authority.verify(body.challenge, body.nonce, r.config().id, network, now);
  bool ok = verdict.ok() &&
            price_.spent.try_spend(verdict.challenge_id, verdict.expires_at_ms, now) == pow::spend_outcome::spent;
  if (ok) return std::nullopt;
  // One answer for every reason, so a bot learns nothing about why; the reason
  // goes to the metrics.
  ++proof_rejections_[verdict.ok() ? "replayed" : std::string(pow::to_string(verdict.outcome))];
  auto res = error(req, 403, "proof_rejected",
                   "The proof of work was not accepted. Fetch a new challenge and solve it again.");
  res.set(bhttp::field::retry_after, "1");
  return res;
}

task<response> api::join(request& req, room& r, const peer& who) {
  std::string room_id = r.config().id;
  // One entry per visitor: a visitor who already holds a ticket for this room gets it back.
  if (auto existing = presented_ticket(req, room_id, nullptr)) co_return existing_entry(req, *existing, r);
  if (!r.accepts_joins()) {
    co_return error(req, 410, std::string(to_string(r.state())),
                    r.state() == room_state::sold_out ? "Everything has been sold; the queue is closed."
                                                      : "This room is closed to new visitors.");
  }

  auto address = client_address(req, who);
  auto parsed = parse_join_body(json_parser_, padded(req.body()));
  if (!parsed) {
    co_return error(req, 400, "bad_join_body",
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
      auto res = error(req, 409, "join_in_progress", "This account is joining already; retry in a moment.");
      res.set(bhttp::field::retry_after, "1");
      co_return res;
    }
    hold.held = account;
    if (const auto* entry = r.account_entry(*account)) co_return existing_entry(req, ticket_of(room_id, *entry), r);
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
  e.at_ms = clock_.now_ms();
  auto [ec, outcome] = co_await commit(e);
  if (ec) co_return unavailable(req);
  price_.pressure.record(network_of(address), static_cast<std::uint64_t>(clock_.now_ms()));
  // The room may have been looked up before the suspension; find it again.
  room* now = rooms_.find(room_id);
  if (!now) co_return unavailable(req);
  if (outcome.refused) {
    // The room stopped taking joins, or the account joined, while this was written.
    if (const auto* entry = account ? now->account_entry(*account) : nullptr) {
      co_return existing_entry(req, ticket_of(room_id, *entry), *now);
    }
    co_return error(req, 410, std::string(to_string(now->state())), "This room is closed to new visitors.");
  }

  ticket t;
  t.room = room_id;
  t.visitor = e.visitor;
  t.place = outcome.place;
  t.lobby_index = outcome.lobby_index;
  if (outcome.lobby_index) t.entrant = e.entrant;
  t.issued_ms = e.at_ms;
  std::string ticket_text = tickets_.encode(t);
  auto st = status_of(*now, t.place, clock_.steady_ms(), jitter());

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
  auto res = json_response(req, 201, body.done());
  set_ticket_cookie(res, room_id, ticket_text);
  co_return res;
}

void api::set_ticket_cookie(response& res, std::string_view room_id, std::string_view ticket_text) const {
  // Scoped to the room's API path: a visitor's tickets for different rooms don't collide.
  // Appended, not formatted: a format string is parsed anew on every join.
  std::string cookie;
  cookie.reserve(ticket_text.size() + room_id.size() + 128);
  cookie.append(ticket_cookie).append("=").append(ticket_text);
  cookie.append("; Path=").append(api_prefix).append("/").append(room_id);
  cookie.append("; Max-Age=").append(ticket_cookie_max_age).append("; HttpOnly; SameSite=Lax");
  if (settings_.secure_cookies) cookie.append("; Secure");
  res.set(bhttp::field::set_cookie, cookie);
}

response api::status(const request& req, room& r) {
  response failure;
  auto t = presented_ticket(req, r.config().id, &failure);
  if (!t) return failure;
  std::optional<std::string> reissued;
  if (!t->place && t->lobby_index) {
    // After the draw a lobby member's place is computed once and carried in a new
    // ticket, so that later polls are arithmetic again.
    if (auto place = r.place_of(*t->lobby_index)) {
      t->place = place;
      reissued = tickets_.encode(*t);
    }
  }
  auto st = status_of(r, t->place, clock_.steady_ms(), jitter());
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
    body.str("pass", passes_.pass_for(keys_.pass_signer(), c.id, t->visitor, c.pass_ttl_seconds, seconds(clock_.now_ms())))
        .str("target_url", c.target_url);
  }
  if (r.config().stock) {
    body.num("stock_left", *r.config().stock > st.served ? *r.config().stock - st.served : 0);
  }
  if (reissued) body.str("ticket", *reissued);
  auto res = json_response(req, 200, body.done());
  if (reissued) {
    set_ticket_cookie(res, r.config().id, *reissued);
  }
  return res;
}

response api::room_info(const request& req, const room& r) const {
  const auto& c = r.config();
  auto served = r.served(clock_.steady_ms());
  json_object body;
  body.str("id", c.id)
      .str("name", c.name)
      .str("state", to_string(r.state()))
      .num("rate_per_minute", c.rate_per_minute)
      .num("served", served)
      .num("joined", r.joined())
      .num("waiting", r.joined() - served)
      .num("created_at", seconds(r.created_at_ms()))
      .str("commitment", to_hex(r.commitment()));
  if (c.opens_at_ms) body.num("opens_at", seconds(*c.opens_at_ms));
  if (auto closes = r.lobby_closes_at_ms()) body.num("draw_at", seconds(*closes));
  if (auto opened = r.opened_at_ms()) body.num("opened_at", seconds(*opened));
  if (c.stock) body.num("stock", *c.stock);
  json_object brand;
  brand.str("name", c.name);
  if (!c.logo_url.empty()) brand.str("logo_url", c.logo_url);
  if (!c.accent_colour.empty()) brand.str("accent_colour", c.accent_colour);
  body.raw("branding", brand.done());
  return json_response(req, 200, body.done());
}

response api::frontier(const request& req, const room& r) const {
  auto now = clock_.now_ms();
  auto body = json_object()
                  .num("served", r.served(clock_.steady_ms()))
                  .str("state", to_string(r.state()))
                  .num("rate_per_minute", r.config().rate_per_minute)
                  .num("at", now)
                  .done();
  auto res = json_response(req, 200, std::move(body));
  // Tiny and the same for everyone: any HTTP cache or CDN can absorb the polling.
  res.set(bhttp::field::cache_control, "public, max-age=1");
  return res;
}

response api::rooms_list(const request& req) const {
  std::string list = "[";
  for (const auto& [id, r] : rooms_.rooms()) {
    if (list.size() > 1) list += ',';
    list += json_object().str("id", id).str("name", r.config().name).str("state", to_string(r.state())).done();
  }
  list += ']';
  return json_response(req, 200, json_object().raw("rooms", list).done());
}

response api::lottery(const request& req, const room& r) const {
  json_object body;
  body.str("version", "v1")
      .str("commitment", to_hex(r.commitment()))
      .str("state", r.config().opens_at_ms ? to_string(r.state()) : "fifo");
  if (r.lobby_root()) {
    body.num("lobby_size", r.lobby_size());
  } else {
    body.null("lobby_size");
  }
  body.raw("lobby_root", hex_or_null(r.lobby_root()))
      .opt_str("beacon", r.beacon() ? std::optional(to_hex(as_bytes(*r.beacon()))) : std::nullopt)
      .raw("seed", hex_or_null(r.revealed_seed()))
      .str("beacon_rule", r.config().beacon_rule)
      .str("receipt_key", to_hex(keys_.active().public_key))
      .str("receipt_kid", keys_.active().kid);
  if (auto closes = r.lobby_closes_at_ms()) body.num("draw_at", seconds(*closes));
  auto res = json_response(req, 200, body.done());
  res.set(bhttp::field::cache_control, "public, max-age=1");
  return res;
}

task<response> api::lottery_proof(const request& req, const room& r) {
  auto index_text = query_param(req.target(), "index");
  auto index = index_text ? parse_u64(*index_text) : std::nullopt;
  if (!index) co_return error(req, 400, "bad_index", "Give the lobby index as ?index=<number>.");
  auto root = r.lobby_root();
  if (!root) co_return error(req, 409, "lobby_open", "Proofs exist once the lobby has closed.");
  std::uint64_t size = r.lobby_size();
  if (*index >= size) {
    co_return error(req, 404, "no_such_entrant", fmt::format("The lobby has {} entrants.", size));
  }
  std::string room_id = r.config().id;
  auto nodes = merkle::audit_path_nodes(*index, size);
  std::vector<std::string> keys{journal::lobby_leaf_key(room_id, *index)};
  for (const auto& n : nodes) {
    keys.push_back(n.level == 0 ? journal::lobby_leaf_key(room_id, n.index)
                                : journal::lobby_node_key(room_id, n.level, n.index));
  }
  auto stored = co_await read_side_records(std::move(keys));
  if (!stored) co_return unavailable(req);
  const auto& values = *stored;
  std::vector<digest> hashes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& v = values[i + 1];
    bool leaf = nodes[i].level == 0;
    if (!v || v->size() != (leaf ? 16u : 32u)) {
      co_return error(req, 503, "proof_unavailable", "The lobby tree is still being written; retry shortly.");
    }
    if (leaf) {
      hashes.push_back(merkle::leaf_hash(as_bytes(*v)));
    } else {
      digest d;
      std::copy(v->begin(), v->end(), d.begin());
      hashes.push_back(d);
    }
  }
  if (!values[0] || values[0]->size() != 16) {
    co_return error(req, 503, "proof_unavailable", "The lobby tree is still being written; retry shortly.");
  }
  std::string path = "[";
  for (const auto& h : merkle::audit_path(*index, size, hashes)) {
    if (path.size() > 1) path += ',';
    path += json_quote(to_hex(h));
  }
  path += ']';
  auto body = json_object()
                  .num("index", *index)
                  .str("entrant_id", to_hex(as_bytes(*values[0])))
                  .num("lobby_size", size)
                  .str("lobby_root", to_hex(*root))
                  .raw("path", path)
                  .done();
  co_return json_response(req, 200, std::move(body));
}

response api::metrics(const request& req) const {
  // Prometheus text format: room gauges and why proofs were refused.
  std::string out =
      "# TYPE foyer_room_joined gauge\n# TYPE foyer_room_served gauge\n# TYPE foyer_proof_rejections_total counter\n";
  auto now = clock_.steady_ms();
  for (const auto& [id, r] : rooms_.rooms()) {
    out += fmt::format("foyer_room_joined{{room=\"{}\"}} {}\nfoyer_room_served{{room=\"{}\"}} {}\n", id, r.joined(), id,
                       r.served(now));
  }
  for (const auto& [reason, count] : proof_rejections_) {
    out += fmt::format("foyer_proof_rejections_total{{reason=\"{}\"}} {}\n", reason, count);
  }
  response res{bhttp::status::ok, req.version()};
  res.set(bhttp::field::content_type, "text/plain; version=0.0.4");
  res.set(bhttp::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.body() = std::move(out);
  return res;
}

response api::jwks(const request& req) const {
  auto res = json_response(req, 200, keys_.jwks_json());
  res.set(bhttp::field::cache_control, "public, max-age=300");
  return res;
}

task<response> api::admin(request& req, std::string_view path) {
  if (settings_.admin_token.empty()) {
    co_return error(req, 404, "admin_disabled", "The admin API is off: set server.admin_token to enable it.");
  }
  auto token = bearer(req);
  if (!token || !equal_constant_time(as_bytes(*token), as_bytes(settings_.admin_token))) {
    co_return error(req, 401, "admin_token_required", "Send the admin token as 'Authorization: Bearer <token>'.");
  }
  auto parts = segments(path);  // api v1 admin rooms {room} {action}
  bool post = req.method() == bhttp::verb::post;
  if (parts.size() == 4) {
    if (req.method() != bhttp::verb::get) co_return error(req, 405, "method_not_allowed", "Use GET for this path.");
    std::string list = "[";
    auto now = clock_.now_ms();
    for (const auto& [id, r] : rooms_.rooms()) {
      if (list.size() > 1) list += ',';
      auto served = r.served(clock_.steady_ms());
      list += json_object()
                  .str("id", id)
                  .str("name", r.config().name)
                  .str("state", to_string(r.state()))
                  .num("joined", r.joined())
                  .num("served", served)
                  .num("waiting", r.joined() - served)
                  .num("lobby_size", r.lobby_size())
                  .num("rate_per_minute", r.config().rate_per_minute)
                  .opt_num("stock", r.config().stock)
                  .boolean("needs_beacon", r.needs_beacon())
                  .done();
    }
    list += ']';
    co_return json_response(req, 200, json_object().raw("rooms", list).num("at", now).done());
  }
  if (parts.size() != 6) co_return error(req, 404, "not_found", "No such admin path.");
  room* r = rooms_.find(parts[4]);
  if (!r) co_return error(req, 404, "unknown_room", fmt::format("There is no room '{}'.", parts[4]));
  if (!post) co_return error(req, 405, "method_not_allowed", "Use POST for this path.");
  std::string room_id = r->config().id;
  std::string_view action = parts[5];
  event e;
  if (action == "close-lobby") {
    if (r->state() != room_state::lobby) co_return error(req, 409, "not_in_lobby", "The lobby is not open.");
    e = lobby_closed{room_id, clock_.steady_ms()};
  } else if (action == "beacon") {
    if (r->state() != room_state::drawing) {
      co_return error(req, 409, "not_drawing", "A beacon is taken only after the lobby closed and before the draw.");
    }
    std::string_view hex;
    auto doc = json_parser_.iterate(padded(req.body()));
    if (doc.error() || doc["value"].get_string().get(hex) || !from_hex(hex) || hex.empty() || hex.size() > 1024) {
      co_return error(req, 400, "bad_beacon", "Send {\"value\": \"<hex bytes of the public random value>\"}.");
    }
    auto bytes = *from_hex(hex);
    e = beacon_supplied{room_id, std::string(as_chars(bytes)), clock_.steady_ms()};
  } else if (auto target = operator_state(action)) {
    if (!r->allows(*target)) {
      co_return error(req, 409, "not_allowed",
                      fmt::format("A room that is {} cannot become {}.", to_string(r->state()), to_string(*target)));
    }
    e = state_changed{room_id, *target, clock_.steady_ms()};
  } else {
    co_return error(req, 404, "not_found", "No such admin action.");
  }
  auto [ec, outcome] = co_await commit(std::move(e));
  if (ec) co_return unavailable(req);
  room* now = rooms_.find(room_id);
  co_return json_response(req, 200, json_object().str("state", to_string(now->state())).done());
}

}  // namespace foyer::http
