#pragma once
// An online copy of the event log: read beside the server that writes it, as RocksDB's
// secondary instance does, and written to a new store of its own.

#include <cstdint>
#include <filesystem>

namespace foyer::store {

struct copied_log {
  std::uint64_t last_seq = 0;  // the newest event in the copy (0: none)
  std::uint64_t records = 0;   // every key copied, in every column family
};

// Copies the store in `dir` into `dest`, which must not exist, as of one moment after
// the call began: every write acknowledged before then is in the copy, since a write is
// acknowledged only once its WAL record is synced. Visitors' contacts are left out: a
// backup holds no addresses. `scratch` holds the secondary instance's own files while it
// runs. Throws store_error naming the cause.
copied_log copy_log(const std::filesystem::path& dir, const std::filesystem::path& dest,
                    const std::filesystem::path& scratch);

}  // namespace foyer::store
