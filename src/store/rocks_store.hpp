#pragma once
// The durable event store on RocksDB: one storage thread owns the database and
// group-commits every queued write as one synced WriteBatch.
//
// Threading: the constructor, recover(), load_contacts(), start(), stop() and every
// event_store call on the event loop's thread (the first four before the loop runs);
// stats() from any thread. Completions are handed to `post` on the storage thread, so `post` must
// be thread-safe (asio::post is) and stay callable until stop() returns. A group commit's
// writes complete in one post, in order: one wake of the loop for the whole group.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/cluster/log_entry.hpp"
#include "foyer/store.hpp"

namespace foyer::store {

// The format of the log this build writes and reads, in the store's version record.
inline constexpr std::string_view log_format_version = "foyer-event-log/1";
// The column families of a data dir: the log, and the visitors' contacts.
inline constexpr std::string_view events_family = "events";
inline constexpr std::string_view contacts_family = "contacts";

// The data dir cannot be used: corrupt, unreadable, locked by another process,
// not a Foyer store, or written by another format version. The message names the
// dir and the cause; the server must not start.
class store_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Why a write or read failed. Each value compares equal to the matching std::errc
// condition (no_space == std::errc::no_space_on_device, ...).
enum class store_errc {
  no_space = 1,  // the device is full; writes succeed again once space is freed
  io_error,      // any other I/O failure of the device
  corruption,    // a checksum or format check failed while reading
  busy,          // RocksDB refused for now (busy, timed out, try again)
  stopped,       // the call came after stop()
  bad_snapshot,  // seq beyond the durable log, or older than the newest snapshot
  internal,      // any other RocksDB status (a bug on one side or the other)
  not_replicated,  // cluster mode: the cluster's log refused the write (etcd's space quota, ...)
};

const std::error_category& store_category() noexcept;
std::error_code make_error_code(store_errc e) noexcept;

// Test hook shared with the store: while disk_full is set, every file write and sync
// the store makes fails with ENOSPC, as on a full device.
struct fault_injection {
  std::atomic<bool> disk_full{false};
};

// One synced write, as the storage thread saw it.
struct commit_report {
  std::chrono::steady_clock::duration took{};  // the write and its sync
  std::size_t events = 0;                        // events it carried (a snapshot or side records alone: 0)
  bool ok = false;
};

struct options {
  // Most events in one synced write; bounds the latency a group commit adds.
  // Default: 8192.
  std::size_t max_batch_events = 8192;
  // Test hook: the storage thread sleeps this long before each synced write, as a
  // slow fsync would. Default: 0 (no delay).
  std::chrono::milliseconds sync_delay{0};
  // Size of one memtable of events. At most two exist, plus two a quarter that size
  // for snapshots and side records: unflushed data stays under 2.5 times this.
  // Default: 16 MiB.
  std::size_t memtable_bytes = std::size_t{16} << 20;
  // Block cache for reads (recovery, side records), index blocks included.
  // Default: 8 MiB.
  std::size_t block_cache_bytes = std::size_t{8} << 20;
  // Writes are refused (no_space) while the device has less free space than this, or
  // than an eighth of its size if that is less, so RocksDB itself never meets a full
  // device. The free space is read before every write near that line, and every 100 ms
  // while more than 1 GiB beyond it is free (ops::free_space_watch). Default: 64 MiB.
  std::uint64_t reserve_bytes = std::uint64_t{64} << 20;
  // Test hook: simulated device faults. Default: none.
  std::shared_ptr<fault_injection> faults;
  // Told of every synced write through `post`, before the write's completions, so on the
  // loop's thread. Default: none.
  std::function<void(const commit_report&)> on_commit;
};

struct store_stats {
  std::uint64_t synced_writes = 0;  // successful synced WriteBatches
  std::uint64_t failed_writes = 0;  // write attempts (or resumes) that failed
  std::uint64_t last_seq = 0;       // seq of the newest durable event (0: none)
};

// Cluster mode: where each group commit's events and side records go before the local
// write (store/cluster_leader.hpp), so that nothing is acknowledged that a standby lacks.
// Called on the storage thread.
class replica {
 public:
  virtual ~replica() = default;
  // Puts entry number `entry` in the cluster's log. Empty: it is there. An error: it is
  // not, and never will be (the write was refused as a whole). Never returns once this
  // node may no longer write: deposed, or its lease lapsed with the outcome unknown.
  virtual std::error_code replicate(std::uint64_t entry, std::uint64_t first_seq,
                                    std::span<const std::string_view> events,
                                    std::span<const side_record> side_records) = 0;
  // The entry is in the cluster's log but could not be written here: this node stops,
  // and copies it from the cluster's log when it comes back.
  [[noreturn]] virtual void lost_locally(std::error_code ec) = 0;
};

// Most bytes of events and side records in one group commit in cluster mode: one etcd
// request carries them, base64-encoded, under etcd's default 1.5 MiB request limit.
inline constexpr std::size_t replicated_batch_bytes = std::size_t{512} << 10;

class rocks_store final : public event_store {
 public:
  using post_function = std::function<void(std::function<void()>)>;

  // Opens the store in `dir`, creating it if `dir` is missing or empty.
  // Throws store_error when the dir cannot be used (see above).
  rocks_store(const std::filesystem::path& dir, post_function post, options opts = {});
  // Stops (see stop()) if still running.
  ~rocks_store() override;
  rocks_store(const rocks_store&) = delete;
  rocks_store& operator=(const rocks_store&) = delete;

  // The newest snapshot and every event after it, in order. Call once, before
  // start(). Throws store_error on a corrupt log (checksum failure, missing event).
  recovered_log recover();
  // Every contact record (write_contacts), by key. Call before start(). Throws store_error
  // if they cannot be read.
  std::vector<std::pair<std::string, std::string>> load_contacts();

  // The mark of the incarnation whose tickets the log holds (core/cluster/log_claim.hpp),
  // and marking it, synced; before start(). Throws store_error if it cannot be read or written.
  std::optional<std::string> incarnation_mark();
  void mark_incarnation(std::string_view mark);

  // Cluster mode, before start(): every group commit goes to `r` before it is written here.
  void replicate_to(replica& r);
  // How many entries of the cluster's log this store holds (0 outside cluster mode).
  std::uint64_t cluster_entries() const;
  // Writes entry number `entry` of the cluster's log, synced: a standby copying the
  // leader's writes, before start(). Throws store_error unless it is the entry after
  // cluster_entries() and begins at the seq after the log's last.
  void apply_entry(std::uint64_t entry, const cluster::log_entry& e);

  // Starts the storage thread; calls made before it wait in the queue.
  void start();
  // Blocks until every queued call is done (their completions are posted, to run when
  // the loop next runs), then joins the storage thread. Later calls complete with
  // store_errc::stopped. Idempotent.
  void stop();

  void append(encoded_events events, std::vector<side_record> side_records,
              durable_handler done) override;
  void save_snapshot(std::uint64_t seq, std::string state, done_handler done) override;
  void read(std::vector<std::string> keys, read_handler done) override;
  void read_events(std::uint64_t after_seq, std::size_t max_events, events_handler done) override;
  void write_contacts(std::vector<record_change> changes, done_handler done) override;

  store_stats stats() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace foyer::store

template <>
struct std::is_error_code_enum<foyer::store::store_errc> : std::true_type {};
