#pragma once
// A visitor's requests, in one room:
//   POST .../challenge  a proof-of-work challenge priced for the client's network
//   POST .../join       a place (and in the lobby a receipt), or the visitor's entry back
//   GET  .../status     the place, the position and, once admitted, the pass (its first
//                       answer claims the pass, durably, before it is sent)
// Tickets travel as "Authorization: Bearer" or the foyer_ticket cookie.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/fairness/receipt.hpp"
#include "core/passes/pass_issuer.hpp"
#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

// A join's body: the solved challenge, and optionally the site's account hint.
struct join_body {
  std::string challenge, nonce, account, account_hint;
};

class visitor {
 public:
  explicit visitor(context& ctx);

  response challenge(const request& req, const room& r, const peer& who);
  task<response> join(const request& req, const room& r, const peer& who);
  // The answer to a poll, or first the claim of the visitor's pass to make durable.
  std::variant<response, pass_claimed> status(const request& req, const room& r);
  // Makes the claim durable, then answers the poll as status does.
  task<response> claim_then_status(const request& req, const pass_claimed& claim);

 private:
  response existing_entry(const request& req, const ticket& t, const room& r);
  // The ticket the request presents for `room_id`; else nullopt, with the answer to give
  // in `failure` when it is set.
  std::optional<ticket> presented_ticket(const request& req, std::string_view room_id, response* failure) const;
  // The client's address: the peer's, or the one its trusted proxies forwarded.
  ip_address client_address(const request& req, const peer& who) const;
  void set_ticket_cookie(response& res, std::string_view room_id, std::string_view ticket_text) const;
  double jitter();

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
  std::uint64_t jitter_state_;
};

}  // namespace foyer::http::handlers
