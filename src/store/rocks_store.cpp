#include "store/rocks_store.hpp"

#include <pthread.h>
#include <sys/statvfs.h>

#include <fmt/format.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/listener.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cassert>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/base/bytes.hpp"
#include "core/base/ring_queue.hpp"
#include "core/ops/free_space.hpp"
#include "store/fault_file_system.hpp"

// Layout: three column families, written together by one WriteBatch (one WAL, atomic).
//   "events"   be64(seq) -> the event with that seq (1, 2, ...). Never deleted: it is
//              the audit trail. Big-endian seqs sort in seq order, so recovery is one
//              forward scan from the snapshot; and since only ever-growing keys live
//              here, flushed tables never overlap each other or older ones, and
//              compaction moves them down a level without rewriting them.
//   "default"  "v"        the format version (format_version below), set at creation
//              "s"        the newest snapshot: be64(seq it covers) + the state bytes
//              "c"        in cluster mode, be64(the cluster log's entries held here)
//              "i"        the mark of the incarnation whose tickets the log holds
//                         (core/cluster/log_claim.hpp); in cluster mode, the mark of the
//                         cluster's log it follows
//              "x" + key  a side record
//   "contacts" key -> a visitor's notification contacts (core/notify/contact_codec.hpp),
//              deleted once used. Apart so that the log's copies (log_copy.cpp, the
//              backups) leave every address out; created when a store made before it
//              is opened.

namespace foyer::store {
namespace {

constexpr std::string_view format_version = log_format_version;
constexpr std::string_view format_family = "foyer-event-log/";
constexpr std::string_view version_key = "v";
constexpr std::string_view snapshot_key = "s";
constexpr std::string_view cluster_entries_key = "c";
constexpr std::string_view incarnation_mark_key = "i";
constexpr char side_prefix = 'x';
constexpr std::size_t seq_size = 8;
// Recovery reads the log once, front to back: large reads, nothing worth caching.
constexpr std::size_t recovery_readahead = std::size_t{4} << 20;
constexpr std::size_t info_log_file_bytes = std::size_t{4} << 20;
constexpr std::size_t info_log_files_kept = 4;
constexpr int max_background_jobs = 2;
constexpr int max_open_files = 512;
// The default family (snapshot, side records) gets a quarter of the events' memtable.
constexpr std::size_t meta_memtable_share = 4;

rocksdb::Slice slice(std::string_view s) { return {s.data(), s.size()}; }

std::string event_key(std::uint64_t seq) {
  std::string key(seq_size, '\0');
  put_be64(reinterpret_cast<std::uint8_t*>(key.data()), seq);
  return key;
}

std::string side_key(std::string_view key) {
  std::string out(1, side_prefix);
  out.append(key);
  return out;
}

std::uint64_t read_be64(std::string_view bytes) {
  return get_be64(reinterpret_cast<const std::uint8_t*>(bytes.data()));
}

class store_category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "foyer.store"; }

  std::string message(int value) const override {
    switch (static_cast<store_errc>(value)) {
      case store_errc::no_space: return "no space left on the storage device";
      case store_errc::io_error: return "storage I/O error";
      case store_errc::corruption: return "stored data is corrupt";
      case store_errc::busy: return "storage busy, try again";
      case store_errc::stopped: return "store stopped";
      case store_errc::bad_snapshot: return "snapshot seq outside the durable log";
      case store_errc::internal: return "unexpected storage error";
      case store_errc::not_replicated: return "the cluster's log refused the write";
    }
    return "unknown storage error";
  }

  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<store_errc>(value)) {
      case store_errc::no_space: return std::errc::no_space_on_device;
      case store_errc::io_error: return std::errc::io_error;
      case store_errc::busy: return std::errc::resource_unavailable_try_again;
      case store_errc::stopped: return std::errc::operation_canceled;
      case store_errc::bad_snapshot: return std::errc::invalid_argument;
      default: return {value, *this};
    }
  }
};

std::error_code to_error_code(const rocksdb::Status& status) {
  if (status.ok()) return {};
  if (status.IsNoSpace()) return store_errc::no_space;
  if (status.IsCorruption()) return store_errc::corruption;
  if (status.IsIOError()) return store_errc::io_error;
  if (status.IsBusy() || status.IsTimedOut() || status.IsTryAgain()) return store_errc::busy;
  return store_errc::internal;
}

struct append_request {
  encoded_events events;
  std::vector<side_record> side_records;
  event_store::durable_handler done;
};

struct snapshot_request {
  std::uint64_t seq;
  std::string state;
  event_store::done_handler done;
};

struct read_request {
  std::vector<std::string> keys;
  event_store::read_handler done;
};

struct contacts_request {
  std::vector<record_change> changes;
  event_store::done_handler done;
};

struct events_request {
  std::uint64_t after_seq;
  std::size_t max_events;
  event_store::events_handler done;
};

using request = std::variant<append_request, snapshot_request, contacts_request, read_request, events_request>;

// A write taken into the current group commit, with what its completion will say.
struct staged_write {
  explicit staged_write(request r) : req(std::move(r)) {}

  request req;
  std::uint64_t first_seq = 0;
  std::error_code refused;  // refused before the write (a bad snapshot seq)
};

struct stored_snapshot {
  std::uint64_t seq;
  std::string state;
};

// RocksDB would retry recovery from a full disk on its own thread, on its own
// schedule, and refuse manual resumes meanwhile. The storage thread resumes before
// its next write instead, so that a write after space is freed just works.
class manual_recovery final : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "foyer_manual_recovery"; }
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status error,
                            bool* auto_recovery) override {
    error.PermitUncheckedError();  // the failed write already reported it
    *auto_recovery = false;
  }
};

struct tuned_options {
  rocksdb::DBOptions db;
  rocksdb::ColumnFamilyOptions meta;
  rocksdb::ColumnFamilyOptions events;
};

rocksdb::ColumnFamilyOptions family_options(std::size_t memtable_bytes,
                                            const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions o;
  // Memory stays bounded whatever the log length: at most two memtables per family,
  // and one small block cache that also holds the index blocks (otherwise every open
  // table pins its index outside any budget).
  o.write_buffer_size = memtable_bytes;
  o.max_write_buffer_number = 2;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  o.level_compaction_dynamic_level_bytes = true;
  // Events are read back only at recovery: LZ4 is cheap both ways.
  o.compression = rocksdb::kLZ4Compression;
  return o;
}

tuned_options tune(const options& opts, rocksdb::Env* env) {
  tuned_options t;
  rocksdb::DBOptions& o = t.db;
  if (env != nullptr) o.env = env;
  o.paranoid_checks = true;
  // One way out of a write error: the storage thread's Resume() (see manual_recovery).
  o.listeners.push_back(std::make_shared<manual_recovery>());
  o.max_bgerror_resume_count = 0;
  // Every write is synced before it is acknowledged, so a torn record at the tail of
  // a WAL is a write nobody was told about (a crash mid-write): dropping it loses
  // nothing. Damage anywhere else refuses to open rather than silently losing events.
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  // The small default family holds a little of every WAL and would keep old WALs
  // alive until its own memtable fills; flushing it once the WALs outgrow two event
  // memtables bounds both the disk they use and the replay at restart.
  o.max_total_wal_size = 2 * opts.memtable_bytes;
  o.max_open_files = max_open_files;
  // Compaction of the events is mostly moving files down (see the layout above): one
  // flush and one compaction job suffice, and leave the CPU to the event loop.
  o.max_background_jobs = max_background_jobs;
  // File deletions after flushes happen in the background, not in the synced write.
  o.avoid_unnecessary_blocking_io = true;
  o.max_log_file_size = info_log_file_bytes;
  o.keep_log_file_num = info_log_files_kept;

  const auto cache = rocksdb::NewLRUCache(opts.block_cache_bytes);
  t.events = family_options(opts.memtable_bytes, cache);
  // Event keys only ever grow: each insert starts where the last one went (one hint, for
  // the empty prefix every key has) instead of searching the memtable from its top. Hints
  // want memtable writes from one thread, which the storage thread is anyway.
  o.allow_concurrent_memtable_write = false;
  t.events.memtable_insert_with_hint_prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(0));
  t.meta = family_options(opts.memtable_bytes / meta_memtable_share, cache);
  return t;
}

// The database and its column family handles, released in the right order.
struct database {
  database() = default;
  database(const database&) = delete;
  database& operator=(const database&) = delete;
  ~database() {
    if (!db) return;
    for (auto* family : {meta, events, contacts}) {
      if (family != nullptr) db->DestroyColumnFamilyHandle(family).PermitUncheckedError();
    }
    // Every write was synced; a failure to close loses nothing and has no one to tell.
    db->Close().PermitUncheckedError();
  }

  std::unique_ptr<rocksdb::DB> db;
  rocksdb::ColumnFamilyHandle* meta = nullptr;
  rocksdb::ColumnFamilyHandle* events = nullptr;
  rocksdb::ColumnFamilyHandle* contacts = nullptr;
};

}  // namespace

const std::error_category& store_category() noexcept {
  static const store_category_impl category;
  return category;
}

std::error_code make_error_code(store_errc e) noexcept {
  return {static_cast<int>(e), store_category()};
}

struct rocks_store::impl {
  impl(const std::filesystem::path& dir, post_function post, options opts)
      : dir_(dir), post_(std::move(post)), opts_(std::move(opts)) {
    open();
  }

  ~impl() { stop(); }

  // ---- opening (constructor thread) ----

  [[noreturn]] void fail(std::string_view what) const {
    throw store_error(fmt::format("data dir {}: {}", dir_.string(), what));
  }

  void open() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool exists = fs::exists(dir_, ec);
    if (ec) fail(fmt::format("cannot access: {}", ec.message()));
    if (exists && !fs::is_directory(dir_, ec)) fail("not a directory");
    const bool fresh = !exists || holds_nothing(ec);
    if (ec) fail(fmt::format("cannot list: {}", ec.message()));
    // Never create a database among someone else's files.
    if (!fresh && !fs::exists(dir_ / "CURRENT", ec)) {
      fail("not a Foyer store (it has files but no RocksDB CURRENT file; "
           "perhaps its creation was interrupted): move it away or choose another dir");
    }
    if (!exists) {
      fs::create_directories(dir_, ec);
      if (ec) fail(fmt::format("cannot create: {}", ec.message()));
    }

    if (opts_.faults) {
      env_ = rocksdb::NewCompositeEnv(
          detail::make_fault_file_system(rocksdb::FileSystem::Default(), opts_.faults));
    }
    tuned_options t = tune(opts_, env_.get());
    t.db.create_if_missing = fresh;
    t.db.create_missing_column_families = fresh || lacks_only_contacts();
    // Contacts are small and few: the side records' memtable size suits them too.
    const std::vector<rocksdb::ColumnFamilyDescriptor> families{{rocksdb::kDefaultColumnFamilyName, t.meta},
                                                                {std::string(events_family), t.events},
                                                                {std::string(contacts_family), t.meta}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    const rocksdb::Status s = rocksdb::DB::Open(t.db, dir_.string(), families, &handles, &raw);
    if (!s.ok()) fail(open_failure(s));
    db_.db.reset(raw);
    db_.meta = handles.at(0);
    db_.events = handles.at(1);
    db_.contacts = handles.at(2);

    check_version();
    load_positions();
  }

  // True if the dir has no entries but the file system's own lost+found (the root of
  // a freshly formatted volume, as a container platform hands one out).
  bool holds_nothing(std::error_code& ec) const {
    for (std::filesystem::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename() != "lost+found") return false;
    }
    return true;
  }

  // True for a store made before contacts were kept: its families are exactly the log's.
  // Any other set of families is opened as it is, and refused if it is not the store's.
  bool lacks_only_contacts() const {
    std::vector<std::string> names;
    if (!rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir_.string(), &names).ok()) return false;
    std::sort(names.begin(), names.end());
    return names == std::vector<std::string>{rocksdb::kDefaultColumnFamilyName, std::string(events_family)};
  }

  std::string open_failure(const rocksdb::Status& s) const {
    const std::string text = s.ToString();
    if (s.IsIOError() && text.find((dir_ / "LOCK").string()) != std::string::npos) {
      return fmt::format("in use by another Foyer process (RocksDB LOCK held): {}", text);
    }
    if (s.IsCorruption()) return fmt::format("corrupt, refusing to start: {}", text);
    // Missing or extra column families, another comparator, ...
    if (s.IsInvalidArgument()) {
      return fmt::format("a RocksDB database that is not a Foyer store: {}", text);
    }
    return fmt::format("cannot open the store: {}", text);
  }

  void check_version() {
    std::string version;
    rocksdb::Status s = db_.db->Get(rocksdb::ReadOptions(), db_.meta, slice(version_key), &version);
    if (s.ok()) {
      if (version == format_version) return;
      if (version.starts_with(format_family)) {
        fail(fmt::format("store format is {}, this build reads only {}", version, format_version));
      }
      fail("a RocksDB database that is not a Foyer store (unknown version record)");
    }
    if (!s.IsNotFound()) fail(fmt::format("cannot read the version record: {}", s.ToString()));

    // No version record: only a store whose creation was cut short may lack it.
    for (auto* family : {db_.meta, db_.events, db_.contacts}) {
      std::unique_ptr<rocksdb::Iterator> it(db_.db->NewIterator(rocksdb::ReadOptions(), family));
      it->SeekToFirst();
      if (!it->status().ok()) fail(fmt::format("cannot read: {}", it->status().ToString()));
      if (it->Valid()) fail("a RocksDB database that is not a Foyer store (no version record)");
    }
    rocksdb::WriteOptions sync;
    sync.sync = true;
    s = db_.db->Put(sync, db_.meta, slice(version_key), slice(format_version));
    if (!s.ok()) fail(fmt::format("cannot write the version record: {}", s.ToString()));
  }

  std::uint64_t checked_event_seq(const rocksdb::Slice& key) const {
    if (key.size() != seq_size) fail(fmt::format("corrupt: an event key of {} bytes", key.size()));
    return read_be64(std::string_view(key.data(), key.size()));
  }

  std::optional<stored_snapshot> read_snapshot() const {
    std::string value;
    rocksdb::Status s = db_.db->Get(rocksdb::ReadOptions(), db_.meta, slice(snapshot_key), &value);
    if (s.IsNotFound()) return std::nullopt;
    if (!s.ok()) fail(fmt::format("cannot read the snapshot: {}", s.ToString()));
    if (value.size() < seq_size) fail("corrupt: the snapshot record is truncated");
    return stored_snapshot{read_be64(value), value.substr(seq_size)};
  }

  void load_positions() {
    std::unique_ptr<rocksdb::Iterator> it(db_.db->NewIterator(rocksdb::ReadOptions(), db_.events));
    it->SeekToLast();
    if (!it->status().ok()) fail(fmt::format("cannot read the log: {}", it->status().ToString()));
    std::uint64_t last = 0;
    if (it->Valid()) last = checked_event_seq(it->key());
    const auto snapshot = read_snapshot();
    snapshot_seq_ = snapshot ? snapshot->seq : 0;
    if (snapshot_seq_ > last) {
      fail(fmt::format("corrupt: the snapshot covers event {} but the log ends at {}",
                       snapshot_seq_, last));
    }
    next_seq_ = last + 1;
    last_seq_.store(last, std::memory_order_relaxed);
    std::string entries;
    const rocksdb::Status s = db_.db->Get(rocksdb::ReadOptions(), db_.meta, slice(cluster_entries_key), &entries);
    if (s.ok() && entries.size() == seq_size) {
      cluster_entries_ = read_be64(entries);
    } else if (!s.IsNotFound()) {
      fail(fmt::format("cannot read the cluster log's position: {}", s.ok() ? "truncated" : s.ToString()));
    }
  }

  static std::string be64_value(std::uint64_t v) {
    std::string value(seq_size, '\0');
    put_be64(reinterpret_cast<std::uint8_t*>(value.data()), v);
    return value;
  }

  void apply_entry(std::uint64_t entry, const cluster::log_entry& e) {
    assert(!thread_.joinable());
    if (entry != cluster_entries_ + 1 || e.first_seq != next_seq_) {
      fail(fmt::format("the cluster's log entry {} begins at event {}, but this store holds {} entries and {} events: "
                       "restore a backup of the leader here first",
                       entry, e.first_seq, cluster_entries_, next_seq_ - 1));
    }
    rocksdb::WriteBatch batch;
    std::uint64_t seq = next_seq_;
    rocksdb::Status s;
    for (const auto& event : e.events) {
      if (s.ok()) s = batch.Put(db_.events, event_key(seq++), event);
    }
    for (const auto& side : e.side_records) {
      if (s.ok()) s = batch.Put(db_.meta, side_key(side.key), side.value);
    }
    if (s.ok()) s = batch.Put(db_.meta, slice(cluster_entries_key), be64_value(entry));
    if (s.ok()) {
      rocksdb::WriteOptions wo;
      wo.sync = true;
      s = db_.db->Write(wo, &batch);
    }
    if (!s.ok()) fail(fmt::format("cannot write the cluster's log entry {}: {}", entry, s.ToString()));
    cluster_entries_ = entry;
    next_seq_ = seq;
    last_seq_.store(seq - 1, std::memory_order_relaxed);
  }

  std::optional<std::string> incarnation_mark() {
    std::string mark;
    const rocksdb::Status s = db_.db->Get(rocksdb::ReadOptions(), db_.meta, slice(incarnation_mark_key), &mark);
    if (s.IsNotFound()) return std::nullopt;
    if (!s.ok()) fail(fmt::format("cannot read the log's incarnation: {}", s.ToString()));
    return mark;
  }

  void mark_incarnation(std::string_view mark) {
    assert(!thread_.joinable());
    rocksdb::WriteOptions wo;
    wo.sync = true;
    const rocksdb::Status s = db_.db->Put(wo, db_.meta, slice(incarnation_mark_key), slice(mark));
    if (!s.ok()) fail(fmt::format("cannot write the log's incarnation: {}", s.ToString()));
  }

  recovered_log recover() {
    assert(!thread_.joinable());
    recovered_log log;
    if (auto snapshot = read_snapshot()) {
      log.snapshot = std::move(snapshot->state);
      log.snapshot_seq = snapshot->seq;
    }
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    ro.readahead_size = recovery_readahead;
    std::unique_ptr<rocksdb::Iterator> it(db_.db->NewIterator(ro, db_.events));
    log.events.reserve(next_seq_ - 1 - log.snapshot_seq);
    std::uint64_t expected = log.snapshot_seq + 1;
    for (it->Seek(event_key(expected)); it->Valid(); it->Next(), ++expected) {
      const std::uint64_t seq = checked_event_seq(it->key());
      if (seq != expected) {
        fail(fmt::format("corrupt: event {} is missing (the log continues at {})", expected, seq));
      }
      log.events.emplace_back(it->value().data(), it->value().size());
    }
    if (!it->status().ok()) fail(fmt::format("cannot read the log: {}", it->status().ToString()));
    assert(expected == next_seq_);
    return log;
  }

  std::vector<std::pair<std::string, std::string>> load_contacts() {
    assert(!thread_.joinable());
    std::vector<std::pair<std::string, std::string>> out;
    std::unique_ptr<rocksdb::Iterator> it(db_.db->NewIterator(rocksdb::ReadOptions(), db_.contacts));
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key().ToString(), it->value().ToString());
    if (!it->status().ok()) fail(fmt::format("cannot read the contacts: {}", it->status().ToString()));
    return out;
  }

  // ---- loop thread ----

  void start() {
    assert(!thread_.joinable());
    thread_ = std::thread([this] {
      // Named, so that a profile or bench/ can tell its CPU from the event loop's.
      ::pthread_setname_np(::pthread_self(), "foyer-store");
      run();
    });
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    if (thread_.joinable()) {
      wake_.notify_one();
      thread_.join();
    } else {
      run();  // never started: drain the queue here so every completion is still posted
    }
  }

  void enqueue(request req) {
    {
      std::lock_guard lock(mutex_);
      if (!stopping_) {
        queue_.emplace_back() = std::move(req);
        wake_.notify_one();
        return;
      }
    }
    const std::error_code stopped = store_errc::stopped;
    std::visit(
        [&](auto& r) {
          using type = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<type, append_request>) {
            post_([done = std::move(r.done), stopped] { done(stopped, 0); });
          } else if constexpr (std::is_same_v<type, snapshot_request> || std::is_same_v<type, contacts_request>) {
            post_([done = std::move(r.done), stopped] { done(stopped); });
          } else if constexpr (std::is_same_v<type, events_request>) {
            post_([done = std::move(r.done), stopped] { done(stopped, 0, {}); });
          } else {
            post_([done = std::move(r.done), stopped] { done(stopped, {}); });
          }
        },
        req);
  }

  store_stats stats() const {
    return {synced_writes_.load(std::memory_order_relaxed),
            failed_writes_.load(std::memory_order_relaxed),
            last_seq_.load(std::memory_order_relaxed)};
  }

  // ---- storage thread ----

  void run() {
    // Swapped with the queue: each keeps its array, and a push allocates nothing.
    ring_queue<request> work;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and everything queued is done
        std::swap(work, queue_);
      }
      // Everything that queued up while the previous write synced goes out together.
      while (!work.empty()) {
        if (auto* r = std::get_if<read_request>(&work.front())) {
          serve_read(*r);
          work.pop_front();
        } else if (auto* e = std::get_if<events_request>(&work.front())) {
          serve_events(*e);
          work.pop_front();
        } else {
          commit_writes(work);
        }
      }
    }
  }

  // Takes the writes at the front of `work` (up to a read of either kind or the batch
  // cap) into one synced WriteBatch, then posts their completions in order.
  void commit_writes(ring_queue<request>& work) {
    rocksdb::WriteBatch batch;
    rocksdb::Status built;
    const auto put = [&](rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key,
                         const rocksdb::Slice& value) {
      if (built.ok()) built = batch.Put(family, key, value);
    };
    const auto erase = [&](rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key) {
      if (built.ok()) built = batch.Delete(family, key);
    };
    std::vector<staged_write> group;
    std::uint64_t seq = next_seq_;
    std::uint64_t snapshot_seq = snapshot_seq_;
    std::size_t events = 0;
    std::size_t entry_bytes = 0;
    bool replicated = false;
    while (!work.empty() && !std::holds_alternative<read_request>(work.front()) &&
           !std::holds_alternative<events_request>(work.front())) {
      if (auto* a = std::get_if<append_request>(&work.front());
          a && !group.empty() &&
          (events + a->events.size() > opts_.max_batch_events ||
           (replica_ && entry_bytes + bytes_of(*a) > replicated_batch_bytes))) {
        break;
      }
      staged_write staged(std::move(work.front()));
      work.pop_front();
      if (auto* a = std::get_if<append_request>(&staged.req)) {
        staged.first_seq = seq;
        for (const auto& event : a->events) put(db_.events, event_key(seq++), event);
        for (const auto& side : a->side_records) put(db_.meta, side_key(side.key), side.value);
        events += a->events.size();
        entry_bytes += bytes_of(*a);
        replicated = replica_ != nullptr;
      } else if (auto* c = std::get_if<contacts_request>(&staged.req)) {
        for (const auto& change : c->changes) {
          if (change.value) {
            put(db_.contacts, change.key, *change.value);
          } else {
            erase(db_.contacts, change.key);
          }
        }
      } else {
        auto& s = std::get<snapshot_request>(staged.req);
        // A snapshot may only cover events that are durable by the time it is.
        if (s.seq >= seq || s.seq < snapshot_seq) {
          staged.refused = store_errc::bad_snapshot;
        } else {
          std::string value(seq_size, '\0');
          put_be64(reinterpret_cast<std::uint8_t*>(value.data()), s.seq);
          value += s.state;
          put(db_.meta, slice(snapshot_key), value);
          snapshot_seq = s.seq;
        }
      }
      group.push_back(std::move(staged));
    }

    std::error_code ec = to_error_code(built);
    std::optional<commit_report> report;
    if (!ec && replicated) {
      // Refused here, not after: an entry in the cluster's log that this node then could
      // not write would make it step down (lost_locally).
      ec = ready_to_write();
      if (!ec) ec = replicate(group);
      if (!ec) put(db_.meta, slice(cluster_entries_key), be64_value(cluster_entries_ + 1));
    }
    if (!ec && batch.Count() > 0) {
      const auto started = std::chrono::steady_clock::now();
      ec = write(batch);
      if (opts_.on_commit) report = commit_report{std::chrono::steady_clock::now() - started, events, !ec};
      if (ec && replicated) replica_->lost_locally(ec);
    }
    if (!ec && replicated) ++cluster_entries_;
    if (!ec) {
      // A failed batch consumes no seqs: nothing of it is durable, the next one reuses them.
      next_seq_ = seq;
      snapshot_seq_ = snapshot_seq;
      last_seq_.store(seq - 1, std::memory_order_relaxed);
    }
    // One post for the whole group: the loop finishes its writes in one pass, in order.
    post_([group = std::move(group), ec, report, on_commit = report ? opts_.on_commit : nullptr]() mutable {
      if (report) on_commit(*report);
      complete(group, ec);
    });
  }

  // Puts the group's events and side records in the cluster's log as its next entry.
  std::error_code replicate(const std::vector<staged_write>& group) {
    std::vector<std::string_view> events;
    std::vector<side_record> side_records;
    for (const auto& staged : group) {
      if (const auto* a = std::get_if<append_request>(&staged.req)) {
        events.insert(events.end(), a->events.begin(), a->events.end());
        side_records.insert(side_records.end(), a->side_records.begin(), a->side_records.end());
      }
    }
    return replica_->replicate(cluster_entries_ + 1, next_seq_, events, side_records);
  }

  // Tells each write of a group commit how it went, in order.
  static void complete(std::vector<staged_write>& group, std::error_code ec) {
    for (auto& staged : group) {
      if (auto* a = std::get_if<append_request>(&staged.req)) {
        a->done(ec, ec ? 0 : staged.first_seq);
      } else if (auto* c = std::get_if<contacts_request>(&staged.req)) {
        c->done(ec);
      } else {
        auto& s = std::get<snapshot_request>(staged.req);
        s.done(staged.refused ? staged.refused : ec);
      }
    }
  }

  // The device's free space and the reserve to keep on it: opts_.reserve_bytes, or an
  // eighth of the device if that is less. None if it cannot be read.
  std::optional<ops::device_space> read_device_space() const {
    struct statvfs fs_info{};
    if (::statvfs(dir_.c_str(), &fs_info) != 0) return std::nullopt;
    const std::uint64_t size = std::uint64_t{fs_info.f_blocks} * fs_info.f_frsize;
    const std::uint64_t free = std::uint64_t{fs_info.f_bavail} * fs_info.f_frsize;
    return ops::device_space{free, std::min(opts_.reserve_bytes, size / 8)};
  }

  // A write is refused up front while the device has no more than its reserve free
  // (ops::free_space_watch), and writes resume by themselves once space is freed.
  std::error_code ready_to_write() {
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now().time_since_epoch()).count();
    if (space_.must_look(now_ms)) space_.looked(now_ms, read_device_space());
    if (!space_.has_room()) {
      failed_writes_.fetch_add(1, std::memory_order_relaxed);
      return make_error_code(store_errc::no_space);
    }
    // After a failed write RocksDB may hold a background error and refuse every write
    // until resumed; resuming also retires the WAL the failed write may have touched.
    if (resume_needed_) {
      rocksdb::Status s = db_.db->Resume();
      if (!s.ok()) {
        failed_writes_.fetch_add(1, std::memory_order_relaxed);
        return to_error_code(s);
      }
      resume_needed_ = false;
    }
    return {};
  }

  std::error_code write(rocksdb::WriteBatch& batch) {
    if (opts_.sync_delay.count() > 0) std::this_thread::sleep_for(opts_.sync_delay);
    if (auto ec = ready_to_write()) return ec;
    rocksdb::WriteOptions wo;
    wo.sync = true;
    rocksdb::Status s = db_.db->Write(wo, &batch);
    if (!s.ok()) {
      resume_needed_ = true;
      failed_writes_.fetch_add(1, std::memory_order_relaxed);
      return to_error_code(s);
    }
    space_.wrote(batch.GetDataSize());
    synced_writes_.fetch_add(1, std::memory_order_relaxed);
    return {};
  }

  void serve_read(read_request& r) {
    std::vector<std::string> keys;
    keys.reserve(r.keys.size());
    for (const auto& key : r.keys) keys.push_back(side_key(key));
    std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
    const std::vector<rocksdb::ColumnFamilyHandle*> families(keys.size(), db_.meta);
    std::vector<std::string> found;
    const std::vector<rocksdb::Status> statuses =
        db_.db->MultiGet(rocksdb::ReadOptions(), families, slices, &found);
    std::error_code ec;
    std::vector<std::optional<std::string>> values;
    values.reserve(keys.size());
    for (std::size_t i = 0; i < statuses.size(); ++i) {
      if (statuses[i].ok()) {
        values.emplace_back(std::move(found[i]));
      } else if (statuses[i].IsNotFound()) {
        values.emplace_back(std::nullopt);
      } else {
        ec = to_error_code(statuses[i]);
        values.clear();
        break;
      }
    }
    post_([done = std::move(r.done), ec, values = std::move(values)]() mutable {
      done(ec, std::move(values));
    });
  }

  // Reads contiguous events; a batch is bounded, so a group commit waits for one at most.
  void serve_events(events_request& r) {
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(db_.db->NewIterator(ro, db_.events));
    std::vector<std::string> events;
    const std::uint64_t first = r.after_seq + 1;
    std::error_code ec;
    for (it->Seek(event_key(first)); it->Valid() && events.size() < r.max_events; it->Next()) {
      if (checked_event_seq(it->key()) != first + events.size()) {
        ec = store_errc::corruption;
        break;
      }
      events.emplace_back(it->value().data(), it->value().size());
    }
    if (!ec && !it->status().ok()) ec = to_error_code(it->status());
    if (ec) events.clear();
    post_([done = std::move(r.done), ec, first, events = std::move(events)]() mutable {
      done(ec, first, std::move(events));
    });
  }

  const std::filesystem::path dir_;
  const post_function post_;
  const options opts_;
  std::unique_ptr<rocksdb::Env> env_;  // the fault-injecting env, if any; outlives db_
  database db_;

  // What an append adds to the cluster log's entry: its events and its side records (a
  // lobby join's Merkle nodes can outweigh its event).
  static std::size_t bytes_of(const append_request& a) {
    std::size_t n = 0;
    for (const auto& e : a.events) n += e.size();
    for (const auto& s : a.side_records) n += s.key.size() + s.value.size();
    return n;
  }

  // Storage-thread state (the constructing thread's until start()).
  replica* replica_ = nullptr;
  std::uint64_t cluster_entries_ = 0;
  std::uint64_t next_seq_ = 1;
  std::uint64_t snapshot_seq_ = 0;
  bool resume_needed_ = false;
  ops::free_space_watch space_;

  std::atomic<std::uint64_t> synced_writes_{0};
  std::atomic<std::uint64_t> failed_writes_{0};
  std::atomic<std::uint64_t> last_seq_{0};

  std::mutex mutex_;
  std::condition_variable wake_;
  ring_queue<request> queue_;  // guarded by mutex_
  bool stopping_ = false;      // guarded by mutex_
  std::thread thread_;
};

rocks_store::rocks_store(const std::filesystem::path& dir, post_function post, options opts)
    : impl_(std::make_unique<impl>(dir, std::move(post), std::move(opts))) {}

rocks_store::~rocks_store() = default;

recovered_log rocks_store::recover() { return impl_->recover(); }
std::vector<std::pair<std::string, std::string>> rocks_store::load_contacts() { return impl_->load_contacts(); }
void rocks_store::replicate_to(replica& r) { impl_->replica_ = &r; }
std::uint64_t rocks_store::cluster_entries() const { return impl_->cluster_entries_; }
std::optional<std::string> rocks_store::incarnation_mark() { return impl_->incarnation_mark(); }
void rocks_store::mark_incarnation(std::string_view mark) { impl_->mark_incarnation(mark); }
void rocks_store::apply_entry(std::uint64_t entry, const cluster::log_entry& e) { impl_->apply_entry(entry, e); }
void rocks_store::start() { impl_->start(); }
void rocks_store::stop() { impl_->stop(); }

void rocks_store::append(encoded_events events, std::vector<side_record> side_records,
                         durable_handler done) {
  impl_->enqueue(append_request{std::move(events), std::move(side_records), std::move(done)});
}

void rocks_store::save_snapshot(std::uint64_t seq, std::string state, done_handler done) {
  impl_->enqueue(snapshot_request{seq, std::move(state), std::move(done)});
}

void rocks_store::read(std::vector<std::string> keys, read_handler done) {
  impl_->enqueue(read_request{std::move(keys), std::move(done)});
}

void rocks_store::write_contacts(std::vector<record_change> changes, done_handler done) {
  impl_->enqueue(contacts_request{std::move(changes), std::move(done)});
}

void rocks_store::read_events(std::uint64_t after_seq, std::size_t max_events, events_handler done) {
  impl_->enqueue(events_request{after_seq, max_events, std::move(done)});
}

store_stats rocks_store::stats() const { return impl_->stats(); }

}  // namespace foyer::store
