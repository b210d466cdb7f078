#pragma once
// The site's keys for invite tokens as the join desk sees them: given inline in the config
// (fixed), or fetched from the site's URL and refreshed (delivery/jwks_fetcher carries the
// fetches). This decides when the next fetch is due and which set is in use: a fetched set
// replaces the one in use only when it parses (jwk_set::parse bounds its size and its keys),
// so a failed or bad fetch keeps the last good set.
//
// Pure: times are the caller's monotonic milliseconds (clock::steady_ms). Single-threaded:
// owned by the event loop, like the join desk that reads it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/lanes/invite_token.hpp"

namespace foyer::invite {

// [invites] refresh_seconds: its default and bounds.
inline constexpr std::int64_t default_refresh_seconds = 300;
inline constexpr std::int64_t max_refresh_seconds = 24 * 3600;
// A token under a kid the set does not have asks for a fetch before the next refresh (the
// site may have rotated its keys), at most this often: a stream of made-up kids cannot turn
// into a stream of requests to the site.
inline constexpr std::int64_t early_fetch_gap_ms = 10'000;
// A failed fetch is tried again after this, doubling up to the refresh interval.
inline constexpr std::int64_t first_retry_ms = 1'000;
// A Cache-Control max-age shortens the wait to the next refresh, never below this (nor
// lengthens it: the interval is the longest a set goes unchecked).
inline constexpr std::int64_t min_max_age_ms = 60'000;

// What one fetch came to.
//   ok       a key set that parses: it is now the one in use
//   failed   no 200 answer within the timeout, or a body over max_jwks_bytes
//   invalid  an answer that is not a usable key set (jwk_set::parse refused it)
enum class fetch_outcome { ok, failed, invalid };
inline constexpr std::size_t fetch_outcomes = 3;
std::string_view to_string(fetch_outcome o);

// The max-age of a Cache-Control header value, in seconds; nullopt when it has none, or an
// unreadable one.
std::optional<std::int64_t> max_age_seconds(std::string_view cache_control);

class site_keys {
 public:
  // No keys: every invite is refused.
  site_keys() = default;
  // Keys given inline: always in use, never fetched.
  explicit site_keys(jwk_set fixed) : keys_(std::move(fixed)) {}
  // Keys fetched every `refresh_ms` (1 s to max_refresh_seconds): none until the first good
  // fetch, which is due at once.
  static site_keys fetched(std::int64_t refresh_ms, std::int64_t now_ms);

  // The set in use; nullptr when there is none.
  const jwk_set* keys() const { return keys_ ? &*keys_ : nullptr; }
  // Fetched, and no fetch was good yet: an invite is to be tried again shortly, not refused.
  bool awaiting_first() const { return fetched_ && !keys_; }

  // The join desk met a token under a kid the set does not have. Calls the fetcher's hook
  // (on_key_missed) so that it looks at next_fetch_ms() again.
  void key_missed();
  void on_key_missed(std::function<void()> hook) { on_missed_ = std::move(hook); }

  // When the next fetch is due: the refresh, the retry after a failure, or sooner if a kid
  // was missed and no early fetch was made in the last early_fetch_gap_ms.
  std::int64_t next_fetch_ms() const;
  // A fetch starts now.
  void fetch_started(std::int64_t now_ms);
  // The fetch answered `body` with this Cache-Control (empty if none): nullopt when the set
  // is now in use (ok), else why it was refused (invalid) and the last good set is kept.
  std::optional<std::string> answered(std::string_view body, std::string_view cache_control, std::int64_t now_ms);
  // The fetch got no usable answer.
  void failed(std::int64_t now_ms);

  // Fetches by outcome, since start, indexed by fetch_outcome.
  const std::array<std::uint64_t, fetch_outcomes>& fetches() const { return fetches_; }
  // Whether the last good fetch changed the set in use (for the log).
  bool changed() const { return changed_; }

 private:
  void retry_later(std::int64_t now_ms);

  std::optional<jwk_set> keys_;
  bool fetched_ = false;
  std::int64_t refresh_ms_ = default_refresh_seconds * 1000;
  std::int64_t due_ms_ = 0;                     // the scheduled fetch: refresh or retry
  std::optional<std::int64_t> last_early_ms_;  // the last fetch made before it was due
  bool missed_ = false;                         // a kid was missed since the last fetch started
  unsigned failures_ = 0;                       // fetches failed or invalid in a row
  std::string text_;                            // the body of the set in use
  bool changed_ = false;
  std::array<std::uint64_t, fetch_outcomes> fetches_{};
  std::function<void()> on_missed_;
};

}  // namespace foyer::invite
