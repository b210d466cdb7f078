#pragma once
// Admitted visitors and their passes: which passes were claimed and are live, and the
// admitted visitors who never came for theirs (no-shows). It changes only as events are
// applied, at the events' times, so replay rebuilds it exactly; what a poll or the
// ticker reads between events is arithmetic on it and the clock.

#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/base/codec.hpp"
#include "core/base/ids.hpp"
#include "core/rooms/event.hpp"

namespace foyer {

class claim_book {
 public:
  // The durable frontier: `served` visitors admitted by `at_ms`. A visitor's claim
  // window runs from the step that admitted them.
  void record_frontier(std::int64_t at_ms, std::uint64_t served);
  // Judges the admissions whose claim window closed by `at_ms`: each was claimed or is
  // a no-show. Live passes expired by then stop counting.
  void settle(std::int64_t at_ms, std::int64_t window_ms);
  // The visitor at `place` was told "it's your turn" at `at_ms`: their claim window runs
  // from then, not from the step that admitted them, so a visitor who stepped away has
  // the whole window once the notice goes out. Nothing for a place already judged or
  // claimed: a notice never revives a lapsed visitor.
  void notified(std::uint64_t place, std::int64_t at_ms, std::int64_t window_ms);
  // Told, and not judged yet.
  bool told(std::uint64_t place) const { return notified_.contains(place); }

  // A pass claimed at `at_ms`, live until `expires_ms`. False if the visitor's window
  // was already judged without a claim (then they are a no-show) or they claimed before.
  bool claim(std::uint64_t place, const id16& pass_id, std::int64_t expires_ms);
  // The visitor's slot ends early: a hold took it over. A pass not live is left as it is.
  void finish(std::uint64_t place);
  // The site reports the pass finished: its slot ends, and the pass is refused from here
  // until it expires, whatever took its slot before.
  void report_done(std::uint64_t place);
  bool reported_done(std::uint64_t place) const;
  // Claimed, not reported done, not expired at `now`: live, or its slot taken by a hold.
  bool usable(std::uint64_t place, std::int64_t now_ms) const;

  // When the visitor's live pass expires, if they hold one at `now`.
  std::optional<std::int64_t> live_until(std::uint64_t place, std::int64_t now_ms) const;
  // Whether the visitor claimed a pass at some time, live or not.
  bool claimed(std::uint64_t place) const { return claims_.contains(place); }
  // Admitted without a claim, and their claim window closed: they may no longer claim.
  bool lapsed(std::uint64_t place, std::int64_t now_ms, std::int64_t window_ms) const;
  std::optional<std::uint64_t> place_of_pass(const id16& pass_id) const;

  std::uint64_t active(std::int64_t now_ms) const;
  // Admitted visitors who hold no slot any more: their pass ended, or they never came.
  std::uint64_t freed(std::int64_t now_ms) const;
  std::uint64_t claimed_total() const { return claimed_total_; }
  std::uint64_t no_shows() const { return no_shows_; }
  // The admissions judged recently, and how many of them were claimed: their ratio is
  // the claim ratio (lane_queues::claim_ratio).
  std::pair<std::uint64_t, std::uint64_t> recent_claims() const;

  void encode(writer& w) const;
  // `with_notices`: the bytes end with the notified places (room state format 11 on).
  bool decode(reader& r, bool with_notices);

 private:
  struct pass_claim {
    id16 pass_id{};
    std::int64_t expires_ms = 0;
    bool live = true;
    bool done = false;  // reported done by the site
  };
  struct judgment {
    std::int64_t at_ms = 0;
    std::uint64_t judged = 0;
    std::uint64_t claimed = 0;
  };
  std::uint64_t served_at(std::int64_t at_ms) const;
  void end(std::uint64_t place, pass_claim& c);
  bool judged(std::uint64_t place) const { return place < judged_ && !notified_.contains(place); }
  // Judges a place whose window closed at `at_ms`: one more claimed, or one more no-show.
  void judge(std::uint64_t place, judgment& j);

  std::unordered_map<std::uint64_t, pass_claim> claims_;  // by place, until judged and expired
  std::unordered_map<id16, std::uint64_t, id16_hash> by_pass_;
  std::set<std::pair<std::int64_t, std::uint64_t>> live_;  // (expires, place)
  // (expires, place) of claims no longer live (a hold took the slot, or the site reported
  // the pass done): kept until the pass expires, and judged.
  std::set<std::pair<std::int64_t, std::uint64_t>> kept_;
  std::deque<std::pair<std::int64_t, std::uint64_t>> frontier_;  // (at, served), oldest first
  std::deque<judgment> recent_;
  // Told "it's your turn", not judged yet: place -> when the notice went out. Those
  // below judged_ wait for their own window; `waiting_` orders them by its start.
  std::unordered_map<std::uint64_t, std::int64_t> notified_;
  std::set<std::pair<std::int64_t, std::uint64_t>> waiting_;
  std::uint64_t judged_ = 0;  // every place below was judged (claimed or no-show), but those notified_
  std::uint64_t claimed_total_ = 0;
  std::uint64_t no_shows_ = 0;
  std::uint64_t ended_ = 0;  // claimed passes that expired or were reported done
};

}  // namespace foyer
