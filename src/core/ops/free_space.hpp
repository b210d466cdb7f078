#pragma once
// When the store looks at its device's free space before a write. A write must never meet
// a full device inside RocksDB (its error path after ENOSPC is not one to rely on), so a
// write is refused while the device has no more than its reserve free. Looking costs a
// system call; far from full, one look an interval does: no writer, the store or another
// process, fills `far_bytes` in that time. Near full, and while refusing, every write
// looks, so that writes are refused in time and resume as soon as space is freed.

#include <cstdint>
#include <optional>

namespace foyer::ops {

struct free_space_limits {
  std::int64_t interval_ms = 100;           // at most this long between looks, far from full
  std::uint64_t far_bytes = std::uint64_t{1} << 30;  // free beyond the reserve that is far from full
};

// What a look at the device found: the bytes free, and the reserve to keep on it.
struct device_space {
  std::uint64_t free_bytes = 0;
  std::uint64_t reserve_bytes = 0;
};

class free_space_watch {
 public:
  explicit free_space_watch(free_space_limits limits = {}) : limits_(limits) {}

  // Whether a write at `now_ms` must look at the device first.
  bool must_look(std::int64_t now_ms) const;
  // What a look at `now_ms` found. None: the free space could not be read; the write goes
  // ahead and the next one looks again.
  void looked(std::int64_t now_ms, std::optional<device_space> found);
  // Whether the last look leaves room for a write.
  bool has_room() const;
  // A write of `bytes` went to the device since the last look.
  void wrote(std::uint64_t bytes) { written_ += bytes; }

 private:
  free_space_limits limits_;
  std::optional<std::int64_t> looked_ms_;
  std::optional<device_space> space_;  // at the last look
  std::uint64_t written_ = 0;           // since the last look
};

}  // namespace foyer::ops
