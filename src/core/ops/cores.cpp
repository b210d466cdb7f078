#include "core/ops/cores.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace foyer::ops {

std::size_t default_io_threads(std::size_t cores) {
  return cores < 4 ? 0 : std::min(cores - 1, max_default_io_threads);
}

std::optional<std::size_t> quota_cores(std::string_view cpu_max) {
  while (!cpu_max.empty() && (cpu_max.back() == '\n' || cpu_max.back() == ' ')) cpu_max.remove_suffix(1);
  auto space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view text) -> std::optional<std::uint64_t> {
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc{} || end != text.data() + text.size() || n == 0) return std::nullopt;
    return n;
  };
  auto quota = number(cpu_max.substr(0, space));
  auto period = number(cpu_max.substr(space + 1));
  if (!quota || !period) return std::nullopt;
  return static_cast<std::size_t>((*quota + *period - 1) / *period);
}

}  // namespace foyer::ops
