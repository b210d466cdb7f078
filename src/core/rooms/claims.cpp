#include "core/rooms/claims.hpp"

#include <algorithm>
#include <cstring>

#include "core/base/crypto.hpp"

namespace foyer {
namespace {

// The claim ratio is measured over the admissions judged in this much time.
constexpr std::int64_t ratio_window_ms = 15 * 60'000;

}  // namespace

void claim_book::record_frontier(std::int64_t at_ms, std::uint64_t served) {
  if (!frontier_.empty() && frontier_.back().second == served) return;
  frontier_.emplace_back(at_ms, served);
}

std::uint64_t claim_book::served_at(std::int64_t at_ms) const {
  auto after = std::upper_bound(frontier_.begin(), frontier_.end(), at_ms,
                                [](std::int64_t t, const auto& step) { return t < step.first; });
  return after == frontier_.begin() ? 0 : std::prev(after)->second;
}

void claim_book::end(std::uint64_t place, pass_claim& c) {
  live_.erase({c.expires_ms, place});
  c.live = false;
  ++ended_;
  // Kept until the pass expires: its holds go on, and the site may still report it done.
  kept_.emplace(c.expires_ms, place);
}

void claim_book::settle(std::int64_t at_ms, std::int64_t window_ms) {
  while (!live_.empty() && live_.begin()->first <= at_ms) {
    auto place = live_.begin()->second;
    end(place, claims_.at(place));
  }
  while (!kept_.empty() && kept_.begin()->first <= at_ms) {
    auto place = kept_.begin()->second;
    kept_.erase(kept_.begin());
    // One not judged yet goes when it is (judge).
    if (!judged(place)) continue;
    by_pass_.erase(claims_.at(place).pass_id);
    claims_.erase(place);
  }
  auto target = served_at(at_ms - window_ms);
  judgment j{at_ms, 0, 0};
  for (auto place = judged_; place < target; ++place) {
    auto told = notified_.find(place);
    if (told != notified_.end()) {
      if (told->second + window_ms > at_ms) {
        waiting_.emplace(told->second, place);
        continue;
      }
      notified_.erase(told);
    }
    judge(place, j);
  }
  judged_ = std::max(judged_, target);
  while (!waiting_.empty() && waiting_.begin()->first + window_ms <= at_ms) {
    auto place = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    notified_.erase(place);
    judge(place, j);
  }
  if (j.judged > 0) recent_.push_back(j);
  while (!recent_.empty() && recent_.front().at_ms < at_ms - ratio_window_ms) recent_.pop_front();
  // The steps before the window's start are needed no more, but the last of them is.
  while (frontier_.size() > 1 && frontier_[1].first <= at_ms - window_ms) frontier_.pop_front();
}

void claim_book::judge(std::uint64_t place, judgment& j) {
  ++j.judged;
  auto it = claims_.find(place);
  if (it == claims_.end()) {
    ++no_shows_;
    return;
  }
  ++j.claimed;
  if (!it->second.live && it->second.expires_ms <= j.at_ms) {
    by_pass_.erase(it->second.pass_id);
    claims_.erase(it);
  }
}

void claim_book::notified(std::uint64_t place, std::int64_t at_ms, std::int64_t window_ms) {
  if (place < judged_ || claims_.contains(place) || lapsed(place, at_ms, window_ms)) return;
  notified_.emplace(place, at_ms);
}

bool claim_book::claim(std::uint64_t place, const id16& pass_id, std::int64_t expires_ms) {
  if (judged(place) || claims_.contains(place)) return false;
  claims_.emplace(place, pass_claim{pass_id, expires_ms, true});
  by_pass_.emplace(pass_id, place);
  live_.emplace(expires_ms, place);
  ++claimed_total_;
  return true;
}

void claim_book::finish(std::uint64_t place) {
  auto it = claims_.find(place);
  if (it != claims_.end() && it->second.live) end(place, it->second);
}

void claim_book::report_done(std::uint64_t place) {
  auto it = claims_.find(place);
  if (it == claims_.end() || it->second.done) return;
  it->second.done = true;
  if (it->second.live) end(place, it->second);
}

bool claim_book::reported_done(std::uint64_t place) const {
  auto it = claims_.find(place);
  return it != claims_.end() && it->second.done;
}

bool claim_book::usable(std::uint64_t place, std::int64_t now_ms) const {
  auto it = claims_.find(place);
  return it != claims_.end() && !it->second.done && it->second.expires_ms > now_ms;
}

std::optional<std::int64_t> claim_book::live_until(std::uint64_t place, std::int64_t now_ms) const {
  auto it = claims_.find(place);
  if (it == claims_.end() || !it->second.live || it->second.expires_ms <= now_ms) return std::nullopt;
  return it->second.expires_ms;
}

bool claim_book::lapsed(std::uint64_t place, std::int64_t now_ms, std::int64_t window_ms) const {
  if (claims_.contains(place)) return false;
  if (auto told = notified_.find(place); told != notified_.end() && told->second + window_ms > now_ms) return false;
  return place < std::max(judged_, served_at(now_ms - window_ms));
}

std::optional<std::uint64_t> claim_book::place_of_pass(const id16& pass_id) const {
  auto it = by_pass_.find(pass_id);
  if (it == by_pass_.end()) return std::nullopt;
  return it->second;
}

std::uint64_t claim_book::active(std::int64_t now_ms) const {
  std::uint64_t expired = 0;
  for (auto it = live_.begin(); it != live_.end() && it->first <= now_ms; ++it) ++expired;
  return live_.size() - expired;
}

std::uint64_t claim_book::freed(std::int64_t now_ms) const {
  return no_shows_ + ended_ + (live_.size() - active(now_ms));
}

std::pair<std::uint64_t, std::uint64_t> claim_book::recent_claims() const {
  std::uint64_t judged = 0, claimed = 0;
  for (const auto& j : recent_) {
    judged += j.judged;
    claimed += j.claimed;
  }
  return {judged, claimed};
}

void claim_book::encode(writer& w) const {
  // In place order: equal books encode to equal bytes.
  std::vector<std::uint64_t> places;
  places.reserve(claims_.size());
  for (const auto& [place, c] : claims_) places.push_back(place);
  std::sort(places.begin(), places.end());
  w.u64(places.size());
  for (auto place : places) {
    const auto& c = claims_.at(place);
    w.u64(place);
    w.raw(c.pass_id);
    w.i64(c.expires_ms);
    w.u8(static_cast<std::uint8_t>(c.live | c.done << 1));
  }
  w.u64(frontier_.size());
  for (const auto& [at, served] : frontier_) {
    w.i64(at);
    w.u64(served);
  }
  w.u64(recent_.size());
  for (const auto& j : recent_) {
    w.i64(j.at_ms);
    w.u64(j.judged);
    w.u64(j.claimed);
  }
  w.u64(judged_);
  w.u64(claimed_total_);
  w.u64(no_shows_);
  w.u64(ended_);
  std::vector<std::pair<std::uint64_t, std::int64_t>> told(notified_.begin(), notified_.end());
  std::sort(told.begin(), told.end());
  w.u64(told.size());
  for (const auto& [place, at] : told) {
    w.u64(place);
    w.i64(at);
  }
}

bool claim_book::decode(reader& r, bool with_notices) {
  claim_book b;
  auto count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto place = r.u64();
    pass_claim c{r.raw<16>(), r.i64()};
    auto flags = r.u8();
    c.live = (flags & 1) != 0;
    c.done = (flags & 2) != 0;
    b.claims_.emplace(place, c);
    b.by_pass_.emplace(c.pass_id, place);
    if (c.live) {
      b.live_.emplace(c.expires_ms, place);
    } else {
      b.kept_.emplace(c.expires_ms, place);
    }
  }
  count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto at = r.i64();
    b.frontier_.emplace_back(at, r.u64());
  }
  count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    judgment j;
    j.at_ms = r.i64();
    j.judged = r.u64();
    j.claimed = r.u64();
    b.recent_.push_back(j);
  }
  b.judged_ = r.u64();
  b.claimed_total_ = r.u64();
  b.no_shows_ = r.u64();
  b.ended_ = r.u64();
  count = with_notices ? r.u64() : 0;
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto place = r.u64();
    auto at = r.i64();
    b.notified_.emplace(place, at);
    if (place < b.judged_) b.waiting_.emplace(at, place);
  }
  if (r.failed()) return false;
  *this = std::move(b);
  return true;
}

}  // namespace foyer
