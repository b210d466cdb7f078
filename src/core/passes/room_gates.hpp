#pragma once
// The server's own check of the passes it issued, for the routes that take a visitor's pass
// (holds): as the site would check them, with the keys this server publishes, one gate per
// room (the audience), so a pass costs one signature check and afterwards a hash lookup
// until its exp (core/passes/pass_gate).
//
// The keys are read once, at construction: the key ring changes only at a restart
// (app/keyring.hpp: keygen and retirement take effect at the next start), so no verifier
// or cached pass here outlives the key set it was checked under.
//
// Pure logic: the caller passes `now` (unix seconds). Not synchronised: one thread only
// (the event loop).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/passes/pass_gate.hpp"
#include "core/base/ids.hpp"

namespace foyer::pass {

class room_gates {
 public:
  // Verified passes remembered per room. A live pass takes about 300 bytes; past this,
  // the oldest makes room and costs one more signature check when it comes back.
  static constexpr std::size_t default_passes_per_room = 20'000;
  // Rooms come and go at runtime: past this many gates, all are dropped (the gates of
  // removed rooms with them) and the rooms still taking holds build theirs again.
  static constexpr std::size_t default_max_rooms = 1'024;

  // `jwks_json`: the keys this server publishes (EdDSA and ES256); `issuer`: the iss of its
  // passes. Throws foyer::jwks_error if the key set is not usable.
  room_gates(std::string jwks_json, std::string issuer, std::size_t passes_per_room = default_passes_per_room,
             std::size_t max_rooms = default_max_rooms);

  // The visitor whose valid pass of room `room_id` the token is, at `now`; nullopt for
  // anything else (not a pass, another room's, expired, a pass id that is not the
  // visitor's in this room).
  std::optional<id16> holder(std::string_view token, std::string_view room_id, std::int64_t now);

  std::size_t rooms() const { return gates_.size(); }
  std::size_t cached_passes(std::string_view room_id) const;

 private:
  gate& gate_of(std::string_view room_id);

  std::string jwks_json_;
  std::string issuer_;
  gate_settings settings_;
  std::size_t max_rooms_;
  std::map<std::string, gate, std::less<>> gates_;
};

}  // namespace foyer::pass
