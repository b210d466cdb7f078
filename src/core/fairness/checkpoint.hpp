#pragma once
// C2SP tlog-checkpoint (c2sp.org/tlog-checkpoint): a log's signed tree head, as the text
// of a signed note. Foyer writes no extension lines: whatever a log commits to goes in
// its entries, where monitors can audit it.
//
//   text = origin ‖ "\n" ‖ decimal tree size ‖ "\n" ‖ base64(RFC 6962 root) ‖ "\n"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "core/base/bytes.hpp"
#include "core/fairness/signed_note.hpp"

namespace foyer::checkpoint {

// Go's sumdb/tlog counts leaves in an int64; a larger size could not be checked there.
inline constexpr std::uint64_t max_tree_size = std::uint64_t{1} << 63;

struct tree_head {
  std::string origin;
  std::uint64_t size = 0;
  digest root{};
  friend bool operator==(const tree_head&, const tree_head&) = default;
};

// The note text. Throws std::invalid_argument unless the origin is a valid key name
// (non-empty, no Unicode space, no "+") and size < max_tree_size.
std::string text(const tree_head& head);
// The three lines back; extension lines, if any, are read past. nullopt unless the text
// has that shape exactly (size without leading zeros, root of 32 bytes).
std::optional<tree_head> parse(std::string_view text);

// The checkpoint as a note signed by the log's key. Throws as text() does.
std::string sign(const tree_head& head, const note::signer& log_key);
// The tree head of a checkpoint that one of `log_keys` signed (see note::open); a text
// that is not a checkpoint is open_error::malformed.
std::variant<tree_head, note::open_error> verify(std::string_view checkpoint, std::span<const note::verifier> log_keys);

}  // namespace foyer::checkpoint
