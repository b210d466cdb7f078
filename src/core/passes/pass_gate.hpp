#pragma once
// The per-request side of offline pass checks, as the guard makes them: the verifier, a
// bounded cache of verified passes so that a visitor's many requests cost one signature
// check, and in single-use mode the pass ids already spent.
//
// Pure logic: the caller passes `now` (unix seconds). Not synchronised: one thread only
// (the guard's event loop).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <foyer/pass_verifier.hpp>

#include "core/base/bytes.hpp"

namespace foyer::pass {

struct gate_settings {
  // Verified passes remembered by the SHA-256 of the token, until they expire; about 300
  // bytes each. When full, the oldest entry makes room (a miss costs one signature check).
  // 0 turns the cache off.
  std::size_t cache_capacity = 100'000;  // Default: 100,000 passes
  // Single use: a pass id (jti) is accepted once, then refused until its pass expires.
  bool single_use = false;  // Default: off
  // Spent pass ids are held until their passes expire. When the set is full of live ids, new
  // passes are refused ("single_use_full") rather than forgetting an id that could be replayed.
  std::size_t single_use_capacity = 1'000'000;  // Default: 1,000,000 ids
};

struct gate_result {
  bool ok = false;
  // The verifier's codes (pass_verifier.hpp), or "spent" (single use, already accepted) or
  // "single_use_full" (see gate_settings).
  std::string error_code;
  std::string subject;  // sub: the visitor id (when ok)
  std::string jti;      // the pass id (when ok)
  std::int64_t exp = 0;  // when ok
  bool cached = false;   // answered from the cache, without a signature check
};

class gate {
 public:
  gate(std::shared_ptr<const pass_verifier> verifier, gate_settings settings);

  // New keys (a JWKS refresh). The cache is emptied, so that passes of a key no longer
  // published stop passing at once; spent ids are kept.
  void replace_verifier(std::shared_ptr<const pass_verifier> verifier);
  const pass_verifier& verifier() const { return *verifier_; }

  // Checks a pass. In single-use mode a spent pass is refused, and `spend` records the
  // pass id of an accepted one; without `spend` nothing is recorded (e.g. when the pass is
  // only being moved into a cookie).
  gate_result check(std::string_view token, std::int64_t now, bool spend);

  std::size_t cached_passes() const { return cache_.size(); }
  std::size_t spent_ids() const { return spent_.size(); }

 private:
  struct verified {
    std::string subject;
    std::string jti;
    std::int64_t exp = 0;
  };
  struct digest_hash {
    std::size_t operator()(const digest& d) const;
  };
  using expiry = std::pair<std::int64_t, const std::string*>;  // (valid until, spent id)

  const verified* remember(const digest& key, verified entry);
  void forget_expired_ids(std::int64_t now);

  std::shared_ptr<const pass_verifier> verifier_;
  gate_settings settings_;
  std::unordered_map<digest, verified, digest_hash> cache_;
  std::deque<digest> cache_order_;  // insertion order, for eviction; same keys as cache_
  // Spent ids with the time until which their passes verify; the heap points at the map's
  // keys (node-based: stable) to forget them in expiry order.
  std::unordered_map<std::string, std::int64_t> spent_;
  std::priority_queue<expiry, std::vector<expiry>, std::greater<>> spent_expiry_;
};

}  // namespace foyer::pass
