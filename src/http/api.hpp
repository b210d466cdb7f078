#pragma once
// The HTTP API of Foyer: thin handlers that parse, call the domain, and serialise.

#include <functional>
#include <map>
#include <set>
#include <variant>
#include <string>

#include <foyer/clock.hpp>
#include <simdjson.h>
#include <foyer/store.hpp>

#include "core/gate/join_price.hpp"
#include "core/rooms/journal.hpp"
#include "core/gate/network.hpp"
#include "core/gate/pow.hpp"
#include "core/passes/pass.hpp"
#include "core/passes/pass_issuer.hpp"
#include "core/fairness/receipt.hpp"
#include "core/gate/ticket.hpp"
#include "http/server.hpp"
#include "http/static_files.hpp"

namespace foyer::http {

struct api_settings {
  std::string issuer = "foyer";  // Default: "foyer"; the `iss` of every pass
  std::string admin_token;       // Default: empty, the admin API is off
  bool secure_cookies = false;   // Default: false; set behind HTTPS
  // Shared with the site, which signs account hints with it so that one account gets
  // one entry per room. Default: empty, hints are refused.
  std::string account_hint_secret;
  // Proxies (a CDN's edges, a load balancer) whose X-Forwarded-For is believed: behind
  // them, clients are priced and their challenges bound by their own address, not the
  // proxy's. Default: none, the header is ignored.
  std::vector<cidr> trusted_proxies;
};

// A join's body: the solved challenge, and optionally the site's account hint.
struct join_body {
  std::string challenge, nonce, account, account_hint;
};

class api {
 public:
  api(journal& rooms, event_store& store, const ticket_codec& tickets, const pass::keyring& keys,
      const clock& clock, join_price& price, api_settings settings);

  task<response> handle(request& req, const peer& who);

 private:
  task<response> join(request& req, room& r, const peer& who);
  response challenge(const request& req, const room& r, const peer& who);
  // nullopt if the join may go ahead; else the answer to give.
  std::optional<response> check_proof(const request& req, const room& r, const ip_address& address,
                                      const join_body& body);
  // The keyed digest of a hinted account, or the answer to give if the hint is bad.
  std::variant<std::optional<id16>, response> check_account(const request& req, const room& r,
                                                            const join_body& body) const;
  response existing_entry(const request& req, const ticket& t, const room& r);
  response status(const request& req, room& r);
  response room_info(const request& req, const room& r) const;
  response frontier(const request& req, const room& r) const;
  response lottery(const request& req, const room& r) const;
  task<response> lottery_proof(const request& req, const room& r);
  task<response> admin(request& req, std::string_view path);
  response rooms_list(const request& req) const;
  response jwks(const request& req) const;
  response metrics(const request& req) const;

  // Lobby receipts are signed once per batch of joins made durable together.
  task<receipt::receipt> sign_receipt(receipt::receipt_fields fields);
  void sign_pending_receipts();

  // Reads side records; nullopt if the store could not.
  task<std::optional<std::vector<std::optional<std::string>>>> read_side_records(
      std::vector<std::string> keys);
  // Awaits the event's durability and application.
  task<std::tuple<std::error_code, join_outcome>> commit(event e);

  std::optional<ticket> presented_ticket(const request& req, std::string_view room_id,
                                         response* error) const;
  // The client's address: the peer's, or the one its trusted proxies forwarded.
  ip_address client_address(const request& req, const peer& who) const;
  void set_ticket_cookie(response& res, std::string_view room_id, std::string_view ticket_text) const;
  double jitter();

  journal& rooms_;
  event_store& store_;
  const ticket_codec& tickets_;
  const pass::keyring& keys_;
  const clock& clock_;
  join_price& price_;
  api_settings settings_;
  static_files static_files_;

  struct pending_receipt {
    receipt::receipt_fields fields;
    std::function<void(receipt::receipt)> done;
  };
  std::vector<pending_receipt> pending_receipts_;
  std::uint64_t jitter_state_;
  std::map<std::string, std::uint64_t, std::less<>> proof_rejections_;  // by reason
  std::set<id16> accounts_joining_;  // hinted joins being decided
  pass::issuer passes_;
  // Reused: a parser keeps its buffers, and requests are parsed one at a time.
  simdjson::ondemand::parser json_parser_;
  // A request body copied with the padding simdjson reads past the end, in a buffer
  // kept from one request to the next.
  simdjson::padded_string_view padded(std::string_view text);
  std::string json_scratch_;
};

}  // namespace foyer::http
