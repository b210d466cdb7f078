#pragma once
// A visitor's requests, in one room:
//   POST .../challenge  a proof-of-work challenge priced for the client's network
//   POST .../join       a place (and in the lobby a receipt), or the visitor's entry back
//   GET  .../status     the place, the position and, once admitted, the pass (its first
//                       answer claims the pass: written to the log, not waited for)
// Tickets travel as "Authorization: Bearer" or the foyer_ticket cookie.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/base/jitter.hpp"
#include "core/base/json.hpp"
#include "core/fairness/receipt.hpp"
#include "core/passes/pass_issuer.hpp"
#include "http/handlers/context.hpp"
#include "http/handlers/desk_runner.hpp"

namespace foyer::http::handlers {

// The visitors' API, and the cookie their tickets travel in when they don't send them as
// a bearer token.
inline constexpr std::string_view rooms_path = "/api/v1/rooms";
inline constexpr std::string_view ticket_cookie = "foyer_ticket";

// A join's body: the solved challenge, and optionally the site's account hint.
struct join_body {
  std::string challenge, nonce, account, account_hint, code, invite;
};

// nullopt if the body is not a JSON object of string fields; an empty body is an empty
// join_body. Declared here for the fuzz target (tests/fuzz/bodies.cpp).
std::optional<join_body> parse_join_body(simdjson::ondemand::parser& parser, simdjson::padded_string_view text);

class visitor {
 public:
  explicit visitor(context& ctx);

  response challenge(const request& req, const room& r, const peer& who);
  task<response> join(const request& req, const room& r, const peer& who);
  response status(const request& req, const room& r);
  // The ticket the request presents for `room_id`; else nullopt, with the answer to give
  // in `failure` when it is set.
  std::optional<ticket> presented_ticket(const request& req, std::string_view room_id, response* failure) const;
  void set_ticket_cookie(response& res, std::string_view room_id, std::string_view ticket_text) const;

 private:
  // The queue without JavaScript serves the same tickets, cookie and passes as HTML pages.
  friend class plain_queue;
  // Opt-ins are counted per client network.
  friend class notifications;

  // The answer to a join that entered the visitor (or found their entry) in room `room_id`:
  // made at once, but for a lobby's entrant, whose receipt is signed first.
  answer_or_task entered(const request& req, const std::string& room_id, const join_entry& entry);
  task<response> entered_lobby(const request& req, std::string room_id, ticket t);
  // Where some text is within a body being built (which may move meanwhile).
  struct text_span {
    std::size_t at = 0;
    std::size_t size = 0;
    std::string_view in(std::string_view body) const { return body.substr(at, size); }
  };
  // What every entry's answer says: the ticket, place, position, when to poll, the visitor;
  // gives where the ticket's text is, for its cookie.
  text_span entry_fields(json_object& body, const room& r, const ticket& t);
  // The 201 with that body, and the ticket's cookie.
  response entry_answer(const request& req, std::string_view room_id, json_object& body, text_span ticket_text);
  response existing_entry(const request& req, const ticket& t, const room& r);
  // The client's address: the peer's, or the one its trusted proxies forwarded.
  ip_address client_address(const request& req, const peer& who) const;
  double jitter() { return jitter_.next(); }
  // After the draw a lobby member's place is computed once and carried in a new ticket,
  // so that later polls are arithmetic again: sets it in `t` and gives the new ticket's
  // text, or nullopt when `t` needs none.
  std::optional<std::string> place_after_draw(ticket& t, const room& r) const;
  // Claims the pass of the visitor at `place`; returns when it expires. The claim is
  // written to the log and not waited for: a poll never waits for the storage, and a
  // crash forgets at most the claims in flight.
  std::int64_t claim_pass(const room& r, std::uint64_t place, const id16& visitor, std::int64_t now_ms);
  // When the pass of `t`, admitted at `place`, expires: live, or claimed now if it may
  // be; nullopt if it ended or was never claimed in time.
  std::optional<std::int64_t> pass_until(const room& r, std::uint64_t place, const ticket& t, std::int64_t now_ms);

  // Lobby receipts are signed once per batch of joins made durable together.
  task<receipt::receipt> sign_receipt(receipt::receipt_fields fields);
  void sign_pending_receipts();

  context& ctx_;
  pass::issuer passes_;
  struct pending_receipt {
    receipt::receipt_fields fields;
    std::function<void(receipt::receipt)> done;
  };
  std::vector<pending_receipt> pending_receipts_;
  // Claims being written, by room and place: their expiry, so a poll meanwhile gets the
  // same pass and writes no second claim.
  std::map<std::pair<std::string, std::uint64_t>, std::int64_t> claims_in_flight_;
  jitter_source jitter_;
};

}  // namespace foyer::http::handlers
