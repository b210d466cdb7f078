#pragma once
// The HTTP API of Foyer: thin handlers that parse, call the domain, and serialise.

#include <deque>
#include <functional>
#include <string>

#include <foyer/clock.hpp>
#include <foyer/store.hpp>

#include "core/journal.hpp"
#include "core/pass.hpp"
#include "core/receipt.hpp"
#include "core/ticket.hpp"
#include "http/server.hpp"
#include "http/static_files.hpp"

namespace foyer::http {

struct api_settings {
  std::string issuer = "foyer";  // Default: "foyer"; the `iss` of every pass
  std::string admin_token;       // Default: empty, the admin API is off
  bool secure_cookies = false;   // Default: false; set behind HTTPS
};

class api {
 public:
  api(journal& rooms, event_store& store, const ticket_codec& tickets, const pass::keyring& keys,
      const clock& clock, api_settings settings);

  net::awaitable<response> handle(request& req, const peer& who);

 private:
  net::awaitable<response> route(request& req, const peer& who);
  net::awaitable<response> join(request& req, room& r);
  response status(const request& req, room& r);
  response room_info(const request& req, const room& r) const;
  response frontier(const request& req, const room& r) const;
  response lottery(const request& req, const room& r) const;
  net::awaitable<response> lottery_proof(const request& req, const room& r);
  net::awaitable<response> admin(request& req, std::string_view path);
  response rooms_list(const request& req) const;
  response jwks(const request& req) const;

  // Lobby receipts are signed once per batch of joins made durable together.
  net::awaitable<receipt::receipt> sign_receipt(receipt::receipt_fields fields);
  void sign_pending_receipts();

  // Awaits the event's durability and application.
  net::awaitable<std::tuple<std::error_code, join_outcome>> commit(event e);

  std::optional<ticket> presented_ticket(const request& req, std::string_view room_id,
                                         response* error) const;
  std::string pass_for(const room& r, const ticket& t);
  double jitter();

  journal& rooms_;
  event_store& store_;
  const ticket_codec& tickets_;
  const pass::keyring& keys_;
  const clock& clock_;
  api_settings settings_;
  static_files static_files_;

  struct pending_receipt {
    receipt::receipt_fields fields;
    std::function<void(receipt::receipt)> done;
  };
  std::vector<pending_receipt> pending_receipts_;
  std::uint64_t jitter_state_;
};

}  // namespace foyer::http
