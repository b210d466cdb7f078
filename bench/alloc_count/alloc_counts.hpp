#pragma once
// The file through which the counting allocator (counting_new.cpp, preloaded into the
// server) tells the load generator (foyer_load --alloc-counts) how many allocations each
// of the server's threads has made: alloc_slots slots, each a thread's from its first
// allocation on, read from outside the process while it runs.

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace foyer::bench {

struct alloc_slot {
  std::atomic<std::int64_t> tid;      // the thread's kernel id; 0: slot not taken
  std::atomic<std::uint64_t> count;   // its calls of operator new (every form)
};

// More threads than the server ever starts; a thread beyond them goes uncounted.
inline constexpr std::size_t alloc_slots = 1024;
inline constexpr std::size_t alloc_counts_bytes = alloc_slots * sizeof(alloc_slot);

}  // namespace foyer::bench
