#pragma once
// What the handlers share: the rooms and their log, the store's side records, tickets,
// keys and the passes verified with them, the clock, the join's price, the settings, the
// degradation ladder and the JSON reader. One per server,
// used on the event loop only, by one request at a time between suspensions.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <vector>

#include <boost/asio/async_result.hpp>
#include <foyer/clock.hpp>
#include <foyer/store.hpp>
#include <simdjson.h>

#include "core/base/public_origin.hpp"
#include "core/lanes/site_keys.hpp"
#include "core/fairness/ledger_publisher.hpp"
#include "core/rooms/join_desk.hpp"
#include "core/gate/join_price.hpp"
#include "core/gate/network.hpp"
#include "core/gate/ticket.hpp"
#include "core/notify/contact_book.hpp"
#include "core/ops/overload.hpp"
#include "core/passes/pass.hpp"
#include "core/passes/pass_budget.hpp"
#include "core/passes/room_gates.hpp"
#include "core/rooms/journal.hpp"
#include "core/rooms/rate_control.hpp"
#include "core/rooms/status.hpp"
#include "http/server.hpp"

namespace foyer::http {

struct api_settings {
  std::string issuer = "foyer";  // Default: "foyer"; the `iss` of every pass
  // How many drand relays [ledger] beacon_relays lists: room info says what a drand draw
  // waits for, and that a single relay gives no guarantee. Set at start.
  std::size_t beacon_relays = 0;
  // Where visitors reach this server: every link it makes starts here, and a form posted
  // from another origin is refused. Set at start from [server] public_url, or from the
  // address the server listens on.
  public_origin public_url;
  // Whether [server] public_url (or an issuer that is an origin) named it. When it is only
  // the listen address, one a client behind a proxy may not reach, the discovery document
  // names its addresses as paths, for the client to resolve against the URL it asked.
  bool public_url_named = false;
  std::string admin_token;       // Default: empty, the admin API is off
  // The site's own calls (stock, passes done, signals). Default: empty, they are off
  // (the admin token still works for them).
  std::string site_token;
  bool secure_cookies = false;   // Default: false; set behind HTTPS
  // Shared with the site, which signs account hints with it so that one account gets
  // one entry per room. Default: empty, hints are refused.
  std::string account_hint_secret;
  // Proxies (a CDN's edges, a load balancer) whose X-Forwarded-For is believed: behind
  // them, clients are priced and their challenges bound by their own address, not the
  // proxy's. Default: none, the header is ignored.
  std::vector<cidr> trusted_proxies;
  // Visitors farther back than this poll the cacheable frontier (see core/rooms/status.hpp).
  status_window status_within;
  // Requests one pass may make a minute on the holds endpoints (as many at once); past
  // that, 429 with Retry-After. Default: 120; 0: no budget.
  std::uint32_t hold_requests_per_minute = 120;
  // Derived from the data dir's secret at start: the access codes Foyer generates
  // (derived_code). Not a setting.
  digest code_key{};
  // The site's keys for invite tokens ([invites]), owned by the server, which fetches them
  // when they are given by URL. Not a setting. None: invites are refused.
  invite::site_keys* invite_keys = nullptr;
  // Derived from the data dir's secret at start: an invited account's digest is keyed
  // with it when no account_hint_secret is set.
  digest account_key{};
  // Derived from the data dir's secret at start: resume links are MACed with it
  // (core/gate/resume_link.hpp). Not a setting.
  digest resume_key{};
  // The contacts of visitors who asked to be told of their turn ([notifications]), owned by
  // the server. None: no channel is configured, opt-ins are refused.
  notify::contact_book* contacts = nullptr;
  // The channels opt-ins are taken on: push with a VAPID subject, email with a relay.
  notify::channel_set notify_channels;
  // The VAPID public key (base64url, uncompressed P-256) the page subscribes with.
  std::string vapid_public_key;
  // Push endpoint hosts that may name loopback or private addresses
  // ([notifications] allow_private_push_hosts).
  std::vector<std::string> private_push_hosts;
  // How opt-ins are counted per network: the joins' pressure window and tracking, with
  // [notifications] opt_ins_per_network as the threshold past which they are refused.
  pow::config opt_in_pressure;
  // [notifications] confirm: an address hears nothing but a confirmation mail until its
  // holder confirms. Default: false.
  bool confirm_email = false;
};


struct context {
  journal& rooms;
  event_store& store;
  const ticket_codec& tickets;
  const pass::keyring& keys;
  const foyer::clock& clock;
  join_price& price;
  rate_controller& rates;
  api_settings settings;
  join_desk desk;
  ops::overload_ladder& overload;
  // The public ledger's origin, key and witnesses, and the cosignatures gathered.
  const ledger::publisher& ledger;
  // The visitors' passes on the hold routes: verified once each, then looked up.
  pass::room_gates passes;
  // Each pass's requests on the hold routes (api_settings::hold_requests_per_minute).
  pass::pass_budget hold_budget;
  // Reused: a parser keeps its buffers, and requests are parsed one at a time.
  simdjson::ondemand::parser json_parser{};
  std::string json_scratch{};
};

// A callback API as a task: `start(done)` begins the work, and the copyable `done(result)`
// resumes the task with its result. Not a coroutine itself: the operation is awaited
// directly, without a frame of its own between the caller and the work.
template <class Result, class Start>
task<Result> await_callback(Start start) {
  auto initiate = [start = std::move(start)](auto handler) mutable {
    // std::function needs a copyable callable; the coroutine's handler is move-only.
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    start([shared](Result result) { (*shared)(std::move(result)); });
  };
  return net::async_initiate<decltype(use_task), void(Result)>(std::move(initiate), use_task);
}

// `text` with the padding simdjson reads past the end, copied into ctx.json_scratch.
simdjson::padded_string_view padded(context& ctx, std::string_view text);

// Makes the events durable in one write and applies them; ec set if it could not.
task<std::tuple<std::error_code, join_outcome>> commit(context& ctx, std::vector<event> events);
task<std::tuple<std::error_code, join_outcome>> commit(context& ctx, event e);

// Durable events as the log holds them: events[i] has seq first_seq + i.
struct logged_events {
  std::uint64_t first_seq = 0;
  std::vector<std::string> events;
};
// Up to `max_events` events after `after_seq`; nullopt if the store could not read.
task<std::optional<logged_events>> read_events(context& ctx, std::uint64_t after_seq, std::size_t max_events);

// Reads side records; nullopt if the store could not.
task<std::optional<std::vector<std::optional<std::string>>>> read_side_records(context& ctx,
                                                                               std::vector<std::string> keys);

inline response json_response(const request& req, beast::http::status status, std::string body) {
  return response::json(status, req.version(), std::move(body));
}
// A 200 of `body` as `content_type`, neither cached nor sniffed.
response private_text(const request& req, std::string_view content_type, std::string body);
// 503 storage_unavailable: nothing was recorded.
response unavailable(const request& req);
// 404 unknown_room.
response unknown_room(const request& req, std::string_view id);

inline std::int64_t seconds(std::int64_t ms) { return ms / 1000; }

}  // namespace foyer::http
