#pragma once
// The resume links a room's visitors hold live ("Keep my place"): at most one per
// visitor, by a random link id, with no personal data. Part of the room's state, so it
// is replayed from the log's resume_link_changed events, kept in the room's snapshots
// and forgotten with the room. Single-threaded: owned by the room.

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "core/base/codec.hpp"
#include "core/base/ids.hpp"

namespace foyer {

class resume_book {
 public:
  // Links one visitor may make in a room: each is a write to the log, so a ticket may
  // not make the server write without end.
  static constexpr std::uint8_t max_links = 8;

  // The visitor's live link id, if they hold one.
  std::optional<id16> live(const id16& visitor) const;
  // How many links the visitor made.
  std::uint8_t made(const id16& visitor) const;
  // `link` becomes the visitor's live link (one more made), or none is (revoked).
  void set(const id16& visitor, const std::optional<id16>& link);
  std::size_t size() const { return entries_.size(); }

  // In visitor order: equal books encode to equal bytes.
  void encode(writer& w) const;
  // False if the bytes are not a book; `this` is unchanged then.
  bool decode(reader& r);

 private:
  struct entry {
    std::optional<id16> link;
    std::uint8_t made = 0;
  };
  std::unordered_map<id16, entry, id16_hash> entries_;
};

}  // namespace foyer
