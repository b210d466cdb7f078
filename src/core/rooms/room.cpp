#include "core/rooms/room.hpp"

#include <algorithm>

#include "core/rooms/admission.hpp"
#include "core/base/codec.hpp"

namespace foyer {
namespace {

// How often an open room's frontier is made durable. The frontier itself is exact
// at any moment; this bounds how much unused capacity an empty queue keeps (a step
// clamps to the joined) and keeps every step well inside the elapsed cap.
constexpr std::int64_t checkpoint_every_ms = 1'000;
constexpr std::uint8_t state_format = 1;

}  // namespace

room::room(room_config config, const room_created& created)
    : config_(std::move(config)),
      seed_(created.seed),
      commitment_(lottery::commitment(created.seed)),
      created_at_ms_(created.at_ms),
      state_(config_.opens_at_ms ? room_state::lobby : room_state::open),
      tick_ms_(created.at_ms) {
  if (state_ == room_state::open) opened_at_ms_ = created.at_ms;
}

bool room::accepts_joins() const {
  return state_ != room_state::sold_out && state_ != room_state::closed;
}

std::optional<std::int64_t> room::lobby_closes_at_ms() const {
  if (closed_at_ms_) return closed_at_ms_;
  if (!config_.opens_at_ms) return std::nullopt;
  return *config_.opens_at_ms + std::int64_t{config_.lobby_window_seconds} * 1000;
}

join_outcome room::apply(const visitor_joined& e, std::vector<merkle::stored_node>& completed) {
  if (state_ == room_state::lobby) {
    std::uint64_t index = lobby_.size();
    auto nodes = lobby_.append(merkle::leaf_hash(e.entrant));
    completed.insert(completed.end(), nodes.begin(), nodes.end());
    ++joined_;
    return {std::nullopt, index};
  }
  return {joined_++, std::nullopt};
}

void room::apply(const visitors_admitted& e) {
  // A step the ticker decided while a stop was in flight: the stop wrote its own.
  if (state_ != room_state::open) return;
  served_ = std::clamp(e.served, served_, joined_);
  tick_ms_ = e.tick_ms;
  carry_ = e.carry;
}

void room::apply(const lobby_closed& e) {
  if (state_ != room_state::lobby) return;
  closed_at_ms_ = e.at_ms;
  lobby_root_ = lobby_.root();
  if (needs_beacon()) {
    state_ = room_state::drawing;
  } else {
    draw(e.at_ms);
  }
}

void room::apply(const beacon_supplied& e) {
  if (state_ != room_state::drawing) return;
  beacon_ = e.value;
  draw(e.at_ms);
}

void room::draw(std::int64_t at_ms) {
  derive_permutation();
  state_ = room_state::open;
  opened_at_ms_ = at_ms;
  tick_ms_ = at_ms;
  carry_ = 0;
}

void room::derive_permutation() {
  if (lobby_.size() == 0) return;
  auto key = lottery::derive_key(seed_, *lobby_root_, as_bytes(beacon_.value_or("")));
  permutation_.emplace(key, lobby_.size());
}

bool room::allows(room_state target) const {
  switch (target) {
    case room_state::paused: return state_ == room_state::open;
    case room_state::open: return state_ == room_state::paused;
    case room_state::sold_out: return state_ != room_state::closed && state_ != room_state::sold_out;
    case room_state::closed: return state_ != room_state::closed;
    case room_state::lobby:
    case room_state::drawing: return false;
  }
  return false;
}

void room::apply(const state_changed& e) {
  if (!allows(e.state)) return;
  // A resumed room starts its clock afresh: the pause is not admitted as a burst.
  if (e.state == room_state::open) {
    tick_ms_ = e.at_ms;
    carry_ = 0;
  }
  state_ = e.state;
}

std::optional<event> room::due(std::int64_t now_ms) const {
  if (state_ == room_state::lobby) {
    if (now_ms < *lobby_closes_at_ms()) return std::nullopt;
    return lobby_closed{config_.id, now_ms};
  }
  if (state_ != room_state::open || now_ms - tick_ms_ < checkpoint_every_ms) return std::nullopt;
  return checkpoint(now_ms);
}

visitors_admitted room::checkpoint(std::int64_t now_ms) const {
  auto step = admission_due(config_.rate_per_minute, tick_ms_, carry_, now_ms);
  return {config_.id, served_ + step.admit, step.tick_ms, step.carry};
}

std::uint64_t room::served(std::int64_t now_ms) const {
  if (state_ != room_state::open) return served_;
  if (holds_ > 0) now_ms = std::min(now_ms, hold_ms_);
  auto step = admission_due(config_.rate_per_minute, tick_ms_, carry_, now_ms);
  return std::min(served_ + step.admit, joined_);
}

void room::hold_admission(std::int64_t at_ms) {
  hold_ms_ = holds_++ == 0 ? at_ms : std::min(hold_ms_, at_ms);
}

void room::release_admission() { --holds_; }

std::optional<digest> room::revealed_seed() const {
  if (!opened_at_ms_ || !closed_at_ms_) return std::nullopt;
  return seed_;
}

std::optional<std::uint64_t> room::place_of(std::uint64_t lobby_index) const {
  if (!permutation_ || lobby_index >= permutation_->size()) return std::nullopt;
  return permutation_->place(lobby_index);
}

namespace {

void write_optional(writer& w, const std::optional<std::int64_t>& v) {
  w.u8(v.has_value());
  w.i64(v.value_or(0));
}

std::optional<std::int64_t> read_optional(reader& r) {
  bool present = r.u8() != 0;
  std::int64_t v = r.i64();
  return present ? std::optional(v) : std::nullopt;
}

}  // namespace

std::string room::encode_state() const {
  writer w;
  w.u8(state_format);
  w.raw(seed_);
  w.i64(created_at_ms_);
  w.u8(static_cast<std::uint8_t>(state_));
  w.u64(joined_);
  w.u64(served_);
  w.i64(tick_ms_);
  w.u64(carry_);
  w.str(lobby_.encode());
  write_optional(w, closed_at_ms_);
  write_optional(w, opened_at_ms_);
  w.u8(beacon_.has_value());
  w.str(beacon_.value_or(""));
  return w.take();
}

bool room::decode_state(std::string_view bytes) {
  reader r(bytes);
  if (r.u8() != state_format) return false;
  auto seed = r.raw<32>();
  auto created = r.i64();
  auto state = r.u8();
  auto joined = r.u64();
  auto served = r.u64();
  auto tick = r.i64();
  auto carry = r.u64();
  auto lobby = merkle::frontier::decode(r.str());
  auto closed = read_optional(r);
  auto opened = read_optional(r);
  bool has_beacon = r.u8() != 0;
  auto beacon = r.str();
  if (!r.done() || !lobby || state > static_cast<std::uint8_t>(room_state::closed) ||
      served > joined || seed != seed_) {
    return false;
  }
  created_at_ms_ = created;
  state_ = static_cast<room_state>(state);
  joined_ = joined;
  served_ = served;
  tick_ms_ = tick;
  carry_ = carry;
  lobby_ = std::move(*lobby);
  closed_at_ms_ = closed;
  opened_at_ms_ = opened;
  beacon_ = has_beacon ? std::optional(beacon) : std::nullopt;
  lobby_root_.reset();
  permutation_.reset();
  if (closed_at_ms_) lobby_root_ = lobby_.root();
  if (closed_at_ms_ && opened_at_ms_) derive_permutation();
  return true;
}

}  // namespace foyer
