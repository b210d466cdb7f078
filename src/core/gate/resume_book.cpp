#include "core/gate/resume_book.hpp"

#include <algorithm>
#include <vector>

namespace foyer {

std::optional<id16> resume_book::live(const id16& visitor) const {
  auto it = entries_.find(visitor);
  return it == entries_.end() ? std::nullopt : it->second.link;
}

std::uint8_t resume_book::made(const id16& visitor) const {
  auto it = entries_.find(visitor);
  return it == entries_.end() ? 0 : it->second.made;
}

void resume_book::set(const id16& visitor, const std::optional<id16>& link) {
  auto& e = entries_[visitor];
  e.link = link;
  // Saturating: replay of a log written under a higher limit stays exact up to 255.
  if (link && e.made < 255) ++e.made;
}

void resume_book::encode(writer& w) const {
  std::vector<std::pair<id16, entry>> sorted(entries_.begin(), entries_.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  w.u64(sorted.size());
  for (const auto& [visitor, e] : sorted) {
    w.raw(visitor);
    w.u8(e.made);
    w.u8(e.link.has_value());
    if (e.link) w.raw(*e.link);
  }
}

bool resume_book::decode(reader& r) {
  std::unordered_map<id16, entry, id16_hash> entries;
  auto count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto visitor = r.raw<16>();
    entry e;
    e.made = r.u8();
    auto flag = r.u8();
    if (flag > 1) return false;
    if (flag) e.link = r.raw<16>();
    entries.emplace(visitor, e);
  }
  if (r.failed()) return false;
  entries_ = std::move(entries);
  return true;
}

}  // namespace foyer
