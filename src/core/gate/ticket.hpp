#pragma once
// A visitor's ticket: self-contained and MACed, so that a status poll checks it with
// one HMAC and reads no storage. Format: base64url(payload ‖ first 16 bytes of
// HMAC-SHA256(ticket key, "foyer/ticket/v1" ‖ payload)), payload =
//   u8 version (1) ‖ u8 room id length ‖ room id ‖ 16-byte visitor id ‖
//   u64be place ‖ u64be lobby index ‖ 16-byte entrant id ‖ u64be issued at (unix ms)
// with all-ones for an unknown place or no lobby index.
//
// The ticket key belongs to an incarnation of the server's state. A restore from a backup
// starts a new one: the old server may have issued tickets after the backup was taken, for
// places the restored log does not hold and would give again. Tickets of an earlier
// incarnation are honoured only for what the restored log holds (`ticket_cut`).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/crypto.hpp"
#include "core/base/ids.hpp"

namespace foyer {

struct ticket {
  std::string room;
  id16 visitor{};
  std::optional<std::uint64_t> place;
  std::optional<std::uint64_t> lobby_index;
  id16 entrant{};
  std::int64_t issued_ms = 0;
};

// lost_in_restore: MACed by an earlier incarnation, for a place or lobby index past what
// the backup it was restored from holds.
enum class ticket_error { malformed, forged, lost_in_restore };

// What a room's log held when a backup of it was taken: places [0, places) and lobby
// indexes [0, lobby) were issued, to the visitors whose tickets name them. A room with
// lanes numbers each lane's on its own: these are the general lane's, and `lanes` has
// the others', in lane order.
struct ticket_cut {
  struct counts {
    std::uint64_t places = 0;
    std::uint64_t lobby = 0;
    friend bool operator==(const counts&, const counts&) = default;
  };
  std::uint64_t places = 0;
  std::uint64_t lobby = 0;
  std::vector<counts> lanes;

  friend bool operator==(const ticket_cut&, const ticket_cut&) = default;
};

// An earlier incarnation: its ticket key and, per room id, the cut it was restored from.
// A room it does not list held no visitor then.
struct earlier_tickets {
  digest key{};
  std::map<std::string, ticket_cut, std::less<>> rooms;
};

// The ticket key of an incarnation ("" for the first) under the server secret.
digest ticket_key(byte_view secret, std::string_view incarnation);

class ticket_codec {
 public:
  explicit ticket_codec(byte_view key, std::vector<earlier_tickets> earlier = {});

  std::string encode(const ticket& t) const;
  // The same text, appended to `out` (an answer's body, which then holds no copy of it).
  void encode_into(std::string& out, const ticket& t) const;
  // The ticket if its MAC is good; which room it is for is the caller's check. A lobby
  // ticket of an earlier incarnation comes without its place: the restored draw decides it.
  std::optional<ticket> decode(std::string_view text, ticket_error* why = nullptr) const;

 private:
  struct earlier_key {
    hmac_key key;
    std::map<std::string, ticket_cut, std::less<>> rooms;
  };

  hmac_key key_;
  std::vector<earlier_key> earlier_;
};

}  // namespace foyer
