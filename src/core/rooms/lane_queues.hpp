#pragma once
// A room's lanes as queues: each lane numbers its own places and keeps its own frontier,
// so a visitor's position is arithmetic in their lane (place − the lane's served), and
// its own passes' claims. A place names its lane in its top byte: the general lane's
// places are the plain numbers a room without lanes has always had.
//
// Single-threaded: owned by the room.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/codec.hpp"
#include "core/lanes/lane_place.hpp"
#include "core/lanes/lane_spec.hpp"
#include "core/rooms/claims.hpp"

namespace foyer {

inline constexpr std::size_t max_lane_ids = 255;  // lanes a room may ever have had

struct lane_queue {
  lane_config config;  // a lane no longer declared keeps its id, with a share of 0
  bool declared = true;
  std::uint64_t joined = 0;
  std::uint64_t served = 0;
  std::int64_t deficit = 0;  // lane_load::deficit
  claim_book claims;

  std::uint64_t waiting() const { return joined - served; }
};

class lane_queues {
 public:
  lane_queues();

  // The lanes `declared` put in force (lanes_in_force): a new id is a new lane, a lane
  // left out keeps its queue with no share. Any change starts the split afresh, so that
  // no lane bursts on credit earned under the old shares.
  void follow(const std::vector<lane_config>& declared);
  // Whether `declared` would give the room more lanes than it may ever have.
  bool too_many(const std::vector<lane_config>& declared) const;

  std::size_t size() const { return lanes_.size(); }
  const lane_queue& at(std::uint8_t lane) const { return lanes_[lane]; }
  std::optional<std::uint8_t> index_of(std::string_view id) const;
  // The joined and the served of every lane together: the room's.
  std::pair<std::uint64_t, std::uint64_t> totals() const;
  // The next place in the lane.
  std::uint64_t take_place(std::uint8_t lane);
  // Whether `place` was given.
  bool holds(std::uint64_t place) const;

  // `count` more admitted at `at_ms`, shared between the lanes (split_admissions).
  void admit(std::uint64_t count, std::int64_t at_ms);
  // `window_ms` is the room's claim window, for lanes without their own.
  void settle(std::int64_t at_ms, std::int64_t window_ms);
  // The share of the room's rate the lane is admitted at now, in millionths; for a lane
  // nobody waits in, the share its next visitor would have. Worked out when who waits
  // changes, not at each poll.
  std::uint64_t share_now(std::uint8_t lane) const { return lane < shares_now_.size() ? shares_now_[lane] : 0; }

  // claim_book's questions, by the room's places.
  bool claim(std::uint64_t place, const id16& pass_id, std::int64_t expires_ms);
  void finish(std::uint64_t place) { book(place).finish(place_in_lane(place)); }
  void report_done(std::uint64_t place);
  bool reported_done(std::uint64_t place) const { return book(place).reported_done(place_in_lane(place)); }
  bool usable(std::uint64_t place, std::int64_t now_ms) const { return book(place).usable(place_in_lane(place), now_ms); }
  std::optional<std::int64_t> live_until(std::uint64_t place, std::int64_t now_ms) const {
    return book(place).live_until(place_in_lane(place), now_ms);
  }
  bool claimed(std::uint64_t place) const { return book(place).claimed(place_in_lane(place)); }
  bool lapsed(std::uint64_t place, std::int64_t now_ms, std::int64_t window_ms) const {
    return book(place).lapsed(place_in_lane(place), now_ms, window_of(lane_of(place), window_ms));
  }
  bool told(std::uint64_t place) const { return book(place).told(place_in_lane(place)); }
  void notified(std::uint64_t place, std::int64_t at_ms, std::int64_t window_ms) {
    book(place).notified(place_in_lane(place), at_ms, window_of(lane_of(place), window_ms));
  }
  std::optional<std::uint64_t> place_of_pass(const id16& pass_id) const;
  std::uint64_t active(std::int64_t now_ms) const;
  std::uint64_t freed(std::int64_t now_ms) const;
  std::uint64_t claimed_total() const;
  std::uint64_t no_shows() const;
  // The share of recently judged admissions that were claimed; none before any.
  std::optional<double> claim_ratio() const;

  void encode(writer& w) const;
  // `with_notices`: claim_book::decode's.
  bool decode(reader& r, bool with_notices);
  // A state from before lanes: one general lane with these counts and claims.
  void restore_general(std::uint64_t joined, std::uint64_t served, claim_book claims);

 private:
  // The lane's claim window, or the room's.
  std::int64_t window_of(std::uint8_t lane, std::int64_t room_window_ms) const;
  void reweigh();
  const claim_book& book(std::uint64_t place) const;
  claim_book& book(std::uint64_t place);

  std::vector<lane_queue> lanes_;
  std::vector<std::uint64_t> shares_now_;
  // A place in no lane asks this empty book.
  claim_book none_;
};

}  // namespace foyer
