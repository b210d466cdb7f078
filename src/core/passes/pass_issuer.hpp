#pragma once
// Issuing the passes of admitted visitors. A signature costs more than the rest of a
// poll, so an admitted visitor who polls again gets the same pass while at least half of
// its life is left.
//
// Pure logic: the caller passes `now` (unix seconds). Not synchronised: one thread only
// (the event loop).

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/passes/pass.hpp"
#include "core/rooms/event.hpp"

namespace foyer::pass {

class issuer {
 public:
  // `iss`: the issuer claim of every pass.
  explicit issuer(std::string iss) : iss_(std::move(iss)) {}

  // The pass of `visitor` in room `room_id`, signed by `key` and valid for `ttl_seconds`
  // from `now`, or the one issued earlier while half of its life is left. Its jti is the
  // same for every pass of the visitor in the room, so a single-use check sees re-issued
  // passes as one.
  std::string pass_for(const signing_key& key, std::string_view room_id, const id16& visitor,
                       std::uint32_t ttl_seconds, std::int64_t now);

  // Passes held for reuse.
  std::size_t held() const { return issued_.size(); }

 private:
  struct issued_pass {
    std::string token;
    std::int64_t reuse_until = 0;
  };
  std::string iss_;
  std::unordered_map<std::string, issued_pass> issued_;  // by jti
  std::deque<std::pair<std::int64_t, std::string>> reuse_order_;  // (reuse_until, jti), oldest first
};

}  // namespace foyer::pass
