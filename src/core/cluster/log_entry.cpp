#include "core/cluster/log_entry.hpp"

#include <charconv>

#include <fmt/core.h>

#include "core/base/codec.hpp"

namespace foyer::cluster {
namespace {

constexpr std::uint8_t entry_format = 1;
constexpr std::size_t entry_digits = 20;

std::string log_dir(std::string_view prefix) { return fmt::format("{}/log/", prefix); }

}  // namespace

std::string encode_log_entry(std::uint64_t first_seq, std::span<const std::string_view> events, std::span<const side_record> side_records) {
  std::size_t size = 17;
  for (auto e : events) size += 4 + e.size();
  for (const auto& s : side_records) size += 8 + s.key.size() + s.value.size();
  writer out(size);
  out.u8(entry_format);
  out.u64(first_seq);
  out.u32(static_cast<std::uint32_t>(events.size()));
  for (auto e : events) out.str(e);
  out.u32(static_cast<std::uint32_t>(side_records.size()));
  for (const auto& s : side_records) {
    out.str(s.key);
    out.str(s.value);
  }
  return out.take();
}

std::optional<log_entry> decode_log_entry(std::string_view bytes) {
  reader in(bytes);
  if (in.u8() != entry_format) return std::nullopt;
  log_entry entry;
  entry.first_seq = in.u64();
  // Each event or record takes at least 4 bytes: a count beyond that is a lie, not a size to reserve.
  const std::uint32_t events = in.u32();
  if (events > bytes.size() / 4) return std::nullopt;
  entry.events.reserve(events);
  for (std::uint32_t i = 0; i < events && !in.failed(); ++i) entry.events.push_back(in.str());
  const std::uint32_t records = in.u32();
  if (records > bytes.size() / 8) return std::nullopt;
  entry.side_records.reserve(records);
  for (std::uint32_t i = 0; i < records && !in.failed(); ++i) {
    auto key = in.str();
    entry.side_records.push_back({std::move(key), in.str()});
  }
  if (!in.done() || entry.first_seq == 0) return std::nullopt;
  return entry;
}

std::string log_key(std::string_view prefix, std::uint64_t entry) {
  return fmt::format("{}{:0{}}", log_dir(prefix), entry, entry_digits);
}

std::optional<std::uint64_t> log_key_entry(std::string_view prefix, std::string_view key) {
  const auto dir = log_dir(prefix);
  if (key.size() != dir.size() + entry_digits || !key.starts_with(dir)) return std::nullopt;
  std::uint64_t entry = 0;
  auto digits = key.substr(dir.size());
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), entry);
  if (ec != std::errc{} || end != digits.data() + digits.size() || entry == 0) return std::nullopt;
  return entry;
}

std::string log_keys_end(std::string_view prefix) { return fmt::format("{}/log0", prefix); }

std::string leader_key(std::string_view prefix) { return fmt::format("{}/leader", prefix); }

}  // namespace foyer::cluster
