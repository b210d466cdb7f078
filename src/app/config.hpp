#pragma once
// Foyer's configuration: built-in defaults, overridden by a TOML file, overridden by
// command-line flags. Parsed and validated once at start, then passed down by const&.

#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/public_origin.hpp"
#include "core/base/url.hpp"
#include "core/fairness/ledger_publisher.hpp"
#include "core/gate/pow.hpp"
#include "core/lanes/site_keys.hpp"
#include "core/ops/overload.hpp"
#include "core/rooms/room.hpp"
#include "delivery/notifier.hpp"
#include "delivery/push_sender.hpp"
#include "delivery/sink.hpp"
#include "delivery/smtp_settings.hpp"
#include "http/handlers/context.hpp"
#include "http/server.hpp"
#include "store/cluster_settings.hpp"

namespace foyer::app {

struct network_rule {
  std::string cidr;
  std::uint32_t extra_bits = 0;
};

// [ledger]: the public record of the draws (docs/fairness.md).
struct ledger_settings {
  // The ledger's origin (its checkpoints' first line and its key's name). Default: empty,
  // "<host name>/foyer/ledger".
  std::string origin;
  // Witnesses asked to cosign each new checkpoint (tlog-witness); with any listed, a
  // lottery's seed is revealed only once `quorum` of them cosigned its commit and close.
  std::vector<ledger::witness_listing> witnesses;  // Default: none
  std::size_t quorum = 0;                           // Default: every witness listed
  // drand relays asked for a drand-quicknet room's round, in order.
  // Default: drand's own, https://api.drand.sh and https://drand.cloudflare.com.
  std::vector<http_url> beacon_relays;
};

// [invites]: the site's keys for invite tokens (core/lanes/invite_token.hpp), inline or
// by URL, never both.
struct invites_settings {
  std::optional<invite::jwk_set> jwks;  // Default: none; given inline
  // Default: none. Fetched from the site at start and refreshed: https, or plain http to a
  // loopback or private address only.
  std::optional<http_url> jwks_url;
  // Seconds between fetches of jwks_url, 1 to a day. Default: 300.
  std::int64_t refresh_seconds = invite::default_refresh_seconds;
};

// [notifications]: telling visitors who asked when their turn comes (core/notify/contact_book.hpp,
// delivery/notifier.hpp). Visitors may opt in to push once vapid_subject is set, to email
// once the relay is.
struct notification_settings {
  // The VAPID subject (RFC 8292 §2.1): a mailto: or https:// URI where a push service can
  // reach the operator. Default: empty, and nothing is pushed.
  std::string vapid_subject;
  // allow_private_push_hosts, push_timeout_ms. Default: no host may resolve to a loopback,
  // private or other non-public address; 10 s.
  delivery::push_reach push;
  // [notifications.email]: the operator's SMTP relay (app/smtp_config.hpp). Default: none,
  // no email is sent.
  std::optional<delivery::smtp_settings> email;
  std::uint32_t soon_minutes = 5;  // Default: "your turn in about N minutes" from 5 minutes on
  std::size_t max_contacts_per_room = 100'000;  // Default: 100,000 visitors of one room hold contacts
  delivery::notifier::options outbox;  // queue, max_attempts, concurrent_sends. Defaults: see delivery/notifier.hpp
  // Opt-ins one network (a /24 or /48) may make in [proof_of_work] pressure_window_ms,
  // counted as its joins are (core/gate/join_pressure.hpp). Default: 30.
  std::uint32_t opt_ins_per_network = 30;
  // An address gets a confirmation mail first, and notices only once its holder confirms.
  // Default: false.
  bool confirm = false;

  // The channels visitors may opt in to.
  notify::channel_set channels() const { return {.push = !vapid_subject.empty(), .email = email.has_value()}; }
};

// [cluster]: replicated mode on etcd (store/cluster_leader.hpp).
struct cluster_config {
  store::cluster_settings settings;
  // The secret, pass keys and incarnation every node shares, so that a pass or ticket
  // from one verifies on another: read from here, not from the data dir.
  std::filesystem::path secrets_dir;
};

// The cores this process may run on: those of its CPU affinity (taskset, a cpuset), or fewer
// if its cgroup's CPU quota (Docker's --cpus, a Kubernetes CPU limit) allows fewer. Read at
// the first call, which the process's start makes.
std::size_t usable_cores();

// The HTTP server's limits as Foyer serves: its defaults (http/server.hpp), with the I/O
// threads ops::default_io_threads gives for the usable cores.
http::server_limits serving_limits();

struct config {
  std::string listen = "127.0.0.1:8080";           // Default: loopback, port 8080
  // [server] public_url: the origin of every link Foyer makes. Default: the issuer when it is
  // an http(s) origin (as `foyer init` writes it), else the address the server listens on.
  std::optional<public_origin> public_url;
  std::filesystem::path data_dir = "foyer-data";   // Default: ./foyer-data
  http::server_limits limits = serving_limits();   // Defaults: see serving_limits
  http::api_settings api;                          // Defaults: see http/handlers/context.hpp
  pow::config proof_of_work;                       // Defaults: see core/pow.hpp
  std::vector<network_rule> network_rules;         // Default: none
  ops::overload_settings overload;                 // Defaults: see core/ops/overload.hpp
  std::vector<room_config> rooms;                  // Default: one demo room
  // Rooms whose table says `opens_at_in_past = "accept"`: a new opening in the past or
  // within a minute is set, not refused. Default: none.
  std::set<std::string> past_opening_accepted;
  std::vector<delivery::sink_config> sinks;        // Default: none, no event leaves
  // The CloudEvents `source` of every event sent. Default: empty, "/foyer/<host name>".
  std::string event_source;
  ledger_settings ledger;
  invites_settings invites;  // Default: none, invites are refused
  notification_settings notifications;
  std::optional<cluster_config> cluster;  // Default: none, a single node
};

// A setting that is missing its mark: the message names the key and the problem.
class config_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The built-in defaults: a demo room admitting 60 visitors a minute.
config default_config();

// The defaults as `foyer serve` runs them without a config file: the demo walks the whole
// path on this machine, so the console and the site's calls are on, with fresh tokens
// (CSPRNG) for this run only, printed at start.
config embedded_demo_config();

// A fresh secret token: 24 random bytes as hex.
std::string random_token();

// Defaults overridden by the TOML file at `path`. Throws config_error.
config load_config(const std::filesystem::path& path);

// The same from TOML text; `source` names it in errors.
config parse_config(std::string_view text, const std::string& source);

// Where links start: [server] public_url, else http://`listening` (HOST:PORT, the address
// the server listens on).
public_origin links_at(const config& c, std::string_view listening);
// The warning for a config file that names no public address (neither [server] public_url
// nor an issuer that is an http(s) origin): links start with `at`, the listen address.
std::string unnamed_public_url(const public_origin& at);

// Throws config_error if an endpoint string is not HOST:PORT.
void check_listen(const std::string& listen);

}  // namespace foyer::app
