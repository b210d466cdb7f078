#pragma once
// The deployment's public ledger of draws (docs/fairness.md, "The public record of every
// draw"): the entries' exact text, and the log they are appended to, published as C2SP
// tlog-tiles under a checkpoint the ledger key signs.
//
// The ledger is a pure function of the event log: the journal appends an entry as the
// event that makes it applies, on replay exactly as live, so it needs no storage of its
// own beyond the snapshot. It is small (a handful of entries per draw) and kept in memory.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/fairness/lottery.hpp"
#include "core/fairness/tlog_tiles.hpp"

namespace foyer::ledger {

inline constexpr std::string_view header = "foyer/ledger/v1";

// What a draw's key mixes in: nothing, a drand quicknet round fixed at commit time, or a
// value the operator types in.
enum class beacon_kind : std::uint8_t { none, drand_quicknet, operator_value };

// A room with lanes draws each lane on its own: the entries of a lane's draw name the lane
// in a line after the room's; the general lane's, like a room's without lanes, name none.

struct commit_entry {
  std::string room;
  std::string lane;  // "" for the general lane
  digest commitment{};
  beacon_kind beacon = beacon_kind::none;
  std::uint64_t round = 0;  // drand_quicknet only
  std::int64_t closes_at_ms = 0;
  std::int64_t at_ms = 0;
};

struct close_entry {
  std::string room;
  std::string lane;
  std::uint64_t size = 0;
  digest root{};
  std::int64_t at_ms = 0;
};

enum class stage : std::uint8_t { commit, close };
std::string_view to_string(stage s);

struct witnessed_entry {
  std::string room;
  ledger::stage stage = stage::commit;
  std::string cosigned_checkpoint;  // the note as served, cosignatures included
};

struct reveal_entry {
  std::string room;
  std::string lane;
  digest seed{};
  beacon_kind beacon = beacon_kind::none;
  std::uint64_t round = 0;    // drand_quicknet: the round
  byte_vector beacon_value;   // drand_quicknet: its signature; operator_value: the value
  digest key{};
  digest places{};
  std::int64_t at_ms = 0;
};

std::string text(const commit_entry& e);
std::string text(const close_entry& e);
std::string text(const witnessed_entry& e);
std::string text(const reveal_entry& e);

// SHA-256(u64be(π(0)) ‖ … ‖ u64be(π(N − 1))).
digest places_hash(const lottery::permutation& places);

class log {
 public:
  // Throws std::invalid_argument for an entry longer than tiles::max_entry_size.
  void append(std::string entry);
  std::uint64_t size() const { return entries_.size(); }
  digest root() const { return tiles_.root(); }
  const std::vector<std::string>& entries() const { return entries_; }
  // The tile or bundle at `path` (tlog-tiles) of the log as it stands, if it has one.
  std::optional<std::string> file(std::string_view path) const;
  // The index of the newest entry of this kind for this room, of any of its lanes, if any.
  std::optional<std::uint64_t> last_entry(std::string_view kind, std::string_view room) const;
  // The RFC 9162 consistency proof from the first `old_size` entries to the first
  // `new_size` (old_size <= new_size <= size()).
  std::vector<digest> consistency(std::uint64_t old_size, std::uint64_t new_size) const;

  std::string encode() const;
  // nullopt unless the bytes are what encode() wrote.
  static std::optional<log> decode(std::string_view bytes);

 private:
  std::vector<std::string> entries_;
  std::vector<digest> leaves_;
  tiles::writer tiles_;
  std::map<std::string, std::string, std::less<>> full_files_;
};

}  // namespace foyer::ledger
