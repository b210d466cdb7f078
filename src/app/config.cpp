#include "app/config.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "app/password_keys.hpp"
#include "app/smtp_config.hpp"
#include "app/table_reader.hpp"
#include "core/base/bytes.hpp"
#include "core/base/url.hpp"
#include "core/fairness/cosignature.hpp"
#include "core/gate/network.hpp"
#include "core/notify/web_push.hpp"
#include "core/ops/cores.hpp"
#include "core/ops/webhook_signature.hpp"
#include "core/rooms/opening_check.hpp"
#include "store/etcd_client.hpp"

namespace foyer::app {
namespace {

// A room's settings go through the validator the admin API uses: TOML values become
// room_values, and the core decides.
room_value room_value_of(const toml::node& node) {
  if (auto v = node.value_exact<bool>()) return *v;
  if (auto v = node.value_exact<std::int64_t>()) return *v;
  if (auto v = node.value_exact<double>()) return *v;
  if (auto v = node.value_exact<std::string>()) return *v;
  if (const auto* list = node.as_array()) {
    // A list of names or of whole numbers; an empty list is read as names.
    if (!list->empty() && list->front().value_exact<std::int64_t>()) {
      std::vector<std::int64_t> numbers;
      for (const auto& item : *list) {
        auto n = item.value_exact<std::int64_t>();
        if (!n) return other_value{};
        numbers.push_back(*n);
      }
      return numbers;
    }
    std::vector<std::string> items;
    for (const auto& item : *list) {
      auto text = item.value_exact<std::string>();
      if (!text) return other_value{};
      items.push_back(*text);
    }
    return items;
  }
  if (const auto* dt = node.as_date_time()) {
    std::ostringstream text;
    text << *dt;
    return text.str();
  }
  return other_value{};
}

// One setting; a table of settings ([rooms.adaptive], [rooms.lanes.members]) as its keys
// "adaptive.key", "lanes.members.key".
template <class Fail>
void set_from_node(room_config& r, const std::string& key, const toml::node& node, const Fail& fail) {
  const auto* inner = node.as_table();
  if (!inner || !is_room_table(key)) {
    if (auto p = set_room_setting(r, key, room_value_of(node))) fail(*p);
    return;
  }
  if (inner->empty()) fail({key, "must not be empty"});
  for (const auto& [name, value] : *inner) set_from_node(r, fmt::format("{}.{}", key, name.str()), value, fail);
}

// A room's settings, and whether the file means an opening in the past (not a setting:
// it is how this declaration asks, and nothing records it).
room_config read_room(const toml::table& table, std::size_t index, std::set<std::string>& past_opening_accepted) {
  auto where = fmt::format("rooms[{}]", index);
  auto fail = [&](const field_problem& p) {
    throw config_error(fmt::format("config: {}.{}: {}", where, p.field, p.message));
  };
  room_config r;
  bool accept_past_opening = false;
  for (const auto& [key, node] : table) {
    if (key.str() == past_opening_key) {
      if (node.value_exact<std::string>() != past_opening_accept) {
        fail({std::string(past_opening_key), fmt::format("must be \"{}\" (or left out)", past_opening_accept)});
      }
      accept_past_opening = true;
      continue;
    }
    set_from_node(r, std::string(key.str()), node, fail);
  }
  if (auto p = check_room(r)) fail(*p);
  if (accept_past_opening) past_opening_accepted.insert(r.id);
  return r;
}

void read_server(const toml::table& table, config& c) {
  table_reader t(table, "server");
  t.string("listen", c.listen);
  std::string data_dir = c.data_dir.string();
  t.string("data_dir", data_dir);
  c.data_dir = data_dir;
  t.string("issuer", c.api.issuer);
  std::string public_url;
  t.string("public_url", public_url);
  // Without one, an issuer that is an origin (as `foyer init` writes it) is where visitors come.
  c.public_url = public_origin::parse(table.contains("public_url") ? public_url : c.api.issuer);
  if (table.contains("public_url") && !c.public_url) {
    t.fail("public_url", "must be the http:// or https:// origin visitors reach, without a path, e.g. "
                         "\"https://queue.example.com\" or \"http://127.0.0.1:8080\"");
  }
  t.string("event_source", c.event_source);
  t.string("admin_token", c.api.admin_token);
  if (!c.api.admin_token.empty() && c.api.admin_token.size() < 16) {
    t.fail("admin_token", "must be at least 16 characters (or empty to turn the admin API off)");
  }
  t.string("site_token", c.api.site_token);
  if (!c.api.site_token.empty() && c.api.site_token.size() < 16) {
    t.fail("site_token", "must be at least 16 characters (or empty to turn the site's calls off)");
  }
  t.boolean("secure_cookies", c.api.secure_cookies);
  t.integer("status_within_places", c.api.status_within.places, 0, 1'000'000'000);
  t.integer("status_within_seconds", c.api.status_within.seconds, 0, 3600);
  t.integer("hold_requests_per_minute", c.api.hold_requests_per_minute, 0, 1'000'000);
  t.string("account_hint_secret", c.api.account_hint_secret);
  if (!c.api.account_hint_secret.empty() && c.api.account_hint_secret.size() < 16) {
    t.fail("account_hint_secret", "must be at least 16 characters (or empty to refuse account hints)");
  }
  if (const auto* proxies = t.take("trusted_proxies")) {
    const auto* list = proxies->as_array();
    if (!list) t.fail("trusted_proxies", "must be an array of CIDR ranges, e.g. [\"10.0.0.0/8\"]");
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto key = fmt::format("trusted_proxies[{}]", i);
      const auto text = (*list)[i].value<std::string>();
      if (!text) t.fail(key, "must be a CIDR range as a string, e.g. \"10.0.0.0/8\"");
      try {
        c.api.trusted_proxies.push_back(parse_cidr(*text));
      } catch (const std::exception& e) {
        t.fail(key, e.what());
      }
    }
  }
  t.integer("io_threads", c.limits.io_threads, 0, 64);
  t.integer("loop_queue", c.limits.loop_queue, 1, 1'000'000);
  t.integer("max_connections", c.limits.max_connections, 1, 1'000'000);
  t.integer("max_header_bytes", c.limits.header_limit, 1024, 1 << 20);
  t.integer("max_body_bytes", c.limits.body_limit, 1024, 1 << 20);
  t.integer("max_header_fields", c.limits.max_header_fields, 8, 10'000);
  t.integer("max_trailer_bytes", c.limits.trailer_limit, 64, 1 << 20);
  t.integer("max_chunk_line_bytes", c.limits.chunk_line_limit, 64, 1 << 20);
  t.integer("kept_answer_buffer_bytes", c.limits.kept_answer_buffer, 1024, 64 << 20);
  std::int64_t header_timeout = c.limits.header_timeout.count();
  std::int64_t idle_timeout = c.limits.idle_timeout.count();
  t.integer("header_timeout_ms", header_timeout, 100, 600'000);
  t.integer("idle_timeout_ms", idle_timeout, 100, 3'600'000);
  c.limits.header_timeout = std::chrono::milliseconds(header_timeout);
  c.limits.idle_timeout = std::chrono::milliseconds(idle_timeout);
  t.refuse_unknown();
  check_listen(c.listen);
}

void read_proof_of_work(const toml::table& table, config& c) {
  table_reader t(table, "proof_of_work");
  auto& p = c.proof_of_work;
  t.integer("base_bits", p.base_bits, 0, pow::max_difficulty_bits);
  t.integer("puzzles", p.puzzles, 1, pow::max_puzzles);
  t.integer("challenge_ttl_ms", p.challenge_ttl_ms, 1'000, 3'600'000);
  t.integer("pressure_window_ms", p.pressure_window_ms, 1'000, 3'600'000);
  t.integer("pressure_threshold", p.pressure_threshold, 1, 1'000'000);
  t.integer("max_pressure_bits", p.max_pressure_bits, 0, 16);
  t.integer("tracked_networks", p.tracked_networks, 16, 16'777'216);
  t.integer("spent_capacity", p.spent_capacity, 1'024, std::int64_t{1} << 30);
  if (const auto* rules = t.take("network_rules")) {
    const auto* list = rules->as_array();
    if (!list) t.fail("network_rules", "must be an array of { cidr = \"...\", extra_bits = N }");
    std::size_t i = 0;
    for (const auto& item : *list) {
      const auto* rule_table = item.as_table();
      if (!rule_table) t.fail(fmt::format("network_rules[{}]", i), "must be a table { cidr, extra_bits }");
      table_reader rt(*rule_table, fmt::format("proof_of_work.network_rules[{}]", i));
      network_rule rule;
      rt.string("cidr", rule.cidr);
      rt.integer("extra_bits", rule.extra_bits, 0, pow::max_difficulty_bits);
      try {
        parse_cidr(rule.cidr);
      } catch (const std::exception& e) {
        rt.fail("cidr", e.what());
      }
      rt.refuse_unknown();
      c.network_rules.push_back(rule);
      ++i;
    }
  }
  t.refuse_unknown();
  try {
    pow::validate(p);
  } catch (const std::invalid_argument& e) {
    throw config_error(fmt::format("config: proof_of_work: {}", e.what()));
  }
}

// An event type pattern: a type, a prefix ending in ".*", or "*" (type_matches).
bool valid_pattern(std::string_view pattern) {
  if (pattern == "*") return true;
  if (pattern.ends_with(".*")) pattern.remove_suffix(2);
  return !pattern.empty() && pattern.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._") == std::string_view::npos &&
         !pattern.starts_with('.') && !pattern.ends_with('.');
}

// An outbound URL: https, or plain http to a loopback or private address only.
http_url read_outbound_url(table_reader& t, std::string_view key, std::string_view text, std::string_view example) {
  auto parsed = parse_url(text);
  if (!parsed) {
    t.fail(key, fmt::format("must be an http:// or https:// URL without spaces or control characters, e.g. \"{}\"", example));
  }
  if (!parsed->tls && !loopback_or_private(parsed->host)) {
    t.fail(key, fmt::format("http:// only to a loopback or private address (got '{}'); use https://", parsed->host));
  }
  return *parsed;
}

void read_invites(const toml::table& table, invites_settings& invites) {
  table_reader t(table, "invites");
  bool by_url = table.contains("jwks_url");
  if (by_url && table.contains("jwks")) {
    t.fail("jwks_url", "give the site's keys inline (jwks) or by URL (jwks_url), not both");
  }
  if (!by_url && table.contains("refresh_seconds")) {
    t.fail("refresh_seconds", "applies to keys fetched by URL (jwks_url) only");
  }
  std::string jwks;
  std::string url;
  t.string("jwks", jwks);
  t.string("jwks_url", url);
  t.integer("refresh_seconds", invites.refresh_seconds, 1, invite::max_refresh_seconds);
  t.refuse_unknown();
  if (by_url) {
    invites.jwks_url = read_outbound_url(t, "jwks_url", url, "https://shop.example.com/.well-known/invite-keys.json");
    return;
  }
  try {
    invites.jwks = invite::jwk_set::parse(jwks);
  } catch (const std::invalid_argument& e) {
    t.fail("jwks", e.what());
  }
}

void read_ledger(const toml::table& table, config& c) {
  table_reader t(table, "ledger");
  auto& l = c.ledger;
  t.string("origin", l.origin);
  // A witnessed entry holds the cosigned checkpoint: origin, names and lines must fit one
  // ledger entry (tiles::max_entry_size) with room to spare.
  if (l.origin.size() > 255) t.fail("origin", "must be at most 255 bytes");
  if (!l.origin.empty() && !note::valid_key_name(l.origin)) {
    t.fail("origin", "must be a log name without spaces or '+', e.g. \"tickets.example.com/foyer/ledger\"");
  }
  if (const auto* list_node = t.take("witnesses")) {
    const auto* list = list_node->as_array();
    if (!list) t.fail("witnesses", "must be an array of { name, vkey, url } tables");
    if (list->size() > 16) t.fail("witnesses", "lists at most 16 witnesses");
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto* entry = (*list)[i].as_table();
      auto where = fmt::format("witnesses[{}]", i);
      if (!entry) t.fail(where, "must be a table { name = ..., vkey = ..., url = ... }");
      table_reader w(*entry, fmt::format("ledger.{}", where));
      ledger::witness_listing listing;
      std::string url;
      w.string("name", listing.name);
      w.string("vkey", listing.vkey);
      w.string("url", url);
      if (listing.name.size() > 128) w.fail("name", "must be at most 128 bytes");
      if (!cosignature::parse_vkey(listing.vkey) || cosignature::parse_vkey(listing.vkey)->name != listing.name) {
        w.fail("vkey", "must be the witness's cosignature vkey (name+id+key, type 0x04) for this name");
      }
      read_outbound_url(w, "url", url, "https://witness.example.net");
      listing.url = url;
      w.refuse_unknown();
      for (const auto& other : l.witnesses) {
        if (other.name == listing.name) w.fail("name", "is listed twice");
      }
      l.witnesses.push_back(std::move(listing));
    }
  }
  l.quorum = l.witnesses.size();
  t.integer("quorum", l.quorum, l.witnesses.empty() ? 0 : 1, static_cast<std::int64_t>(l.witnesses.size()));
  if (const auto* relays = t.take("beacon_relays")) {
    const auto* list = relays->as_array();
    if (!list) t.fail("beacon_relays", "must be an array of URLs, e.g. [\"https://api.drand.sh\"]");
    l.beacon_relays.clear();
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto text = (*list)[i].value<std::string>();
      auto key = fmt::format("beacon_relays[{}]", i);
      if (!text) t.fail(key, "must be a URL as a string");
      auto relay = read_outbound_url(t, key, *text, "https://api.drand.sh");
      // The grinding guarantee rests on two relays agreeing: two URLs of one server are one relay.
      for (std::size_t j = 0; j < l.beacon_relays.size(); ++j) {
        if (origin_of(l.beacon_relays[j]) == origin_of(relay)) {
          t.fail(key, fmt::format("is the same relay as beacon_relays[{}] ({}): relays that agree stand for the "
                                  "draw only if they are independent, so list each server once",
                                  j, origin_of(relay)));
        }
      }
      l.beacon_relays.push_back(std::move(relay));
    }
  }
  t.refuse_unknown();
}

void read_cluster(const toml::table& table, config& c) {
  table_reader t(table, "cluster");
  auto& cluster = c.cluster.emplace();
  auto& s = cluster.settings;
  const auto* list = t.take("etcd");
  if (!list) t.fail("etcd", "is required: the etcd members' client URLs, e.g. [\"http://10.0.0.5:2379\"]");
  if (!list->is_array() || list->as_array()->empty() || list->as_array()->size() > 9) {
    t.fail("etcd", "must be an array of one to nine URLs, e.g. [\"http://10.0.0.5:2379\"]");
  }
  for (std::size_t i = 0; i < list->as_array()->size(); ++i) {
    auto url = (*list->as_array())[i].value<std::string>();
    auto key = fmt::format("etcd[{}]", i);
    if (!url) t.fail(key, "must be a URL as a string");
    try {
      store::etcd::check_endpoint(*url);
    } catch (const std::invalid_argument& e) {
      t.fail(key, e.what());
    }
    s.etcd.push_back(*url);
  }
  t.string("node_id", s.node_id);
  if (s.node_id.empty() || s.node_id.size() > 64 ||
      s.node_id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos) {
    t.fail("node_id", "is required: this node's own name, 1 to 64 of A-Z a-z 0-9 . _ -");
  }
  t.string("advertise", s.advertise);
  if (s.advertise.size() > 255) t.fail("advertise", "must be at most 255 bytes");
  t.string("prefix", s.prefix);
  if (s.prefix.size() < 2 || s.prefix.size() > 128 || s.prefix.front() != '/' || s.prefix.back() == '/') {
    t.fail("prefix", "must be an etcd key path like \"/foyer/tickets\": from '/', not ending in '/', at most 128 bytes");
  }
  // etcd grants no lease shorter than its election allows (2 s with its defaults).
  t.integer("lease_ttl_seconds", s.lease_ttl_seconds, 2, 60);
  t.integer("retained_entries", s.retained_entries, 1, 100'000'000);
  t.string("etcd_ca_file", s.access.ca_file);
  t.string("etcd_cert_file", s.access.cert_file);
  t.string("etcd_key_file", s.access.key_file);
  const bool tls = std::all_of(s.etcd.begin(), s.etcd.end(), [](const auto& url) { return url.starts_with("https://"); });
  if (!tls && std::any_of(s.etcd.begin(), s.etcd.end(), [](const auto& url) { return url.starts_with("https://"); })) {
    t.fail("etcd", "must be all https:// or all http://");
  }
  for (const auto* key : {"etcd_ca_file", "etcd_cert_file", "etcd_key_file"}) {
    if (table.contains(key) && !tls) t.fail(key, "needs https:// etcd endpoints");
  }
  if (s.access.cert_file.empty() != s.access.key_file.empty()) {
    t.fail(s.access.cert_file.empty() ? "etcd_cert_file" : "etcd_key_file",
           "goes with etcd_cert_file and etcd_key_file both: a client certificate and its key");
  }
  t.string("etcd_user", s.access.user);
  s.access.password = read_password(t, table, "etcd_");
  if (s.access.user.empty() != s.access.password.empty()) {
    t.fail("etcd_user", "goes with a password (etcd_password, etcd_password_file or etcd_password_env), both or neither");
  }
  std::string secrets;
  t.string("secrets_dir", secrets);
  if (secrets.empty()) {
    t.fail("secrets_dir", "is required: a directory every node shares the secret and pass keys through");
  }
  cluster.secrets_dir = secrets;
  t.refuse_unknown();
}

delivery::sink_config read_sink(const toml::table& table, std::size_t index) {
  table_reader t(table, fmt::format("sinks[{}]", index));
  delivery::sink_config s;
  std::string type;
  t.string("type", type);
  if (type == "webhook") {
    s.type = delivery::sink_type::webhook;
  } else if (type == "file") {
    s.type = delivery::sink_type::file;
  } else {
    t.fail("type", "must be \"webhook\" or \"file\"");
  }
  s.name = fmt::format("{}{}", type, index);
  t.string("name", s.name);
  // The name is a metrics label value: kept to characters that need no escaping.
  if (s.name.empty() || s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
                            std::string::npos) {
    t.fail("name", "must be letters, digits, '_', '.' or '-'");
  }
  if (const auto* events = t.take("events")) {
    const auto* list = events->as_array();
    if (!list) t.fail("events", "must be an array of event type patterns, e.g. [\"dev.foyer.room.*\"]");
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto pattern = (*list)[i].value<std::string>();
      if (!pattern || !valid_pattern(*pattern)) {
        t.fail(fmt::format("events[{}]", i), "must be an event type, a prefix ending in \".*\", or \"*\"");
      }
      s.events.push_back(*pattern);
    }
  }
  t.integer("buffer", s.buffer, 1, 10'000'000);
  std::int64_t max_backoff = s.max_backoff.count();
  t.integer("max_backoff_ms", max_backoff, 100, 3'600'000);
  s.max_backoff = std::chrono::milliseconds(max_backoff);
  if (s.type == delivery::sink_type::webhook) {
    std::string url;
    t.string("url", url);
    // Plain http:// would carry the events and their signatures in the clear.
    s.url = read_outbound_url(t, "url", url, "https://hooks.example.com/foyer");
    std::string secret;
    t.string("secret", secret);
    auto key = webhook_key(secret);
    if (!key) t.fail("secret", "must be \"whsec_\" and the base64 of a key of 24 to 64 bytes");
    s.key = std::move(*key);
    std::int64_t timeout = s.timeout.count();
    t.integer("timeout_ms", timeout, 100, 600'000);
    s.timeout = std::chrono::milliseconds(timeout);
  } else {
    std::string path;
    t.string("path", path);
    if (path.empty()) t.fail("path", "must name the file to append to");
    s.path = path;
  }
  t.refuse_unknown();
  return s;
}

void read_notifications(const toml::table& table, notification_settings& n) {
  table_reader t(table, "notifications");
  if (const auto* email = t.take("email")) {
    if (!email->is_table()) t.fail("email", "must be a table");
    n.email = read_email_settings(*email->as_table());
  }
  t.string("vapid_subject", n.vapid_subject);
  if (!n.vapid_subject.empty() && !notify::valid_vapid_subject(n.vapid_subject)) {
    t.fail("vapid_subject", "must be a mailto: or https:// URI of at most 256 bytes, e.g. \"mailto:ops@example.com\"");
  }
  if (const auto* hosts = t.take("allow_private_push_hosts")) {
    const auto* list = hosts->as_array();
    if (!list) t.fail("allow_private_push_hosts", "must be an array of host names or addresses, e.g. [\"127.0.0.1\"]");
    if (list->size() > 64) t.fail("allow_private_push_hosts", "lists at most 64 hosts");
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto host = (*list)[i].value<std::string>();
      if (!host || host->empty() || host->size() > 253) {
        t.fail(fmt::format("allow_private_push_hosts[{}]", i), "must be a host name or an address");
      }
      n.push.private_hosts.push_back(*host);
    }
  }
  std::int64_t timeout = n.push.timeout.count();
  t.integer("push_timeout_ms", timeout, 100, 600'000);
  n.push.timeout = std::chrono::milliseconds(timeout);
  t.integer("soon_minutes", n.soon_minutes, 1, 24 * 60);
  n.outbox.soon_seconds = n.soon_minutes * 60;
  t.integer("max_contacts_per_room", n.max_contacts_per_room, 1, 10'000'000);
  t.integer("queue", n.outbox.queue_capacity, 1, 10'000'000);
  t.integer("max_attempts", n.outbox.max_attempts, 1, 100);
  t.integer("concurrent_sends", n.outbox.concurrent_sends, 1, 1024);
  t.integer("opt_ins_per_network", n.opt_ins_per_network, 1, 1'000'000);
  t.boolean("confirm", n.confirm);
  t.refuse_unknown();
}

void read_overload(const toml::table& table, config& c) {
  table_reader t(table, "overload");
  auto& o = c.overload;
  t.integer("loop_lag_ms", o.loop_lag_ms, 10, 60'000);
  t.integer("commit_ms", o.commit_ms, 10, 600'000);
  t.integer("rise_after_ms", o.rise_after_ms, 0, 600'000);
  t.integer("fall_after_ms", o.fall_after_ms, 0, 3'600'000);
  t.integer("poll_stretch", o.poll_stretch, 1, 10);
  t.integer("far_seconds", o.far_seconds, 0, 86'400);
  t.integer("ready_write_ms", o.ready_write_ms, 2'000, 600'000);
  t.refuse_unknown();
}

}  // namespace

void check_listen(const std::string& listen) {
  auto colon = listen.rfind(':');
  unsigned port = 0;
  auto digits = std::string_view(listen).substr(colon == std::string::npos ? listen.size() : colon + 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (colon == std::string::npos || colon == 0 || ec != std::errc() || end != digits.data() + digits.size() ||
      port > 65535) {
    throw config_error(fmt::format("config: listen: '{}' is not HOST:PORT (e.g. 127.0.0.1:8080 or [::1]:8080)", listen));
  }
}

namespace {

std::size_t read_usable_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::size_t cores = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0
                          ? static_cast<std::size_t>(CPU_COUNT(&allowed))
                          : std::max(1u, std::thread::hardware_concurrency());
  std::ifstream cpu_max("/sys/fs/cgroup/cpu.max");
  std::string text;
  if (std::getline(cpu_max, text)) {
    if (auto quota = ops::quota_cores(text)) cores = std::min(cores, *quota);
  }
  return std::max<std::size_t>(cores, 1);
}

}  // namespace

std::size_t usable_cores() {
  // Read once: every config built (each reload's) takes the default from it.
  static const std::size_t cores = read_usable_cores();
  return cores;
}

http::server_limits serving_limits() {
  http::server_limits limits;
  limits.io_threads = ops::default_io_threads(usable_cores());
  return limits;
}

config default_config() {
  config c;
  room_config demo;
  demo.id = "demo";
  demo.name = "Demo room";
  demo.rate_per_minute = 60;
  demo.target_url = "/welcome";
  // A few seats, so that the whole path can be tried locally: join, admit, hold, confirm.
  demo.inventory.emplace();
  demo.inventory->total = 20;
  c.rooms.push_back(demo);
  for (std::string_view relay : {"https://api.drand.sh", "https://drand.cloudflare.com"}) {
    c.ledger.beacon_relays.push_back(*parse_url(relay));
  }
  return c;
}

std::string random_token() { return to_hex(random_array<24>()); }

public_origin links_at(const config& c, std::string_view listening) {
  if (c.public_url) return *c.public_url;
  return public_origin::parse(fmt::format("http://{}", listening)).value_or(public_origin());
}

std::string unnamed_public_url(const public_origin& at) {
  return fmt::format("[server] public_url is not set (nor an issuer that is an http(s) origin): mailed and pushed "
                     "links, resume links and their QR codes start with {}, the listen address; behind a proxy set "
                     "[server] public_url to the address visitors reach",
                     at.origin());
}

config embedded_demo_config() {
  config c = default_config();
  c.api.admin_token = random_token();
  c.api.site_token = random_token();
  return c;
}

namespace {

template <typename Parse>
toml::table parse_toml(const std::string& source, Parse parse) {
  try {
    return parse();
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw config_error(fmt::format("config: {}:{}:{}: {}", source, where.line, where.column, e.description()));
  }
}

config read_config(const toml::table& root) {
  config c = default_config();
  table_reader top(root, "");
  if (const auto* server = top.take("server")) {
    if (!server->is_table()) top.fail("server", "must be a table");
    read_server(*server->as_table(), c);
  }
  if (const auto* pow_table = top.take("proof_of_work")) {
    if (!pow_table->is_table()) top.fail("proof_of_work", "must be a table");
    read_proof_of_work(*pow_table->as_table(), c);
  }
  if (const auto* overload = top.take("overload")) {
    if (!overload->is_table()) top.fail("overload", "must be a table");
    read_overload(*overload->as_table(), c);
  }
  if (const auto* rooms = top.take("rooms")) {
    const auto* list = rooms->as_array();
    if (!list || list->empty()) top.fail("rooms", "must be one or more [[rooms]] tables");
    c.rooms.clear();
    std::set<std::string> ids;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto* table = list->get(i)->as_table();
      if (!table) top.fail(fmt::format("rooms[{}]", i), "must be a table");
      auto room = read_room(*table, i, c.past_opening_accepted);
      if (!ids.insert(room.id).second) {
        throw config_error(fmt::format("config: rooms[{}].id: '{}' is used by another room", i, room.id));
      }
      c.rooms.push_back(std::move(room));
    }
  }
  if (const auto* invites = top.take("invites")) {
    if (!invites->is_table()) top.fail("invites", "must be a table");
    read_invites(*invites->as_table(), c.invites);
  }
  if (const auto* ledger = top.take("ledger")) {
    if (!ledger->is_table()) top.fail("ledger", "must be a table");
    read_ledger(*ledger->as_table(), c);
  }
  if (const auto* cluster = top.take("cluster")) {
    if (!cluster->is_table()) top.fail("cluster", "must be a table");
    read_cluster(*cluster->as_table(), c);
  }
  if (const auto* notifications = top.take("notifications")) {
    if (!notifications->is_table()) top.fail("notifications", "must be a table");
    read_notifications(*notifications->as_table(), c.notifications);
  }
  if (const auto* sinks = top.take("sinks")) {
    const auto* list = sinks->as_array();
    if (!list) top.fail("sinks", "must be [[sinks]] tables");
    std::set<std::string> names;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto* table = list->get(i)->as_table();
      if (!table) top.fail(fmt::format("sinks[{}]", i), "must be a table");
      auto sink = read_sink(*table, i);
      if (!names.insert(sink.name).second) {
        throw config_error(fmt::format("config: sinks[{}].name: '{}' is used by another sink", i, sink.name));
      }
      c.sinks.push_back(std::move(sink));
    }
  }
  top.refuse_unknown();
  return c;
}

}  // namespace

config load_config(const std::filesystem::path& path) {
  return read_config(parse_toml(path.string(), [&] { return toml::parse_file(path.string()); }));
}

config parse_config(std::string_view text, const std::string& source) {
  return read_config(parse_toml(source, [&] { return toml::parse(text, source); }));
}

}  // namespace foyer::app
