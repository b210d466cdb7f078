#pragma once
// Issuing the passes of admitted visitors. A signature costs more than the rest of a
// poll, so an admitted visitor who polls again gets the same pass: a pass lives from its
// claim (core/rooms/claims) to a fixed expiry, so there is nothing to renew.
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
#include "core/base/ids.hpp"

namespace foyer::pass {

id16 pass_id(std::string_view room_id, const id16& visitor);

class issuer {
 public:
  // `iss`: the issuer claim of every pass.
  explicit issuer(std::string iss) : iss_(std::move(iss)) {}

  // The pass of `visitor` in room `room_id`, signed by `key`, valid from `now` until
  // `expires_at`, or the one issued earlier with that expiry. Its jti is pass_id: the
  // same for every pass of the visitor in the room, so a single-use check sees re-issued
  // passes as one, and the site reports passes done by it.
  std::string pass_for(const signing_key& key, std::string_view room_id, const id16& visitor,
                       std::int64_t expires_at, std::int64_t now);

  // Passes held for reuse.
  std::size_t held() const { return issued_.size(); }

 private:
  struct issued_pass {
    std::string token;
    std::int64_t expires_at = 0;
  };
  std::string iss_;
  std::unordered_map<std::string, issued_pass> issued_;  // by jti
  std::deque<std::pair<std::int64_t, std::string>> expiry_order_;  // (expires_at, jti), in issue order
};

}  // namespace foyer::pass
