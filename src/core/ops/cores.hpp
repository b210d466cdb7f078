#pragma once
// How many I/O threads Foyer runs when the config does not say: from the cores it may use.

#include <cstddef>
#include <optional>
#include <string_view>

namespace foyer::ops {

// Below 4 cores an I/O thread's hand-offs to the loop cost more CPU than they free. From 4
// up, the cores less the loop's, at most 4: one loop cannot keep more busy, since a join
// costs the I/O threads about 15 µs for the loop's 9, and a poll 13 for its 4
// (bench/RESULTS.md, "I/O threads").
inline constexpr std::size_t max_default_io_threads = 4;
std::size_t default_io_threads(std::size_t cores);

// The cores a cgroup v2 CPU quota allows, rounded up, from its cpu.max ("150000 100000" is
// 1.5 cores, so 2); none when there is no quota ("max 100000") or the text is not one.
std::optional<std::size_t> quota_cores(std::string_view cpu_max);

}  // namespace foyer::ops
