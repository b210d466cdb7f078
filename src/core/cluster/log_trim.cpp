#include "core/cluster/log_trim.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace foyer::cluster {

std::uint64_t lowest_held(std::uint64_t written, std::span<const std::uint64_t> held) {
  std::uint64_t lowest = written;
  for (auto h : held) lowest = std::min(lowest, h);
  return lowest;
}

std::uint64_t trim_through(std::uint64_t lowest, std::uint64_t retained) {
  const std::uint64_t keep = std::max<std::uint64_t>(retained, 1);
  return lowest > keep ? lowest - keep : 0;
}

std::string held_keys_begin(std::string_view prefix) { return fmt::format("{}/held/", prefix); }

// '0' follows '/': every key under "held/" sorts before "held0".
std::string held_keys_end(std::string_view prefix) { return fmt::format("{}/held0", prefix); }

std::string held_key(std::string_view prefix, std::string_view node) { return held_keys_begin(prefix) + std::string(node); }

std::optional<std::string_view> held_key_node(std::string_view prefix, std::string_view key) {
  const auto begin = held_keys_begin(prefix);
  if (key.size() <= begin.size() || !key.starts_with(begin)) return std::nullopt;
  return key.substr(begin.size());
}

std::optional<std::uint64_t> held_value(std::string_view value) {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc{} || end != value.data() + value.size()) return std::nullopt;
  return n;
}

}  // namespace foyer::cluster
