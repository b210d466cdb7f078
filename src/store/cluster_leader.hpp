#pragma once
// Cluster mode: one node leads, under a lease in etcd, and every group commit it makes
// is first an entry of the cluster's log in etcd (core/cluster/fencing.hpp); the other
// nodes stand by, copying each entry into their own store as it comes, and the first to
// see the lease lapse takes the lead with the whole log on its disk.
//
// Threading: lead() and resign() on the thread that runs serve(), lead() before the
// store starts; replicate() and lost_locally() on the storage thread; holds_lease() and
// log_state() on any thread. The lease is kept alive, and the log in etcd trimmed, each
// on a thread of its own. Each thread talks to etcd through a client of its own.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/cluster/fencing.hpp"
#include "core/cluster/log_claim.hpp"
#include "store/cluster_settings.hpp"
#include "store/etcd_client.hpp"
#include "store/rocks_store.hpp"

namespace foyer::store {

class cluster_leader final : public replica {
 public:
  using line_function = std::function<void(std::string_view)>;
  // `say` logs a line. `step_down(why)` ends the process at once, from any thread: a
  // node that may no longer lead answers nothing more; restarted, it stands by.
  cluster_leader(cluster_settings settings, line_function say, line_function step_down);
  ~cluster_leader() override;
  cluster_leader(const cluster_leader&) = delete;
  cluster_leader& operator=(const cluster_leader&) = delete;

  using entry_function = std::function<void(const cluster::log_entry&)>;
  // Blocks until this node leads. Meanwhile it stands by: copies every new entry of the
  // cluster's log into `store` and hands it to `applied` (the rooms follow it in memory),
  // and campaigns whenever the leader key is free. On return `store` holds the whole log,
  // this node holds the leader key, and its lease is kept alive. Throws store_error when
  // this store and the cluster's log cannot be one, or when the log is not marked with
  // `self`'s incarnation and may not be claimed for it (core/cluster/log_claim.hpp).
  // `store` is recovered, not started.
  void lead(rocks_store& store, const entry_function& applied, const cluster::log_identity& self);
  // The lease's deadline has not passed: this node may still answer and sign.
  bool holds_lease() const;
  // Ends the lease, which deletes the leader key: a standby takes over without waiting
  // for it to lapse. After the store has stopped.
  void resign();

  std::error_code replicate(std::uint64_t entry, std::uint64_t first_seq, std::span<const std::string_view> events,
                            std::span<const side_record> side_records) override;
  [[noreturn]] void lost_locally(std::error_code ec) override;

  // The leader key's create revision while this node leads (0 before).
  std::int64_t token() const { return token_; }

  // The log in etcd as the leader last saw it, for the metrics.
  struct log_view {
    std::uint64_t written = 0;          // the last entry this node wrote
    std::uint64_t trimmed_through = 0;  // entries up to this one are deleted from etcd
    std::uint64_t standbys = 0;         // live standbys reporting what they hold
    std::uint64_t standby_lag = 0;      // entries the slowest of them lacks
  };
  log_view log_state() const;

 private:
  bool catch_up(rocks_store& store, const entry_function& applied);
  std::optional<bool> copy_batch(rocks_store& store, const entry_function& applied);
  void check_log_not_behind(const rocks_store& store);
  void check_same_log(rocks_store& store);
  void claim_log(rocks_store& store, const cluster::log_identity& self);
  bool renew(etcd::client& client);
  std::optional<std::int64_t> campaign();
  void keep_alive(std::stop_token stop);
  void report_held(const rocks_store& store);
  void trim(std::stop_token stop);
  [[noreturn]] void stop_leading(std::string_view why);

  const cluster_settings settings_;
  const std::chrono::milliseconds quarter_ttl_;
  const line_function say_;
  const line_function step_down_;
  const std::string leader_key_;
  std::string leader_value_;  // this node's id, address and lease: its own claim, byte for byte

  etcd::client standby_client_;  // lead()'s thread
  etcd::client log_client_;      // the storage thread
  std::int64_t lease_ = 0;
  std::int64_t token_ = 0;
  cluster::lease_clock lease_clock_;  // lead()'s thread, then the keepalive thread's
  std::atomic<std::int64_t> deadline_ms_{0};
  std::jthread keepalive_;
  std::uint64_t reported_held_ = 0;  // lead()'s thread: the last report, and under which lease
  std::int64_t reported_lease_ = 0;
  std::int64_t reported_at_ms_ = 0;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> trimmed_through_{0};
  std::atomic<std::uint64_t> standbys_{0};
  std::atomic<std::uint64_t> standby_lag_{0};
  std::jthread trimmer_;
};

}  // namespace foyer::store
