#include "store/rocks_store.hpp"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <rocksdb/db.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "core/base/bytes.hpp"
#include "store/log_copy.hpp"
#include "support/memory_store.hpp"
#include "support/run_loop.hpp"

using namespace foyer;
using foyer::store::rocks_store;
using foyer::store::store_errc;
using foyer::store::store_error;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test, removed afterwards.
struct temp_dir {
  temp_dir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("foyer-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
  }
  ~temp_dir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  fs::path path;
};

struct append_result {
  std::error_code ec;
  std::uint64_t first_seq = 0;
};

struct read_result {
  std::error_code ec;
  std::vector<std::optional<std::string>> values;
};

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.good());
}

std::string event_key(std::uint64_t seq) {
  std::string key(8, '\0');
  put_be64(reinterpret_cast<std::uint8_t*>(key.data()), seq);
  return key;
}

// The store's RocksDB opened directly, to inspect or damage what the store wrote.
struct raw_store {
  explicit raw_store(const fs::path& dir) {
    const std::vector<rocksdb::ColumnFamilyDescriptor> families{
        {rocksdb::kDefaultColumnFamilyName, {}}, {"events", {}}, {"contacts", {}}};
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(rocksdb::DBOptions(), dir.string(), families, &handles, &raw).ok());
    db.reset(raw);
  }
  ~raw_store() {
    for (auto* handle : handles) db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  raw_store(const raw_store&) = delete;
  raw_store& operator=(const raw_store&) = delete;

  rocksdb::ColumnFamilyHandle* meta() const { return handles.at(0); }
  rocksdb::ColumnFamilyHandle* events() const { return handles.at(1); }

  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
};

// The first line of the store_error the constructor throws, or "" if it opens.
std::string open_error(const fs::path& dir, test::run_loop& loop) {
  try {
    rocks_store store(dir, loop.poster());
  } catch (const store_error& e) {
    return e.what();
  }
  return "";
}

using strings = std::vector<std::string>;

struct store_fixture {
  std::unique_ptr<rocks_store> open(store::options opts = {}) {
    auto s = std::make_unique<rocks_store>(dir.path, loop.poster(), std::move(opts));
    return s;
  }

  // Opens, recovers and starts, as the server does.
  std::unique_ptr<rocks_store> open_started(recovered_log* log = nullptr,
                                            store::options opts = {}) {
    auto s = open(std::move(opts));
    recovered_log recovered = s->recover();
    if (log != nullptr) *log = std::move(recovered);
    s->start();
    return s;
  }

  append_result append(event_store& s, encoded_events events,
                       std::vector<side_record> side = {}) {
    std::optional<append_result> result;
    s.append(std::move(events), std::move(side),
             [&](std::error_code ec, std::uint64_t first) { result = append_result{ec, first}; });
    REQUIRE(loop.run_until([&] { return result.has_value(); }));
    return *result;
  }

  std::error_code snapshot(event_store& s, std::uint64_t seq, std::string state) {
    std::optional<std::error_code> result;
    s.save_snapshot(seq, std::move(state), [&](std::error_code ec) { result = ec; });
    REQUIRE(loop.run_until([&] { return result.has_value(); }));
    return *result;
  }

  read_result read(event_store& s, std::vector<std::string> keys) {
    std::optional<read_result> result;
    s.read(std::move(keys), [&](std::error_code ec, std::vector<std::optional<std::string>> v) {
      result = read_result{ec, std::move(v)};
    });
    REQUIRE(loop.run_until([&] { return result.has_value(); }));
    return *result;
  }

  // The events from seq after + 1 on, at most max of them.
  strings read_events(event_store& s, std::uint64_t after, std::size_t max) {
    std::optional<strings> result;
    s.read_events(after, max, [&](std::error_code ec, std::uint64_t first, strings events) {
      CHECK_FALSE(ec);
      CHECK(first == after + 1);
      result = std::move(events);
    });
    REQUIRE(loop.run_until([&] { return result.has_value(); }));
    return *result;
  }

  std::error_code write_contacts(event_store& s, std::vector<record_change> changes) {
    std::optional<std::error_code> result;
    s.write_contacts(std::move(changes), [&](std::error_code ec) { result = ec; });
    REQUIRE(loop.run_until([&] { return result.has_value(); }));
    return *result;
  }

  recovered_log reopen_and_recover() {
    rocks_store s(dir.path, loop.poster());
    return s.recover();
  }

  temp_dir dir;
  test::run_loop loop;
};


}  // namespace

TEST_CASE_METHOD(store_fixture, "a new store recovers an empty log") {
  auto s = open();
  const recovered_log log = s->recover();
  CHECK_FALSE(log.snapshot);
  CHECK(log.snapshot_seq == 0);
  CHECK(log.events.empty());
  CHECK(s->stats().last_seq == 0);
}

TEST_CASE_METHOD(store_fixture, "the log's incarnation mark is written synced and survives a reopen") {
  {
    auto s = open();
    s->recover();
    CHECK_FALSE(s->incarnation_mark());
    s->mark_incarnation("0123456789abcdef0123456789abcdef");
    CHECK(s->incarnation_mark() == "0123456789abcdef0123456789abcdef");
  }
  rocks_store again(dir.path, loop.poster());
  again.recover();
  CHECK(again.incarnation_mark() == "0123456789abcdef0123456789abcdef");
  // Not an event: the log itself stays empty.
  CHECK(again.stats().last_seq == 0);
}

TEST_CASE_METHOD(store_fixture, "appended events and side records survive a reopen") {
  {
    auto s = open_started();
    auto first = append(*s, {"a", "b"}, {{"k1", "v1"}});
    CHECK_FALSE(first.ec);
    CHECK(first.first_seq == 1);
    auto second = append(*s, {"c"});
    CHECK_FALSE(second.ec);
    CHECK(second.first_seq == 3);
    CHECK(s->stats().last_seq == 3);
    s->stop();
  }
  recovered_log log;
  auto s = open_started(&log);
  CHECK(log.events == strings{"a", "b", "c"});
  CHECK_FALSE(log.snapshot);
  auto values = read(*s, {"k1", "missing"});
  CHECK_FALSE(values.ec);
  REQUIRE(values.values.size() == 2);
  CHECK(values.values[0] == "v1");
  CHECK_FALSE(values.values[1]);
  // The seqs continue where the previous run stopped.
  CHECK(append(*s, {"d"}).first_seq == 4);
}

TEST_CASE_METHOD(store_fixture, "the whole log reads back in pages from any seq, snapshots or not") {
  {
    auto s = open_started();
    append(*s, {"a", "b", "c"});
    REQUIRE_FALSE(snapshot(*s, 3, "state@3"));
    append(*s, {"d", "e"});
    s->stop();
  }
  auto s = open_started();
  CHECK(read_events(*s, 0, 2) == strings{"a", "b"});
  CHECK(read_events(*s, 2, 2) == strings{"c", "d"});
  CHECK(read_events(*s, 4, 100) == strings{"e"});
  CHECK(read_events(*s, 5, 100).empty());
  CHECK(read_events(*s, 50, 100).empty());
  append(*s, {"f"});
  CHECK(read_events(*s, 4, 100) == strings{"e", "f"});
  test::memory_store memory(loop.poster());
  memory.append({"a", "b", "c"}, {}, [](std::error_code, std::uint64_t) {});
  CHECK(read_events(memory, 1, 1) == strings{"b"});
  CHECK(read_events(memory, 1, 9) == strings{"b", "c"});
  CHECK(read_events(memory, 3, 9).empty());
}

TEST_CASE_METHOD(store_fixture, "seqs are contiguous and completions run in call order") {
  auto s = open_started();
  std::vector<int> order;
  std::vector<std::uint64_t> firsts;
  std::uint64_t expected_first = 1;
  std::vector<std::uint64_t> expected_firsts;
  for (int i = 0; i < 50; ++i) {
    strings events(static_cast<std::size_t>(i % 4), "event-" + std::to_string(i));
    expected_firsts.push_back(expected_first);
    expected_first += events.size();
    s->append(encoded_events(events.begin(), events.end()), {}, [&, i](std::error_code ec, std::uint64_t first) {
      CHECK_FALSE(ec);
      order.push_back(i);
      firsts.push_back(first);
    });
    if (i % 10 == 0) {
      s->read({"nothing"}, [&order](std::error_code ec, auto) {
        CHECK_FALSE(ec);
        order.push_back(-1);
      });
    }
  }
  REQUIRE(loop.run_until([&] { return firsts.size() == 50; }));
  CHECK(firsts == expected_firsts);
  std::vector<int> expected_order;
  for (int i = 0; i < 50; ++i) {
    expected_order.push_back(i);
    if (i % 10 == 0) expected_order.push_back(-1);
  }
  CHECK(order == expected_order);
  CHECK(s->stats().last_seq == expected_first - 1);
}

TEST_CASE_METHOD(store_fixture, "queued appends share one synced write, up to the batch cap") {
  store::options opts;
  opts.max_batch_events = 50;
  auto s = open(opts);
  int done = 0;
  // Queued before start, so the storage thread finds all 200 at once.
  for (int i = 0; i < 200; ++i) {
    s->append({"e" + std::to_string(i)}, {}, [&done, i](std::error_code ec, std::uint64_t first) {
      CHECK_FALSE(ec);
      CHECK(first == static_cast<std::uint64_t>(i) + 1);
      ++done;
    });
  }
  s->start();
  REQUIRE(loop.run_until([&] { return done == 200; }));
  CHECK(s->stats().synced_writes == 4);
}

TEST_CASE_METHOD(store_fixture, "a group commit's completions reach the loop in one post, in order") {
  store::options opts;
  opts.max_batch_events = 50;
  int posts = 0;
  rocks_store s(dir.path, [&](std::function<void()> work) {
    ++posts;
    loop.post(std::move(work));
  }, opts);
  s.recover();
  std::vector<int> order;
  // Queued before start: 120 appends, a snapshot and contacts make three group commits.
  for (int i = 0; i < 120; ++i) {
    s.append({"e"}, {}, [&order, i](std::error_code ec, std::uint64_t first) {
      CHECK_FALSE(ec);
      CHECK(first == static_cast<std::uint64_t>(i) + 1);
      order.push_back(i);
    });
  }
  s.save_snapshot(100, "state@100", [&order](std::error_code ec) {
    CHECK_FALSE(ec);
    order.push_back(-1);
  });
  s.write_contacts({{"k", "v"}}, [&order](std::error_code ec) {
    CHECK_FALSE(ec);
    order.push_back(-2);
  });
  s.start();
  REQUIRE(loop.run_until([&] { return order.size() == 122; }));
  CHECK(s.stats().synced_writes == 3);
  CHECK(posts == 3);
  std::vector<int> expected(120);
  std::iota(expected.begin(), expected.end(), 0);
  expected.push_back(-1);
  expected.push_back(-2);
  CHECK(order == expected);
  s.stop();
}

TEST_CASE_METHOD(store_fixture, "appends made while a write syncs are grouped into the next") {
  store::options opts;
  opts.sync_delay = std::chrono::milliseconds(20);
  auto s = open_started(nullptr, opts);
  constexpr int appends = 200;
  int done = 0;
  for (int i = 0; i < appends; ++i) {
    s->append({"e"}, {}, [&done](std::error_code ec, std::uint64_t) {
      CHECK_FALSE(ec);
      ++done;
    });
  }
  REQUIRE(loop.run_until([&] { return done == appends; }));
  // Enqueueing 200 appends takes far less than one 20 ms sync.
  CHECK(s->stats().synced_writes < 10);
  CHECK(s->stats().last_seq == appends);
}

TEST_CASE_METHOD(store_fixture, "recovery loads the newest snapshot and replays only the tail") {
  {
    auto s = open_started();
    append(*s, {"e1", "e2", "e3"});
    CHECK_FALSE(snapshot(*s, 2, "state@2"));
    append(*s, {"e4"});
    CHECK_FALSE(snapshot(*s, 3, "state@3"));
    append(*s, {"e5", "e6"});
  }
  recovered_log log = reopen_and_recover();
  CHECK(log.snapshot == "state@3");
  CHECK(log.snapshot_seq == 3);
  CHECK(log.events == strings{"e4", "e5", "e6"});

  // The events the snapshot covers are kept: the log is the audit trail.
  raw_store raw(dir.path);
  std::string value;
  CHECK(raw.db->Get(rocksdb::ReadOptions(), raw.events(), event_key(1), &value).ok());
  CHECK(value == "e1");
}

TEST_CASE_METHOD(store_fixture, "a snapshot must lie within the durable log and not go back") {
  auto s = open_started();
  append(*s, {"e1", "e2"});
  CHECK(snapshot(*s, 3, "ahead") == store_errc::bad_snapshot);
  CHECK_FALSE(snapshot(*s, 2, "state@2"));
  CHECK(snapshot(*s, 1, "older") == store_errc::bad_snapshot);
  CHECK(snapshot(*s, 1, "older") == std::errc::invalid_argument);
  CHECK_FALSE(snapshot(*s, 2, "again@2"));
  s->stop();
  s.reset();
  const recovered_log log = reopen_and_recover();
  CHECK(log.snapshot == "again@2");
  CHECK(log.events.empty());
}

TEST_CASE_METHOD(store_fixture, "a snapshot may cover appends queued before it in the same write") {
  auto s = open();
  std::optional<std::error_code> snapshot_result;
  s->append({"e1", "e2"}, {}, [](std::error_code ec, std::uint64_t) { CHECK_FALSE(ec); });
  s->save_snapshot(2, "state@2", [&](std::error_code ec) { snapshot_result = ec; });
  s->start();
  REQUIRE(loop.run_until([&] { return snapshot_result.has_value(); }));
  CHECK_FALSE(*snapshot_result);
  CHECK(s->stats().synced_writes == 1);
}

TEST_CASE_METHOD(store_fixture, "a read sees the writes queued before it") {
  auto s = open_started();
  std::optional<read_result> result;
  s->append({"e1"}, {{"node/1", "hash1"}}, [](std::error_code ec, std::uint64_t) {
    CHECK_FALSE(ec);
  });
  s->read({"node/1"}, [&](std::error_code ec, std::vector<std::optional<std::string>> v) {
    result = read_result{ec, std::move(v)};
  });
  REQUIRE(loop.run_until([&] { return result.has_value(); }));
  CHECK_FALSE(result->ec);
  REQUIRE(result->values.size() == 1);
  CHECK(result->values[0] == "hash1");
}

TEST_CASE_METHOD(store_fixture, "stop finishes queued writes; later calls complete as stopped") {
  auto s = open();
  int done = 0;
  for (int i = 0; i < 100; ++i) {
    s->append({"e"}, {}, [&done](std::error_code ec, std::uint64_t) {
      CHECK_FALSE(ec);
      ++done;
    });
  }
  SECTION("after start") { s->start(); }
  SECTION("never started") {}
  s->stop();
  CHECK(loop.run_ready() == 1);  // one group commit: its completions in one post
  CHECK(done == 100);

  std::optional<append_result> late;
  s->append({"late"}, {}, [&](std::error_code ec, std::uint64_t first) {
    late = append_result{ec, first};
  });
  REQUIRE(loop.run_until([&] { return late.has_value(); }));
  CHECK(late->ec == store_errc::stopped);
  std::optional<std::error_code> late_snapshot;
  s->save_snapshot(1, "x", [&](std::error_code ec) { late_snapshot = ec; });
  REQUIRE(loop.run_until([&] { return late_snapshot.has_value(); }));
  CHECK(*late_snapshot == store_errc::stopped);
  s->stop();  // idempotent
  s.reset();
  CHECK(reopen_and_recover().events.size() == 100);
}

TEST_CASE_METHOD(store_fixture, "a full disk fails the write; seqs are reused once space is back") {
  auto faults = std::make_shared<store::fault_injection>();
  store::options opts;
  opts.faults = faults;
  {
    auto s = open_started(nullptr, opts);
    CHECK(append(*s, {"e1"}).first_seq == 1);

    faults->disk_full = true;
    auto failed = append(*s, {"lost-a", "lost-b"}, {{"k", "lost"}});
    CHECK(failed.ec == store_errc::no_space);
    CHECK(failed.ec == std::errc::no_space_on_device);
    // Still full: the resume before this write fails too.
    CHECK(append(*s, {"lost-c"}).ec == std::errc::no_space_on_device);
    CHECK(s->stats().failed_writes >= 2);
    CHECK(s->stats().last_seq == 1);

    faults->disk_full = false;
    auto resumed = append(*s, {"e2"});
    CHECK_FALSE(resumed.ec);
    CHECK(resumed.first_seq == 2);
    auto values = read(*s, {"k"});
    REQUIRE(values.values.size() == 1);
    CHECK_FALSE(values.values[0]);
  }
  const recovered_log log = reopen_and_recover();
  CHECK(log.events == strings{"e1", "e2"});
}

TEST_CASE_METHOD(store_fixture, "a second instance on the same dir is refused") {
  auto s = open();
  const std::string message = open_error(dir.path, loop);
  CHECK_THAT(message, Catch::Contains("in use by another Foyer process"));
  CHECK_THAT(message, Catch::Contains(dir.path.string()));
}

TEST_CASE_METHOD(store_fixture, "a dir locked by another process is refused") {
  open().reset();
  int ready[2];
  int release[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(release) == 0);
  const std::string lock_path = (dir.path / "LOCK").string();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Takes the lock the way RocksDB does (fcntl write lock), then waits to be released.
    const int fd = ::open(lock_path.c_str(), O_RDWR);
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    const bool locked = fd >= 0 && ::fcntl(fd, F_SETLK, &lock) == 0;
    char byte = locked ? '1' : '0';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(2);
    if (::read(release[0], &byte, 1) != 1) ::_exit(3);
    ::_exit(0);
  }
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  CHECK(byte == '1');
  const std::string message = open_error(dir.path, loop);
  CHECK(::write(release[1], "x", 1) == 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  for (int fd : {ready[0], ready[1], release[0], release[1]}) ::close(fd);
  CHECK_THAT(message, Catch::Contains("in use by another Foyer process"));
  // Once the other process is gone, the store opens.
  CHECK(open_error(dir.path, loop).empty());
}

TEST_CASE_METHOD(store_fixture, "a corrupt store is refused with a message naming the dir") {
  {
    auto s = open_started();
    append(*s, {"e1"});
  }
  SECTION("garbage over CURRENT") { write_file(dir.path / "CURRENT", "garbage"); }
  SECTION("garbage over the MANIFEST") {
    for (const auto& entry : fs::directory_iterator(dir.path)) {
      if (entry.path().filename().string().starts_with("MANIFEST-")) {
        write_file(entry.path(), std::string(4096, '\x5a'));
      }
    }
  }
  SECTION("a flipped byte inside a complete WAL record") {
    int damaged = 0;
    for (const auto& entry : fs::directory_iterator(dir.path)) {
      if (entry.path().extension() != ".log" || fs::file_size(entry.path()) < 64) continue;
      std::fstream wal(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
      constexpr std::streamoff inside_first_record = 16;
      wal.seekg(inside_first_record);
      const char byte = static_cast<char>(wal.get() ^ 0x40);
      wal.seekp(inside_first_record);
      wal.put(byte);
      REQUIRE(wal.good());
      ++damaged;
    }
    REQUIRE(damaged > 0);
  }
  const std::string message = open_error(dir.path, loop);
  CHECK_THAT(message, Catch::Contains(dir.path.string()));
  CHECK_THAT(message, Catch::Contains("orrupt"));
}

TEST_CASE_METHOD(store_fixture, "a missing event in the log is refused at recovery") {
  {
    auto s = open_started();
    append(*s, {"e1", "e2", "e3"});
  }
  {
    raw_store raw(dir.path);
    REQUIRE(raw.db->Delete(rocksdb::WriteOptions(), raw.events(), event_key(2)).ok());
  }
  auto s = open();
  CHECK_THROWS_WITH(s->recover(), Catch::Contains("event 2 is missing"));
}

TEST_CASE_METHOD(store_fixture, "a store is created in a fresh volume's root") {
  fs::create_directories(dir.path / "lost+found");
  {
    auto s = open_started();
    CHECK(append(*s, {"e1"}).first_seq == 1);
  }
  CHECK(reopen_and_recover().events == strings{"e1"});
}

TEST_CASE_METHOD(store_fixture, "a dir that is not a Foyer store is refused") {
  SECTION("someone else's files") {
    fs::create_directories(dir.path);
    write_file(dir.path / "notes.txt", "hello");
    CHECK_THAT(open_error(dir.path, loop), Catch::Contains("not a Foyer store"));
    CHECK(fs::exists(dir.path / "notes.txt"));
    CHECK_FALSE(fs::exists(dir.path / "CURRENT"));
  }
  SECTION("another RocksDB database") {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    REQUIRE(rocksdb::DB::Open(options, dir.path.string(), &db).ok());
    std::unique_ptr<rocksdb::DB> owned(db);
    REQUIRE(db->Put(rocksdb::WriteOptions(), "k", "v").ok());
    owned.reset();
    CHECK_THAT(open_error(dir.path, loop), Catch::Contains("not a Foyer store"));
  }
  SECTION("a regular file") {
    write_file(dir.path, "x");
    CHECK_THAT(open_error(dir.path, loop), Catch::Contains("not a directory"));
  }
}

TEST_CASE_METHOD(store_fixture, "another format version is refused") {
  open().reset();
  {
    raw_store raw(dir.path);
    REQUIRE(raw.db->Put(rocksdb::WriteOptions(), raw.meta(), "v", "foyer-event-log/2").ok());
  }
  const std::string message = open_error(dir.path, loop);
  CHECK_THAT(message, Catch::Contains("foyer-event-log/2"));
  CHECK_THAT(message, Catch::Contains("foyer-event-log/1"));
}

using records = std::vector<std::pair<std::string, std::string>>;

TEST_CASE_METHOD(store_fixture, "contacts are put and deleted in one synced write and read back after a reopen") {
  {
    auto s = open_started();
    CHECK_FALSE(write_contacts(*s, {{"a", "1"}, {"b", "2"}, {"c", "3"}}));
    CHECK_FALSE(write_contacts(*s, {{"b", std::nullopt}, {"c", "3'"}, {"never", std::nullopt}}));
    CHECK(s->stats().synced_writes == 2);
    CHECK(s->stats().last_seq == 0);  // not events
  }
  auto s = open();
  CHECK(s->load_contacts() == records{{"a", "1"}, {"c", "3'"}});
  CHECK(s->recover().events.empty());
}

TEST_CASE_METHOD(store_fixture, "a read of events queued right behind a write is served after it") {
  auto s = open();
  std::optional<append_result> appended;
  s->append({"e1"}, {}, [&](std::error_code ec, std::uint64_t first) { appended = append_result{ec, first}; });
  std::optional<strings> events;
  s->read_events(0, 10, [&](std::error_code ec, std::uint64_t, strings e) {
    CHECK_FALSE(ec);
    events = std::move(e);
  });
  // Both wait in the queue until the storage thread starts: it takes them together.
  s->start();
  REQUIRE(loop.run_until([&] { return events.has_value(); }));
  CHECK_FALSE(appended->ec);
  CHECK(*events == strings{"e1"});
}

TEST_CASE_METHOD(store_fixture, "a store made before contacts were kept opens, and gains them") {
  {
    rocksdb::DBOptions options;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    const std::vector<rocksdb::ColumnFamilyDescriptor> families{{rocksdb::kDefaultColumnFamilyName, {}}, {"events", {}}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(options, dir.path.string(), families, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    REQUIRE(db->Put(rocksdb::WriteOptions(), handles[0], "v", std::string(store::log_format_version)).ok());
    REQUIRE(db->Put(rocksdb::WriteOptions(), handles[1], event_key(1), "e1").ok());
    for (auto* h : handles) REQUIRE(db->DestroyColumnFamilyHandle(h).ok());
  }
  {
    recovered_log log;
    auto s = open_started(&log);
    CHECK(log.events == strings{"e1"});
    CHECK_FALSE(write_contacts(*s, {{"k", "v"}}));
  }
  auto s = open();
  CHECK(s->load_contacts() == records{{"k", "v"}});
}

TEST_CASE_METHOD(store_fixture, "a column family the store does not know is refused") {
  open().reset();
  {
    raw_store raw(dir.path);
    rocksdb::ColumnFamilyHandle* stray = nullptr;
    REQUIRE(raw.db->CreateColumnFamily({}, "stray", &stray).ok());
    REQUIRE(raw.db->DestroyColumnFamilyHandle(stray).ok());
  }
  CHECK_THAT(open_error(dir.path, loop), Catch::Contains("not a Foyer store"));
}

TEST_CASE_METHOD(store_fixture, "an online copy of the log leaves the contacts out") {
  auto s = open_started();
  REQUIRE(append(*s, {"e1", "e2"}, {{"side", "value"}}).first_seq == 1);
  CHECK_FALSE(write_contacts(*s, {{"hall-visitor", "ada@example.com"}}));
  temp_dir copy;
  temp_dir scratch;
  // Made while the server runs, as `foyer backup` does.
  auto copied = store::copy_log(dir.path, copy.path, scratch.path);
  CHECK(copied.last_seq == 2);
  CHECK(copied.records == 4);  // two events, the version record, the side record
  s.reset();

  rocks_store restored(copy.path, loop.poster());
  CHECK(restored.recover().events == strings{"e1", "e2"});
  CHECK(restored.load_contacts().empty());
  CHECK(open()->load_contacts() == records{{"hall-visitor", "ada@example.com"}});
}

TEST_CASE("store errors compare equal to the generic conditions") {
  CHECK(std::error_code(store_errc::no_space) == std::errc::no_space_on_device);
  CHECK(std::error_code(store_errc::io_error) == std::errc::io_error);
  CHECK(std::error_code(store_errc::stopped) == std::errc::operation_canceled);
  CHECK(std::error_code(store_errc::corruption) != std::errc::io_error);
  CHECK(std::error_code(store_errc::no_space).message() == "no space left on the storage device");
}

TEST_CASE("the memory store keeps the real store's contract") {
  test::run_loop loop;
  test::memory_store s(loop.poster());
  std::vector<std::uint64_t> firsts;
  std::vector<std::error_code> errors;
  const auto record = [&](std::error_code ec, std::uint64_t first) {
    errors.push_back(ec);
    firsts.push_back(first);
  };
  s.append({"e1", "e2"}, {{"k", "v"}}, record);
  s.fail_next_writes(1);
  s.append({"lost"}, {{"k", "lost"}}, record);
  s.append({"e3"}, {}, record);
  std::optional<std::error_code> snapshot_result;
  s.save_snapshot(4, "ahead", [&](std::error_code ec) { snapshot_result = ec; });
  CHECK(loop.run_ready() == 4);
  CHECK(firsts == std::vector<std::uint64_t>{1, 0, 3});
  CHECK(errors[1] == std::errc::no_space_on_device);
  CHECK(*snapshot_result == std::errc::invalid_argument);

  s.save_snapshot(2, "state@2", [&](std::error_code ec) { snapshot_result = ec; });
  std::optional<std::string> value;
  s.read({"k"}, [&](std::error_code, std::vector<std::optional<std::string>> v) { value = v[0]; });
  CHECK(loop.run_ready() == 2);
  CHECK_FALSE(*snapshot_result);
  CHECK(value == "v");
  const recovered_log log = s.recover();
  CHECK(log.snapshot == "state@2");
  CHECK(log.snapshot_seq == 2);
  CHECK(log.events == strings{"e3"});

  s.fail_next_writes(1);
  std::vector<std::error_code> written;
  s.write_contacts({{"a", "1"}}, [&](std::error_code ec) { written.push_back(ec); });
  s.write_contacts({{"a", "1"}, {"b", "2"}}, [&](std::error_code ec) { written.push_back(ec); });
  s.write_contacts({{"a", std::nullopt}}, [&](std::error_code ec) { written.push_back(ec); });
  CHECK(loop.run_ready() == 3);
  CHECK(written[0] == std::errc::no_space_on_device);
  CHECK_FALSE(written[1]);
  CHECK(s.contacts() == std::map<std::string, std::string>{{"b", "2"}});
}

namespace {

// The cluster's log as the store sees it: what each group commit sent, and a refusal on demand.
struct recording_replica final : store::replica {
  struct sent {
    std::uint64_t entry;
    cluster::log_entry log;
  };
  std::vector<sent> entries;
  bool refuse_next = false;

  std::error_code replicate(std::uint64_t entry, std::uint64_t first_seq, std::span<const std::string_view> events,
                            std::span<const side_record> side_records) override {
    if (std::exchange(refuse_next, false)) return store_errc::not_replicated;
    cluster::log_entry log{first_seq, {events.begin(), events.end()}, {side_records.begin(), side_records.end()}};
    entries.push_back({entry, std::move(log)});
    return {};
  }
  [[noreturn]] void lost_locally(std::error_code) override { std::abort(); }
};

}  // namespace

TEST_CASE_METHOD(store_fixture, "in cluster mode each group commit is first the cluster log's next entry") {
  recording_replica replica;
  {
    auto s = open();
    s->recover();
    s->replicate_to(replica);
    s->start();
    CHECK(append(*s, {"e1", "e2"}, {{"k", "v"}}).first_seq == 1);
    replica.refuse_next = true;
    // Refused by the cluster's log: not written here, and its seqs are not used up.
    CHECK(append(*s, {"refused"}).ec == store_errc::not_replicated);
    CHECK(append(*s, {"e3"}).first_seq == 3);
    CHECK(append(*s, {}, {{"side", "alone"}}).first_seq == 4);
    // Contacts never leave the node.
    CHECK_FALSE(write_contacts(*s, {{"c", "1"}}));
  }
  REQUIRE(replica.entries.size() == 3);
  CHECK(replica.entries[0].entry == 1);
  CHECK(replica.entries[0].log.first_seq == 1);
  CHECK(replica.entries[0].log.events == strings{"e1", "e2"});
  CHECK(replica.entries[0].log.side_records.front().value == "v");
  CHECK(replica.entries[1].entry == 2);
  CHECK(replica.entries[1].log.events == strings{"e3"});
  CHECK(replica.entries[2].log.events.empty());
  CHECK(replica.entries[2].log.first_seq == 4);
  auto s = open();
  CHECK(s->cluster_entries() == 3);
  CHECK(s->recover().events == strings{"e1", "e2", "e3"});
}

TEST_CASE_METHOD(store_fixture, "a standby copies the cluster's log entry by entry, and refuses a gap") {
  recording_replica replica;
  {
    auto leader = open();
    leader->recover();
    leader->replicate_to(replica);
    leader->start();
    append(*leader, {"e1"});
    append(*leader, {"e2", "e3"}, {{"k", "v"}});
  }
  temp_dir standby_dir;
  rocks_store standby(standby_dir.path, loop.poster());
  CHECK_THROWS_AS(standby.apply_entry(2, replica.entries[1].log), store_error);  // entry 1 is missing
  standby.apply_entry(1, replica.entries[0].log);
  auto wrong_start = replica.entries[1].log;
  wrong_start.first_seq = 5;
  CHECK_THROWS_AS(standby.apply_entry(2, wrong_start), store_error);
  standby.apply_entry(2, replica.entries[1].log);
  CHECK(standby.cluster_entries() == 2);
  CHECK(standby.recover().events == strings{"e1", "e2", "e3"});
  standby.start();
  CHECK(read(standby, {"k"}).values == std::vector<std::optional<std::string>>{"v"});
  CHECK(append(standby, {"e4"}).first_seq == 4);
}

TEST_CASE_METHOD(store_fixture, "in cluster mode a group commit stays within one etcd request, side records counted") {
  recording_replica replica;
  auto s = open();
  s->recover();
  s->replicate_to(replica);
  // Queued before the storage thread starts, both would be one group commit: their small
  // events fit, but their side records together do not.
  const std::string big(store::replicated_batch_bytes / 2 + 1, 'n');
  int done = 0;
  for (const char* key : {"a", "b"}) {
    s->append({"join"}, {{key, big}}, [&](std::error_code ec, std::uint64_t) {
      CHECK_FALSE(ec);
      ++done;
    });
  }
  s->start();
  REQUIRE(loop.run_until([&] { return done == 2; }));
  REQUIRE(replica.entries.size() == 2);
  CHECK(replica.entries[1].log.first_seq == 2);
}
