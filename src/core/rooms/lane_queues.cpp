#include "core/rooms/lane_queues.hpp"

#include <algorithm>

#include "core/lanes/lane_split.hpp"

namespace foyer {
namespace {

std::vector<lane_load> loads(const std::vector<lane_queue>& lanes) {
  std::vector<lane_load> out;
  out.reserve(lanes.size());
  for (const auto& l : lanes) out.push_back({l.config.share, l.config.priority, l.waiting(), l.deficit});
  return out;
}

}  // namespace

lane_queues::lane_queues() { follow({}); }

bool lane_queues::too_many(const std::vector<lane_config>& declared) const {
  auto added = std::count_if(declared.begin(), declared.end(), [&](const auto& l) { return !index_of(l.id); });
  return lanes_.size() + static_cast<std::size_t>(added) > max_lane_ids;
}

void lane_queues::follow(const std::vector<lane_config>& declared) {
  auto in_force = lanes_in_force(declared);
  for (auto& lane : lanes_) {
    lane.declared = false;
    lane.config.share = 0;
    lane.config.priority = false;
    lane.deficit = 0;
  }
  for (auto& config : in_force) {
    auto index = index_of(config.id);
    if (!index) {
      if (lanes_.size() >= max_lane_ids) continue;
      lanes_.emplace_back();
      index = static_cast<std::uint8_t>(lanes_.size() - 1);
    }
    lanes_[*index].config = std::move(config);
    lanes_[*index].declared = true;
  }
  reweigh();
}

std::optional<std::uint8_t> lane_queues::index_of(std::string_view id) const {
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].config.id == id) return static_cast<std::uint8_t>(i);
  }
  return std::nullopt;
}

std::pair<std::uint64_t, std::uint64_t> lane_queues::totals() const {
  std::uint64_t joined = 0, served = 0;
  for (const auto& l : lanes_) {
    joined += l.joined;
    served += l.served;
  }
  return {joined, served};
}

bool lane_queues::holds(std::uint64_t place) const {
  return lane_of(place) < lanes_.size() && place_in_lane(place) < lanes_[lane_of(place)].joined;
}

void lane_queues::admit(std::uint64_t count, std::int64_t at_ms) {
  if (count > 0) {
    auto load = loads(lanes_);
    auto given = split_admissions(load, count);
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
      lanes_[i].served += given[i];
      lanes_[i].deficit = load[i].deficit;
    }
  }
  for (auto& lane : lanes_) lane.claims.record_frontier(at_ms, lane.served);
  reweigh();
}

void lane_queues::settle(std::int64_t at_ms, std::int64_t window_ms) {
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    lanes_[i].claims.settle(at_ms, window_of(static_cast<std::uint8_t>(i), window_ms));
  }
}

std::int64_t lane_queues::window_of(std::uint8_t lane, std::int64_t room_window_ms) const {
  auto own = lane < lanes_.size() ? lanes_[lane].config.claim_window_seconds : 0;
  return own > 0 ? std::int64_t{own} * 1000 : room_window_ms;
}

void lane_queues::reweigh() {
  auto load = loads(lanes_);
  shares_now_.assign(lanes_.size(), 0);
  for (std::size_t lane = 0; lane < lanes_.size(); ++lane) {
    auto asked = load;
    if (asked[lane].waiting == 0) asked[lane].waiting = 1;
    auto weights = lane_weights(asked);
    std::uint64_t total = 0;
    for (auto w : weights) total += w;
    shares_now_[lane] = total == 0 ? 0 : weights[lane] * share_scale / total;
  }
}

std::uint64_t lane_queues::take_place(std::uint8_t lane) {
  auto place = lane_place(lane, lanes_[lane].joined++);
  // A lane that had nobody waiting shares admission from here.
  if (lanes_[lane].waiting() == 1) reweigh();
  return place;
}

const claim_book& lane_queues::book(std::uint64_t place) const {
  return lane_of(place) < lanes_.size() ? lanes_[lane_of(place)].claims : none_;
}

claim_book& lane_queues::book(std::uint64_t place) {
  return lane_of(place) < lanes_.size() ? lanes_[lane_of(place)].claims : none_;
}

bool lane_queues::claim(std::uint64_t place, const id16& pass_id, std::int64_t expires_ms) {
  return holds(place) && book(place).claim(place_in_lane(place), pass_id, expires_ms);
}

void lane_queues::report_done(std::uint64_t place) {
  if (holds(place)) book(place).report_done(place_in_lane(place));
}

std::optional<std::uint64_t> lane_queues::place_of_pass(const id16& pass_id) const {
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    if (auto n = lanes_[i].claims.place_of_pass(pass_id)) return lane_place(static_cast<std::uint8_t>(i), *n);
  }
  return std::nullopt;
}

std::uint64_t lane_queues::active(std::int64_t now_ms) const {
  std::uint64_t n = 0;
  for (const auto& l : lanes_) n += l.claims.active(now_ms);
  return n;
}

std::uint64_t lane_queues::freed(std::int64_t now_ms) const {
  std::uint64_t n = 0;
  for (const auto& l : lanes_) n += l.claims.freed(now_ms);
  return n;
}

std::uint64_t lane_queues::claimed_total() const {
  std::uint64_t n = 0;
  for (const auto& l : lanes_) n += l.claims.claimed_total();
  return n;
}

std::uint64_t lane_queues::no_shows() const {
  std::uint64_t n = 0;
  for (const auto& l : lanes_) n += l.claims.no_shows();
  return n;
}

std::optional<double> lane_queues::claim_ratio() const {
  std::uint64_t judged = 0, claimed = 0;
  for (const auto& l : lanes_) {
    auto [j, c] = l.claims.recent_claims();
    judged += j;
    claimed += c;
  }
  if (judged == 0) return std::nullopt;
  return static_cast<double>(claimed) / static_cast<double>(judged);
}

void lane_queues::encode(writer& w) const {
  w.u32(static_cast<std::uint32_t>(lanes_.size()));
  for (const auto& l : lanes_) {
    w.str(l.config.id);
    w.str(l.config.name);
    w.u32(l.config.share);
    w.u8(l.config.priority);
    w.u8(static_cast<std::uint8_t>(l.config.entry));
    w.u32(l.config.claim_window_seconds);
    w.u8(l.declared);
    w.u64(l.joined);
    w.u64(l.served);
    w.i64(l.deficit);
    l.claims.encode(w);
  }
}

bool lane_queues::decode(reader& r, bool with_notices) {
  auto count = r.u32();
  if (count == 0 || count > max_lane_ids) return false;
  std::vector<lane_queue> lanes(count);
  for (auto& l : lanes) {
    l.config.id = r.str();
    l.config.name = r.str();
    l.config.share = r.u32();
    l.config.priority = r.u8() != 0;
    auto entry = r.u8();
    if (entry > static_cast<std::uint8_t>(lane_entry::no_script)) return false;
    l.config.entry = static_cast<lane_entry>(entry);
    l.config.claim_window_seconds = r.u32();
    l.declared = r.u8() != 0;
    l.joined = r.u64();
    l.served = r.u64();
    l.deficit = r.i64();
    if (r.failed() || l.served > l.joined || !l.claims.decode(r, with_notices)) return false;
  }
  lanes_ = std::move(lanes);
  reweigh();
  return true;
}

void lane_queues::restore_general(std::uint64_t joined, std::uint64_t served, claim_book claims) {
  lanes_.resize(1);
  lanes_[0].joined = joined;
  lanes_[0].served = served;
  lanes_[0].claims = std::move(claims);
  reweigh();
}

}  // namespace foyer
