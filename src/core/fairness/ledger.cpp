#include "core/fairness/ledger.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/base/codec.hpp"
#include "core/base/crypto.hpp"
#include "core/fairness/merkle.hpp"

namespace foyer::ledger {
namespace {

std::string head(std::string_view kind, std::string_view room, std::string_view lane = {}) {
  auto text = fmt::format("{}\nkind {}\nroom {}\n", header, kind, room);
  if (!lane.empty()) text += fmt::format("lane {}\n", lane);
  return text;
}

std::string beacon_line(beacon_kind kind, std::uint64_t round) {
  switch (kind) {
    case beacon_kind::drand_quicknet: return fmt::format("beacon drand-quicknet {}\n", round);
    case beacon_kind::operator_value: return "beacon operator\n";
    case beacon_kind::none: break;
  }
  return "beacon none\n";
}

}  // namespace

std::string_view to_string(stage s) { return s == stage::commit ? "commit" : "close"; }

std::string text(const commit_entry& e) {
  return head("commit", e.room, e.lane) + fmt::format("commitment {}\n", to_hex(e.commitment)) +
         beacon_line(e.beacon, e.round) + fmt::format("closes_at {}\nat {}\n", e.closes_at_ms, e.at_ms);
}

std::string text(const close_entry& e) {
  return head("close", e.room, e.lane) + fmt::format("size {}\nroot {}\nat {}\n", e.size, to_hex(e.root), e.at_ms);
}

std::string text(const witnessed_entry& e) {
  return head("witnessed", e.room) + fmt::format("stage {}\n\n", to_string(e.stage)) + e.cosigned_checkpoint;
}

std::string text(const reveal_entry& e) {
  std::string beacon;
  switch (e.beacon) {
    case beacon_kind::drand_quicknet:
      beacon = fmt::format("beacon drand-quicknet {} {}\n", e.round, to_hex(e.beacon_value));
      break;
    case beacon_kind::operator_value: beacon = fmt::format("beacon operator {}\n", to_hex(e.beacon_value)); break;
    case beacon_kind::none: beacon = "beacon none\n"; break;
  }
  return head("reveal", e.room, e.lane) + fmt::format("seed {}\n", to_hex(e.seed)) + beacon +
         fmt::format("key {}\nplaces {}\nat {}\n", to_hex(e.key), to_hex(e.places), e.at_ms);
}

digest places_hash(const lottery::permutation& places) {
  sha256_stream hash;
  std::array<std::uint8_t, 8 * 512> chunk;
  std::size_t used = 0;
  for (std::uint64_t i = 0; i < places.size(); ++i) {
    put_be64(chunk.data() + used, places.place(i));
    used += 8;
    if (used == chunk.size()) {
      hash.update(chunk);
      used = 0;
    }
  }
  hash.update(std::span(chunk).first(used));
  return hash.finish();
}

void log::append(std::string entry) {
  tiles_.append(as_bytes(entry));
  for (auto& file : tiles_.take_full()) full_files_.emplace(std::move(file.path), std::move(file.bytes));
  leaves_.push_back(merkle::leaf_hash(as_bytes(entry)));
  entries_.push_back(std::move(entry));
}

std::optional<std::string> log::file(std::string_view path) const {
  if (auto it = full_files_.find(path); it != full_files_.end()) return it->second;
  for (auto& partial : tiles_.partials()) {
    if (partial.path == path) return std::move(partial.bytes);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> log::last_entry(std::string_view kind, std::string_view room) const {
  auto prefix = head(kind, room);
  for (auto i = entries_.size(); i-- > 0;) {
    if (entries_[i].starts_with(prefix)) return i;
  }
  return std::nullopt;
}

std::vector<digest> log::consistency(std::uint64_t old_size, std::uint64_t new_size) const {
  return merkle::consistency_in(std::span(leaves_).first(new_size), old_size);
}

std::string log::encode() const {
  writer w;
  w.u64(entries_.size());
  for (const auto& e : entries_) w.str(e);
  return w.take();
}

std::optional<log> log::decode(std::string_view bytes) {
  reader r(bytes);
  log out;
  auto count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto entry = r.str();
    if (r.failed() || entry.size() > tiles::max_entry_size) return std::nullopt;
    out.append(std::move(entry));
  }
  if (!r.done()) return std::nullopt;
  return out;
}

}  // namespace foyer::ledger
