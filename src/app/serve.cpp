#include "app/serve.hpp"

#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/host_name.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <fmt/core.h>

#include "app/data_dir.hpp"
#include "app/invite_key_refresher.hpp"
#include "app/keyring.hpp"
#include "app/log.hpp"
#include "app/ledger_service.hpp"
#include "app/ticker.hpp"
#include "app/vitals.hpp"
#include "core/rooms/journal.hpp"
#include "core/rooms/reconcile.hpp"
#include "core/gate/ticket.hpp"
#include "core/notify/web_push.hpp"
#include "delivery/event_sinks.hpp"
#include "delivery/notice_senders.hpp"
#include "delivery/notifier.hpp"
#include "http/poll_desk.hpp"
#include "http/routes.hpp"
#include "http/server.hpp"
#include "http/problem.hpp"
#include "store/cluster_leader.hpp"
#include "store/rocks_store.hpp"

namespace foyer::app {
namespace {

namespace net = boost::asio;

net::ip::tcp::endpoint parse_endpoint(const std::string& listen) {
  check_listen(listen);
  auto colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code ec;
  auto address = net::ip::make_address(host, ec);
  if (ec) throw config_error(fmt::format("config: listen: '{}' is not an IP address", host));
  return {address, static_cast<unsigned short>(std::stoi(listen.substr(colon + 1)))};
}

// Raises the soft descriptor limit to the hard one, and returns the connections that fit in
// it beside what the server needs (http::descriptor_headroom): fewer than configured only
// when the limit is too low, which is said once, here.
std::size_t connections_within_descriptors(std::size_t max_connections) {
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) != 0) return max_connections;
  if (nofile.rlim_cur < nofile.rlim_max) {
    rlimit raised{nofile.rlim_max, nofile.rlim_max};
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) nofile = raised;
  }
  auto descriptors = nofile.rlim_cur == RLIM_INFINITY ? SIZE_MAX : static_cast<std::size_t>(nofile.rlim_cur);
  auto fit = http::connections_that_fit(max_connections, descriptors);
  if (fit < max_connections) {
    log::warn(fmt::format("server.max_connections {} does not fit in the descriptor limit {} beside the {} the server "
                          "needs; serving at most {} connections (raise `ulimit -n` or LimitNOFILE)",
                          max_connections, descriptors, http::descriptor_headroom, fit));
  }
  return fit;
}

// The server bound to `c.listen`, not yet accepting; a failure names the address and the flag.
std::unique_ptr<http::server> bind_server(net::io_context& ioc, const config& c, const http::server_limits& limits,
                                          http::handler handler) {
  auto endpoint = parse_endpoint(c.listen);
  try {
    return std::make_unique<http::server>(ioc, endpoint, limits, std::move(handler),
                                          [](std::string_view line) { log::error(line); });
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error(fmt::format("cannot listen on {}: {}; choose another address with --listen HOST:PORT "
                                         "(or [server] listen in the config file)",
                                         c.listen, e.code().message()));
  }
}

// In cluster mode a node answers only while its lease holds: a paused leader that wakes
// past its deadline answers nothing, and signs nothing, before it steps down.
http::handler while_leading(const store::cluster_leader& lead, std::unique_ptr<http::routes>& api) {
  return [&lead, &api](http::request& req, const http::peer& who) -> http::task<http::response> {
    if (!lead.holds_lease()) {
      co_return http::problem(req, errc::storage_unavailable, "this node no longer leads the cluster; another takes over");
    }
    co_return co_await api->handle(req, who);
  };
}

// The cluster's log in etcd as the leader sees it: how far it is trimmed, and how far
// behind the slowest standby copies it.
void collect_cluster(const store::cluster_leader& lead, ops::metrics_writer& w) {
  const auto log = lead.log_state();
  w.family("foyer_cluster_log_last_entry", "gauge", "The last entry this leader wrote to the cluster's log in etcd.")
      .sample("foyer_cluster_log_last_entry", {}, log.written);
  w.family("foyer_cluster_log_trimmed_through", "gauge",
           "The cluster's log in etcd is deleted up to and with this entry (every live node holds it).")
      .sample("foyer_cluster_log_trimmed_through", {}, log.trimmed_through);
  w.family("foyer_cluster_standbys", "gauge", "Standbys reporting to this leader what they hold.")
      .sample("foyer_cluster_standbys", {}, log.standbys);
  w.family("foyer_cluster_standby_lag_entries", "gauge",
           "Entries the slowest standby lacks, as of its last report (at most a second old).")
      .sample("foyer_cluster_standby_lag_entries", {}, log.standby_lag);
}

// A node that may no longer lead stops at once, whatever thread finds it out; restarted
// (systemd's Restart=, a Kubernetes pod), it stands by.
void step_down(std::string_view why) {
  log::error(fmt::format("stepping down: {}", why));
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(75);
}

// The built-in demo's tokens, for this run only, the way notebook servers print theirs.
void print_demo_guide(const public_origin& at, const config& c) {
  fmt::print(
      "\nThe built-in demo (no --config file). For this run only:\n"
      "  Waiting room:  {0}/r/{1}\n"
      "  Console:       {0}/admin#token={2}\n"
      "The admin and site tokens for the README's curl examples and the demo shop's curl line,\n"
      "ready to paste (a join asks for a proof of work: `foyer solve` does it):\n"
      "  export ADMIN={2} SITE={3}\n"
      "A config file turns all of this off; `foyer init` writes one for a real sale.\n\n",
      at.origin(), c.rooms.front().id, c.api.admin_token, c.api.site_token);
  std::fflush(stdout);
}

// Derives independent keys from the one server secret.
digest subkey(const digest& secret, std::string_view label) { return hmac_sha256(secret, {as_bytes(label)}); }

// Makes the rooms what `declared` says, or refuses it whole, logging why; `done(true)`
// once the change is durable (or there is none).
void reconcile_rooms(journal& rooms, const clock& clock, const config& declared, std::string_view when,
                     std::function<void(bool)> done) {
  auto planned = plan_reconcile(rooms, declared.rooms, clock.steady_ms(), declared.past_opening_accepted);
  if (const auto* refused = std::get_if<field_problem>(&planned)) {
    log::error(fmt::format("{}: config: {}: {}", when, refused->field, refused->message), {{"field", refused->field}});
    done(false);
    return;
  }
  const auto& plan = std::get<reconcile_plan>(planned);
  if (plan.empty()) {
    auto kept = describe(plan);
    if (kept.empty()) log::info(fmt::format("{}: the rooms are as the file declares them", when));
    for (const auto& line : kept) log::info(fmt::format("{}: {}", when, line));
    done(true);
    return;
  }
  const std::int64_t at_ms = clock.steady_ms();
  auto events = reconcile_events(plan, at_ms, [] { return random_array<32>(); });
  rooms.submit(std::move(events), [&rooms, at_ms, changes = plan.change, lines = describe(plan), when = std::string(when),
                                    done = std::move(done)](std::error_code ec, const join_outcome&) {
    if (ec) {
      log::error(fmt::format("{}: the rooms' changes could not be made durable: {}", when, ec.message()));
      done(false);
      return;
    }
    for (const auto& line : lines) log::info(fmt::format("{}: {}", when, line));
    // The seats are decided when a change applies: those that holds written meanwhile
    // would not fit are kept, and the next reload tries them again.
    bool all_applied = true;
    for (const auto& c : changes) {
      const room* r = rooms.find(c.config.id);
      auto kept = r ? r->refuses_seats(c.config, at_ms) : std::nullopt;
      if (!kept) continue;
      all_applied = false;
      log::error(fmt::format("{}: config: room '{}': {}: {} ({} held, {} confirmed); kept as it was", when, c.config.id,
                             kept->field, kept->message, r->seats().held(), r->seats().confirmed()),
                 {{"field", kept->field}});
    }
    done(all_applied);
  });
}

// FOYER_TEST_CLOCK_OFFSET_MS moves the server's clocks by that much, for tests only: a
// draw committed to a drand round that is already recorded runs with its clock in the
// past. Said loudly at start.
std::int64_t test_clock_offset_ms = 0;
std::int64_t offset_wall_ms() { return system_clock::wall_source() + test_clock_offset_ms; }

system_clock serving_clock() {
  const char* offset = std::getenv("FOYER_TEST_CLOCK_OFFSET_MS");
  if (!offset || !*offset) return system_clock();
  test_clock_offset_ms = std::stoll(offset);
  log::warn(fmt::format("FOYER_TEST_CLOCK_OFFSET_MS: the clock is {} ms off the system's, for tests only",
                        test_clock_offset_ms));
  return system_clock(offset_wall_ms);
}

// The contacts acknowledged before the restart go back into the book; records that cannot
// be read, and the contacts of a channel no longer configured, are deleted: nobody would be
// told through them.
void restore_contacts(notify::contact_book& book, event_store& store,
                      std::vector<std::pair<std::string, std::string>> records, notify::channel_set channels) {
  std::vector<record_change> changes;
  std::size_t malformed = 0;
  for (auto& record : records) {
    if (book.restore(record.first, record.second)) continue;
    ++malformed;
    changes.push_back({std::move(record.first), std::nullopt});
  }
  if (!channels.push) book.forget_channel(notify::channel::push);
  if (!channels.email) book.forget_channel(notify::channel::email);
  for (auto& change : book.take_changes()) changes.push_back(std::move(change));
  if (book.size() > 0) {
    log::info(fmt::format("notifications: the contacts of {} visitor(s) are kept from the last run", book.size()));
  }
  if (malformed > 0) log::warn(fmt::format("notifications: {} unreadable contact record(s) deleted", malformed));
  if (changes.empty()) return;
  store.write_contacts(std::move(changes), [](std::error_code ec) {
    if (ec) log::warn(fmt::format("notifications: the contact records could not be updated: {}", ec.message()));
  });
}

// A single node's log must be marked with its incarnation (core/cluster/log_claim.hpp):
// a log deleted beside a kept secret would give the places of the tickets out again.
void claim_local_log(store::rocks_store& store, const recovered_log& log, const cluster::log_identity& self,
                     const std::filesystem::path& data_dir) {
  const bool empty = !log.snapshot && log.events.empty();
  const auto claim = cluster::judge_log(store.incarnation_mark(), empty, self);
  if (claim == cluster::log_claim::lead) return;
  if (claim != cluster::log_claim::adopt) {
    throw std::runtime_error(cluster::log_refusal(claim, fmt::format("the log in {}", (data_dir / "log").string()),
                                                  fmt::format("foyer new-incarnation --data-dir {}", data_dir.string())));
  }
  store.mark_incarnation(self.mark);
}

}  // namespace

int serve(const config& c, const std::optional<std::filesystem::path>& config_file) {
  system_clock clock = serving_clock();
  // One thread runs the loop and does all socket and timer work; the storage thread
  // only posts completions, which stay locked. So the reactor needs no locks.
  net::io_context ioc{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  auto limits = c.limits;
  limits.max_connections = connections_within_descriptors(limits.max_connections);
  // Bound first, accepting only once the rooms are durable: an address in use stops the
  // start before anything is written to the data dir. A standby binds only once it
  // leads: until then a connection to it is refused, and a proxy tries the next node
  // at once instead of waiting on a listener that never answers.
  std::unique_ptr<http::routes> api;
  std::unique_ptr<http::server> server;
  std::optional<store::cluster_leader> cluster;
  auto bind = [&] {
    server = bind_server(ioc, c, limits,
                         cluster ? while_leading(*cluster, api)
                                 : http::handler([&api](http::request& req, const http::peer& who) { return api->handle(req, who); }));
  };
  if (!c.cluster) bind();
  // Registered before the log is recovered, which can take a while: a SIGHUP meanwhile
  // (a `systemctl reload` during the start) is kept for later instead of ending the process.
  net::signal_set reloads(ioc, SIGHUP);

  prepare_data_dir(c.data_dir);
  const auto& secrets_dir = c.cluster ? c.cluster->secrets_dir : c.data_dir;
  if (c.cluster) prepare_data_dir(secrets_dir);

  ops::metrics_registry metrics;
  ops::overload_ladder overload(c.overload);
  vitals health(ioc, clock, overload, metrics);
  store::options store_options;
  store_options.on_commit = [&health](const store::commit_report& r) { health.committed(r); };
  store::rocks_store store(c.data_dir / "log", [&ioc](std::function<void()> f) { net::post(ioc, std::move(f)); },
                           std::move(store_options));
  journal rooms(store);
  auto recovered = store.recover();
  // A secret made by this start is known to have issued no ticket: made only once the log
  // opened, and the log marked right after, so that a first start that fails leaves no
  // secret beside an unmarked log (which the next start would refuse).
  bool secret_new = false;
  auto secret = load_or_create_secret(secrets_dir, &secret_new);
  const auto incarnation = load_incarnation(secrets_dir);
  auto tickets = make_ticket_codec(secret, incarnation);
  const auto self = log_identity_of(secret, incarnation, secret_new);
  // Alone, the data dir's log is the sale's: it must hold this incarnation's tickets. In
  // cluster mode, etcd's log is, and lead() checks it.
  if (!c.cluster) claim_local_log(store, recovered, self, c.data_dir);
  auto keys = load_or_create_keyring(secrets_dir, clock.now_ms() / 1000);
  rooms.recover(std::move(recovered), c.rooms);
  // A standby keeps the rooms in memory as the leader's entries come: once it leads, it
  // serves at once, with no log to replay.
  if (c.cluster) {
    cluster.emplace(c.cluster->settings, [](std::string_view line) { log::info(line); }, step_down);
    cluster->lead(store, [&rooms](const cluster::log_entry& e) { rooms.follow(e.events, e.side_records); }, self);
    rooms.lead();
    store.replicate_to(*cluster);
    bind();
  }
  auto stored_contacts = store.load_contacts();
  clock.not_before(rooms.latest_ms());
  // Follows the log from here on: recovery's replay is not sent again (the audit export has it).
  delivery::event_sinks sinks(ioc, clock, c.event_source.empty() ? "/foyer/" + net::ip::host_name() : c.event_source,
                              c.sinks);
  sinks.follow(rooms);
  store.start();
  health.start(store);

  bool start_failed = false;
  network_rules rules;
  for (const auto& rule : c.network_rules) rules.add(rule.cidr, rule.extra_bits);
  join_price price(subkey(secret, "foyer/pow-secret/v1"), c.proof_of_work,
                   static_cast<std::uint64_t>(clock.now_ms()), std::move(rules));
  rate_controller rates;
  // The ledger's key is the deployment's: derived from its secret, like the others.
  auto ledger_seed = subkey(secret, "foyer/ledger-key/v1");
  ledger::publisher publisher(c.ledger.origin.empty() ? net::ip::host_name() + "/foyer/ledger" : c.ledger.origin,
                              ledger_seed, c.ledger.witnesses, c.ledger.quorum);
  rooms.require_witnesses(!c.ledger.witnesses.empty());
  auto api_settings = c.api;
  const auto bound = server->local_endpoint();
  const auto at = bound.address().is_v6() ? fmt::format("[{}]:{}", bound.address().to_string(), bound.port())
                                          : fmt::format("{}:{}", bound.address().to_string(), bound.port());
  api_settings.public_url = links_at(c, at);
  api_settings.public_url_named = c.public_url.has_value();
  api_settings.beacon_relays = c.ledger.beacon_relays.size();
  api_settings.code_key = subkey(secret, "foyer/access-codes/v1");
  api_settings.account_key = subkey(secret, "foyer/account-key/v1");
  api_settings.resume_key = subkey(secret, "foyer/resume-key/v1");
  // The site's invite keys: inline, as given; by URL, fetched on the loop, off the join path.
  auto invite_keys = c.invites.jwks_url ? invite::site_keys::fetched(c.invites.refresh_seconds * 1000, clock.steady_ms())
                     : c.invites.jwks   ? invite::site_keys(*c.invites.jwks)
                                        : invite::site_keys();
  api_settings.invite_keys = &invite_keys;
  // Visitors' contacts (core/notify/contact_book.hpp), and the notices sent to them off the
  // visitors' path: push once a VAPID subject is set, email once a relay is.
  notify::contact_book contacts(c.notifications.max_contacts_per_room, subkey(secret, "foyer/notice-addresses/v1"),
                                c.notifications.confirm);
  delivery::notifier notices(ioc, clock, rooms, contacts, store, c.notifications.outbox);
  delivery::notice_senders notice_senders(ioc, clock, rooms, api_settings.public_url);
  auto channels = c.notifications.channels();
  restore_contacts(contacts, store, std::move(stored_contacts), channels);
  if (channels.push) {
    notice_senders.use_push(*keys.vapid(), c.notifications.vapid_subject, c.notifications.push);
    api_settings.vapid_public_key = notify::vapid_public_key(*keys.vapid());
  }
  if (channels.email) notice_senders.use_email(*c.notifications.email);
  if (channels.any()) {
    notice_senders.attach(notices);
    api_settings.contacts = &contacts;
    api_settings.notify_channels = channels;
    api_settings.private_push_hosts = c.notifications.push.private_hosts;
    api_settings.opt_in_pressure = c.proof_of_work;
    api_settings.opt_in_pressure.pressure_threshold = c.notifications.opt_ins_per_network;
    api_settings.confirm_email = c.notifications.confirm;
    metrics.add([&notices](ops::metrics_writer& w) { notices.collect(w); });
  }
  api = std::make_unique<http::routes>(rooms, store, tickets, keys, clock, price, rates, api_settings, overload, publisher,
                                       metrics);
  // With I/O threads, the frontier and far-back status polls are answered there
  // (http/poll_desk.hpp).
  http::poll_desks polls_near(ioc, rooms, clock, tickets, api_settings.status_within, overload,
                              [&api](const http::poll_desk::answered& a) { api->count_near_polls(a.status, a.frontier); });
  server->answer_near([&polls_near](net::io_context& home) { return polls_near.open(home); });
  metrics.add([&sinks](ops::metrics_writer& w) { sinks.collect(w); });
  if (cluster) metrics.add([&cluster](ops::metrics_writer& w) { collect_cluster(*cluster, w); });
  std::optional<invite_key_refresher> invite_fetches;
  if (c.invites.jwks_url) {
    invite_fetches.emplace(ioc, clock, *c.invites.jwks_url, invite_keys);
    invite_fetches->start();
    metrics.add([&invite_fetches](ops::metrics_writer& w) { invite_fetches->collect(w); });
  }
  ticker admissions(ioc, rooms, rates, clock);
  ledger_service draws(ioc, rooms, publisher, clock, c.ledger);
  auto work = net::make_work_guard(ioc);

  // SIGHUP reopens the file sinks' files (after logrotate) and reloads the file's
  // [[rooms]]: the difference is applied, or the whole file refused and the running rooms
  // kept. Other settings take effect at the next start. Awaited once the start's rooms
  // are durable; one that came earlier waits in `reloads`.
  std::function<void()> await_reload = [&] {
    reloads.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      await_reload();
      sinks.reopen();
      if (!config_file) {
        log::warn("reload: no --config file was given; the built-in rooms stay");
        return;
      }
      try {
        reconcile_rooms(rooms, clock, load_config(*config_file), "reload", [](bool) {});
      } catch (const config_error& e) {
        log::error(fmt::format("reload: {}; the running rooms are kept", e.what()));
      }
    });
  };

  auto listen = [&] {
    server->start();
    polls_near.start();
    log::info(fmt::format("serving {} room(s) on http://{} (data dir {}); links start with {}", rooms.rooms().size(), at,
                          c.data_dir.string(), api_settings.public_url.origin()),
              {{"rooms", rooms.rooms().size()},
               {"listen", at},
               {"public_url", api_settings.public_url.origin()},
               {"data_dir", c.data_dir.string()},
               {"io_threads", limits.io_threads}});
    if (!config_file) {
      print_demo_guide(api_settings.public_url, c);
    } else if (!c.public_url) {
      log::warn(unnamed_public_url(api_settings.public_url));
    }
  };
  // After a restart the first step is durable before anyone is answered: a lobby whose
  // close passed while the server was down is closed, not joined. (An open room's
  // frontier needs no wait: it is already rate × time from the last durable step.)
  auto start_serving = [&] {
    admissions.start(listen);
    draws.start();
    if (channels.any()) notices.start();
    await_reload();
  };

  // The file's rooms are made durable before anyone is answered: a new room's seed
  // must be in the log before its commitment is published.
  reconcile_rooms(rooms, clock, c, "start", [&](bool ok) {
    if (ok) return start_serving();
    start_failed = true;
    ioc.stop();
  });

  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (ec) return;
    log::info("stopping: finishing requests in flight");
    admissions.stop();
    draws.stop();
    health.stop();
    reloads.cancel();
    sinks.stop();
    notices.stop();
    if (invite_fetches) invite_fetches->stop();
    polls_near.stop();
    server->stop([&] { work.reset(); });
  });

  ioc.run();
  // Every write queued so far is finished before the process exits.
  store.stop();
  // A standby takes over at once, not once the lease lapses.
  if (cluster) cluster->resign();
  if (start_failed) return 1;
  log::info("stopped");
  return 0;
}

std::vector<std::string> route_table() {
  // Only the table is read: nothing is joined, signed or written, so zero keys and a
  // tiny spent-challenge set do.
  struct temp_dir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / fmt::format("foyer-routes-{}", to_hex(random_array<8>()));
    ~temp_dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } dir;
  store::rocks_store store(dir.path, [](std::function<void()>) {});
  journal rooms(store);
  const digest key{};
  ticket_codec tickets(key);
  pass::keyring keys(pass::generate_key(0));
  system_clock clock;
  pow::config pow;
  pow.spent_capacity = 1;
  join_price price(key, pow, 0, {});
  rate_controller rates;
  ops::overload_ladder overload({});
  ops::metrics_registry metrics;
  ledger::publisher publisher("routes", key, {}, 0);
  http::routes table(rooms, store, tickets, keys, clock, price, rates, {}, overload, publisher, metrics);
  return table.table();
}

}  // namespace foyer::app
