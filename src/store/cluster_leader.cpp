#include "store/cluster_leader.hpp"

#include <pthread.h>

#include <cstdlib>
#include <stop_token>
#include <thread>

#include <fmt/format.h>

#include "core/base/json.hpp"
#include "core/cluster/log_entry.hpp"
#include "core/cluster/log_trim.hpp"

namespace foyer::store {
namespace {

using std::chrono::milliseconds;

// How often a standby looks for new entries and for a free leader key: the most a
// takeover waits beyond the lease's lapse.
constexpr milliseconds standby_poll{100};
// Entries read from etcd at a time while catching up.
constexpr std::int64_t catch_up_batch = 64;
// The pause before an unknown write is tried again.
constexpr milliseconds retry_pause{20};
// How often a standby reports the entries it holds, and the leader trims the log.
constexpr milliseconds held_report_every{1000};
constexpr milliseconds trim_every{1000};
// Reports read at once: far more nodes than a cluster has.
constexpr std::int64_t max_reports = 256;

std::int64_t now_ms() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The key just after `key`: a range of one key.
std::string after(const std::string& key) { return key + '\0'; }

}  // namespace

cluster_leader::cluster_leader(cluster_settings settings, line_function say, line_function step_down)
    : settings_(std::move(settings)),
      quarter_ttl_(settings_.lease_ttl_seconds * 1000 / 4),
      say_(std::move(say)),
      step_down_(std::move(step_down)),
      leader_key_(cluster::leader_key(settings_.prefix)),
      standby_client_(settings_.etcd, settings_.access, quarter_ttl_),
      log_client_(settings_.etcd, settings_.access, quarter_ttl_),
      lease_clock_(settings_.lease_ttl_seconds * 1000, settings_.lease_ttl_seconds * 1000 / 4) {}

cluster_leader::~cluster_leader() = default;

bool cluster_leader::holds_lease() const { return now_ms() < deadline_ms_.load(std::memory_order_acquire); }

void cluster_leader::stop_leading(std::string_view why) {
  step_down_(why);
  std::_Exit(EXIT_FAILURE);  // step_down_ ends the process; this only makes sure of it
}

// Copies the entries after the store's own; false if etcd could not be read.
bool cluster_leader::catch_up(rocks_store& store, const entry_function& applied) {
  for (;;) {
    const auto caught_up = copy_batch(store, applied);
    if (!caught_up) return false;
    if (*caught_up) return true;
  }
}

// Copies up to a batch of the entries after the store's own: nothing if etcd could not be
// read, else whether the store now holds the whole log.
std::optional<bool> cluster_leader::copy_batch(rocks_store& store, const entry_function& applied) {
  const std::uint64_t next = store.cluster_entries() + 1;
  auto found = standby_client_.range(cluster::log_key(settings_.prefix, next), cluster::log_keys_end(settings_.prefix),
                                     catch_up_batch);
  if (!found) return std::nullopt;
  for (const auto& kv : *found) {
    const auto entry = cluster::log_key_entry(settings_.prefix, kv.key);
    if (entry != store.cluster_entries() + 1) {
      throw store_error(fmt::format(
          "this node holds {} entries of the cluster's log, but etcd's copy goes on only at '{}': the entries "
          "between were deleted while this node was away, once every live node held them. Start it from a backup "
          "of the leader: `foyer backup --secrets-dir` there, `foyer restore --secrets-dir` into a new data dir "
          "here (README, \"Running two or three nodes\")",
          store.cluster_entries(), kv.key));
    }
    auto decoded = cluster::decode_log_entry(kv.value);
    if (!decoded) throw store_error(fmt::format("the cluster's log entry {} is not one this build reads", *entry));
    store.apply_entry(*entry, *decoded);
    applied(*decoded);
  }
  return static_cast<std::int64_t>(found->size()) < catch_up_batch;
}

// A leader whose store holds entries the cluster's log lacks (etcd wiped or restored
// from an older backup) would fork the log: it refuses to lead instead.
void cluster_leader::check_log_not_behind(const rocks_store& store) {
  const std::uint64_t held = store.cluster_entries();
  if (held == 0) return;
  const auto key = cluster::log_key(settings_.prefix, held);
  for (;;) {
    if (auto found = standby_client_.range(key, after(key), 1)) {
      if (!found->empty()) return;
      throw store_error(fmt::format(
        "this node's store holds {} entries of the cluster's log, but etcd has no entry {} under '{}': was etcd "
        "wiped or restored? Refusing to lead. Keep this data dir: it holds the sale. To serve from it alone, take "
        "a backup of it (`foyer backup --data-dir DIR --secrets-dir SHARED --to BACKUP`) and restore that "
        "single-node (`foyer restore --from BACKUP --data-dir NEWDIR`): a new incarnation, which honours only "
        "the tickets this log holds",
        held, held, settings_.prefix));
    }
    if (!holds_lease()) stop_leading("the lease lapsed before the cluster's log could be checked");
    std::this_thread::sleep_for(retry_pause);
  }
}

// Keeps the lease alive; false when it is gone from etcd or etcd did not answer.
bool cluster_leader::renew(etcd::client& client) {
  const std::int64_t sent = now_ms();
  const auto ttl = client.keep_alive(lease_);
  if (!ttl || *ttl <= 0) return false;
  lease_clock_.renewed(sent, *ttl * 1000);
  deadline_ms_.store(lease_clock_.deadline_ms(), std::memory_order_release);
  return true;
}

// The leader key's create revision if this node now holds it.
std::optional<std::int64_t> cluster_leader::campaign() {
  const etcd::guard free{etcd::guard::target::create_revision, leader_key_, 0};
  auto r = standby_client_.txn({free}, leader_key_, leader_value_, lease_, leader_key_);
  if (!r.answered) return std::nullopt;
  auto reply = etcd::client::parse_txn(r.body);
  if (!reply) return std::nullopt;
  if (reply->succeeded) return reply->revision;
  // An earlier try whose answer was lost may have put this very claim.
  if (!reply->found.empty() && reply->found.front().value == leader_value_) return reply->found.front().create_revision;
  return std::nullopt;
}

// A store that followed an earlier log under this prefix (etcd wiped, and a new
// incarnation's log begun since) must not copy the new log's entries after its own. The
// store keeps the mark of the log it follows; one that holds entries and no mark (from
// before marks) cannot show which log they are, and is refused too (cluster::may_follow).
void cluster_leader::check_same_log(rocks_store& store) {
  const auto key = cluster::incarnation_key(settings_.prefix);
  for (std::string said;; std::this_thread::sleep_for(standby_poll)) {
    auto found = standby_client_.range(key, after(key), 1);
    if (!found) {
      auto line = fmt::format("standby: etcd does not answer at {} ({}); trying again", fmt::join(settings_.etcd, ", "),
                              standby_client_.last_problem());
      if (line != said) say_(line);
      said = std::move(line);
      continue;
    }
    if (found->empty()) return;
    const auto& mark = found->front().value;
    const auto local = store.incarnation_mark();
    if (!cluster::may_follow(local, store.cluster_entries(), mark)) {
      throw store_error(fmt::format(
          "this node's store holds {} entries of another cluster's log than the one under '{}' ({}): it cannot "
          "continue it. Start it with a new data dir; it copies the log from etcd",
          store.cluster_entries(), settings_.prefix,
          local ? "an earlier one: a new incarnation's log was begun after etcd lost it"
                : "its store has no mark, so nothing shows the log it holds is that one"));
    }
    if (local != mark) store.mark_incarnation(mark);
    return;
  }
}

// The cluster's log must be marked with this node's incarnation before it leads it: a log
// that lacks its tickets would give their places again (core/cluster/log_claim.hpp). The
// mark is written under the leader key's fence, as an entry is.
void cluster_leader::claim_log(rocks_store& store, const cluster::log_identity& self) {
  const auto key = cluster::incarnation_key(settings_.prefix);
  for (;; std::this_thread::sleep_for(retry_pause)) {
    if (!holds_lease()) stop_leading("the lease lapsed before the cluster's log mark could be read");
    auto found = standby_client_.range(key, after(key), 1);
    if (!found) continue;
    std::optional<std::string> mark;
    if (!found->empty()) mark = found->front().value;
    const auto claim = cluster::judge_log(mark, store.cluster_entries() == 0, self);
    if (claim == cluster::log_claim::lead) break;
    if (claim != cluster::log_claim::adopt) {
      throw store_error(cluster::log_refusal(claim, fmt::format("the cluster's log under '{}'", settings_.prefix),
                                             "foyer new-incarnation --config FILE"));
    }
    const std::vector<etcd::guard> still_ours{{etcd::guard::target::create_revision, leader_key_, token_}};
    auto r = standby_client_.txn(still_ours, key, self.mark, 0, leader_key_);
    auto reply = r.answered ? etcd::client::parse_txn(r.body) : std::nullopt;
    if (!reply) continue;
    if (!reply->succeeded) stop_leading("deposed before the cluster's log could be marked as this node's");
    say_(fmt::format("the cluster's log under '{}' is marked as this secret's incarnation's ({})", settings_.prefix,
                     self.mark));
    break;
  }
  if (store.incarnation_mark() != self.mark) store.mark_incarnation(self.mark);
}

void cluster_leader::lead(rocks_store& store, const entry_function& applied, const cluster::log_identity& self) {
  std::string said;
  auto say_once = [&](std::string line) {
    if (line != said) say_(line);
    said = std::move(line);
  };
  std::int64_t renewed_at = 0;
  check_same_log(store);
  // A batch a turn: a standby copying a long log renews its lease and reports what it holds
  // as it goes, or the leader would delete the entries it has yet to copy.
  for (bool behind = false;; std::this_thread::sleep_for(behind ? milliseconds(0) : standby_poll)) {
    const auto caught_up = copy_batch(store, applied);
    behind = caught_up && !*caught_up;
    if (!caught_up) {
      say_once(fmt::format("standby: etcd does not answer at {} ({}); trying again", fmt::join(settings_.etcd, ", "),
                           standby_client_.last_problem()));
      continue;
    }
    if (lease_ == 0 || now_ms() - renewed_at >= quarter_ttl_.count()) {
      if (lease_ != 0 && !renew(standby_client_)) lease_ = 0;
      if (lease_ == 0) {
        const std::int64_t sent = now_ms();
        auto granted = standby_client_.grant(settings_.lease_ttl_seconds);
        if (!granted) continue;
        lease_ = *granted;
        lease_clock_ = cluster::lease_clock(settings_.lease_ttl_seconds * 1000, settings_.lease_ttl_seconds * 1000 / 4);
        lease_clock_.renewed(sent, settings_.lease_ttl_seconds * 1000);
        deadline_ms_.store(lease_clock_.deadline_ms(), std::memory_order_release);
        leader_value_ = json_object()
                            .str("node", settings_.node_id)
                            .str("url", settings_.advertise)
                            .str("lease", std::to_string(lease_))
                            .done();
      }
      renewed_at = now_ms();
    }
    report_held(store);
    if (behind || !holds_lease()) continue;
    if (auto token = campaign()) {
      token_ = *token;
      break;
    }
    auto holder = standby_client_.range(leader_key_, after(leader_key_), 1);
    if (holder && !holder->empty()) say_once(fmt::format("standby: {} leads; copying its log", holder->front().value));
  }
  keepalive_ = std::jthread([this](std::stop_token stop) { keep_alive(stop); });
  // Entries the last leader wrote before its lease lapsed; none can come after them now.
  while (!catch_up(store, applied)) {
    if (!holds_lease()) stop_leading("the lease lapsed before the cluster's log could be read");
    std::this_thread::sleep_for(retry_pause);
  }
  check_log_not_behind(store);
  claim_log(store, self);
  written_.store(store.cluster_entries(), std::memory_order_release);
  trimmer_ = std::jthread([this](std::stop_token stop) { trim(stop); });
  say_(fmt::format("leading the cluster under '{}' as {} (fencing token {}, {} log entries held)", settings_.prefix,
                   settings_.node_id, token_, store.cluster_entries()));
}

// Tells the leader, under this node's lease, how many entries it holds: at once under a
// new lease, then at most once a second while it changes.
void cluster_leader::report_held(const rocks_store& store) {
  const std::uint64_t held = store.cluster_entries();
  if (lease_ == 0) return;
  if (lease_ == reported_lease_ && (held == reported_held_ || now_ms() - reported_at_ms_ < held_report_every.count())) {
    return;
  }
  const auto key = cluster::held_key(settings_.prefix, settings_.node_id);
  if (!standby_client_.txn({}, key, std::to_string(held), lease_, key).answered) return;
  reported_held_ = held;
  reported_lease_ = lease_;
  reported_at_ms_ = now_ms();
}

// Once a second: reads what the standbys hold, and deletes the entries every one of them
// has, less the window kept (core/cluster/log_trim.hpp). Only while the leader key is
// still this node's: a deposed leader deletes nothing.
void cluster_leader::trim(std::stop_token stop) {
  ::pthread_setname_np(::pthread_self(), "foyer-trim");
  etcd::client client(settings_.etcd, settings_.access, quarter_ttl_);
  const std::vector<etcd::guard> still_ours{{etcd::guard::target::create_revision, leader_key_, token_}};
  for (std::int64_t next = now_ms(); !stop.stop_requested(); std::this_thread::sleep_for(milliseconds(10))) {
    if (now_ms() < next) continue;
    next = now_ms() + trim_every.count();
    auto reports = client.range(cluster::held_keys_begin(settings_.prefix), cluster::held_keys_end(settings_.prefix),
                                max_reports);
    if (!reports) continue;
    const std::uint64_t written = written_.load(std::memory_order_acquire);
    std::vector<std::uint64_t> held;
    for (const auto& kv : *reports) {
      if (cluster::held_key_node(settings_.prefix, kv.key) == settings_.node_id) continue;
      // A report this build cannot read holds the log back rather than lose a node's entries.
      held.push_back(cluster::held_value(kv.value).value_or(0));
    }
    const std::uint64_t lowest = cluster::lowest_held(written, held);
    standbys_.store(held.size(), std::memory_order_relaxed);
    standby_lag_.store(written - lowest, std::memory_order_relaxed);
    const std::uint64_t through = cluster::trim_through(lowest, settings_.retained_entries);
    const std::uint64_t trimmed = trimmed_through_.load(std::memory_order_relaxed);
    if (through <= trimmed) continue;
    // From the last trim on, not from the first entry: etcd keeps a deleted key in its index
    // until it compacts, and a range visits each, so a range from 0 grows every second.
    auto r = client.delete_range_if(still_ours, cluster::log_key(settings_.prefix, trimmed + 1),
                                    cluster::log_key(settings_.prefix, through + 1));
    auto reply = r.answered ? etcd::client::parse_txn(r.body) : std::nullopt;
    if (reply && reply->succeeded) trimmed_through_.store(through, std::memory_order_relaxed);
  }
}

cluster_leader::log_view cluster_leader::log_state() const {
  return {written_.load(std::memory_order_acquire), trimmed_through_.load(std::memory_order_relaxed),
          standbys_.load(std::memory_order_relaxed), standby_lag_.load(std::memory_order_relaxed)};
}

// Renews the lease every quarter TTL, and at once through the next endpoint when one does
// not answer. The deadline itself is kept by holds_lease(), which every answer checks: a
// leader steps down when etcd says the lease is gone, or when it could not renew in time.
void cluster_leader::keep_alive(std::stop_token stop) {
  ::pthread_setname_np(::pthread_self(), "foyer-lease");
  etcd::client client(settings_.etcd, settings_.access, quarter_ttl_);
  std::int64_t next = now_ms();
  while (!stop.stop_requested()) {
    if (now_ms() < next) {
      std::this_thread::sleep_for(milliseconds(10));
      continue;
    }
    next = now_ms() + quarter_ttl_.count();
    const std::int64_t sent = now_ms();
    const auto ttl = client.keep_alive(lease_);
    if (ttl && *ttl <= 0) stop_leading("the lease is gone from etcd: another node may lead");
    if (ttl) {
      lease_clock_.renewed(sent, *ttl * 1000);
      deadline_ms_.store(lease_clock_.deadline_ms(), std::memory_order_release);
    } else if (!holds_lease()) {
      stop_leading("the lease could not be renewed before its deadline");
    } else {
      next = now_ms();
    }
  }
}

void cluster_leader::resign() {
  for (auto* thread : {&trimmer_, &keepalive_}) {
    if (!thread->joinable()) continue;
    thread->request_stop();
    thread->join();
  }
  if (lease_ != 0) standby_client_.revoke(lease_);
  deadline_ms_.store(0, std::memory_order_release);
}

std::error_code cluster_leader::replicate(std::uint64_t entry, std::uint64_t first_seq,
                                          std::span<const std::string_view> events,
                                          std::span<const side_record> side_records) {
  const std::string bytes = cluster::encode_log_entry(first_seq, events, side_records);
  const std::string key = cluster::log_key(settings_.prefix, entry);
  // Ours to write only while the leader key is still the one this node created, and
  // only if no one wrote this entry yet.
  const std::vector<etcd::guard> guards{{etcd::guard::target::create_revision, leader_key_, token_},
                                        {etcd::guard::target::version, key, 0}};
  std::string problem;
  const auto outcome = cluster::commit_until_known(
      bytes,
      [&] {
        auto r = log_client_.txn(guards, key, bytes, 0, key);
        problem = r.problem;
        cluster::fenced_try tried{std::nullopt, r.refused};
        if (!r.answered) return tried;
        if (auto reply = etcd::client::parse_txn(r.body)) {
          tried.reply = cluster::fenced_reply{reply->succeeded, std::nullopt};
          if (!reply->found.empty()) tried.reply->entry_found = reply->found.front().value;
        }
        return tried;
      },
      now_ms, [this] { return deadline_ms_.load(std::memory_order_acquire); },
      [] { std::this_thread::sleep_for(retry_pause); });
  switch (outcome) {
    case cluster::commit_outcome::committed:
      written_.store(entry, std::memory_order_release);
      return {};
    case cluster::commit_outcome::refused:
      say_(fmt::format("the cluster's log refused entry {}: {}", entry, problem));
      return store_errc::not_replicated;
    case cluster::commit_outcome::deposed:
      stop_leading(fmt::format("deposed: the cluster's log entry {} is not this node's to write", entry));
    case cluster::commit_outcome::lapsed:
      stop_leading(fmt::format("the lease lapsed with the cluster's log entry {} unknown ({})", entry, problem));
  }
  return store_errc::internal;
}

void cluster_leader::lost_locally(std::error_code ec) {
  stop_leading(fmt::format("the cluster's log holds an entry this node could not write: {}", ec.message()));
}

}  // namespace foyer::store
