#include "core/rooms/journal.hpp"

#include <stdexcept>
#include <utility>

#include <fmt/core.h>

#include "core/base/codec.hpp"

namespace foyer {
namespace {

constexpr std::uint8_t snapshot_format = 1;

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace

journal::journal(event_store& store, journal_options options) : store_(store), options_(options) {}

std::string journal::lobby_node_key(std::string_view room, unsigned level, std::uint64_t index) {
  writer w;
  w.u8('m');
  w.str(room);
  w.u8(static_cast<std::uint8_t>(level));
  w.u64(index);
  return w.take();
}

std::string journal::lobby_leaf_key(std::string_view room, std::uint64_t index) {
  writer w;
  w.u8('l');
  w.str(room);
  w.u64(index);
  return w.take();
}

std::string journal::account_key(std::string_view room, const id16& account) {
  writer w;
  w.u8('a');
  w.str(room);
  w.raw(account);
  return w.take();
}

namespace {
constexpr std::uint64_t none = ~std::uint64_t{0};
}  // namespace

std::string joined_entry::encode() const {
  writer w;
  w.raw(visitor);
  w.raw(entrant);
  w.i64(at_ms);
  w.u64(outcome.place.value_or(none));
  w.u64(outcome.lobby_index.value_or(none));
  return w.take();
}

std::optional<joined_entry> joined_entry::decode(std::string_view bytes) {
  reader r(bytes);
  joined_entry e;
  e.visitor = r.raw<16>();
  e.entrant = r.raw<16>();
  e.at_ms = r.i64();
  auto place = r.u64();
  auto lobby_index = r.u64();
  if (!r.done()) return std::nullopt;
  if (place != none) e.outcome.place = place;
  if (lobby_index != none) e.outcome.lobby_index = lobby_index;
  return e;
}

room_config journal::config_for(std::string_view id) const {
  if (auto it = configured_.find(id); it != configured_.end()) return it->second;
  room_config unlisted;
  unlisted.id = id;
  return unlisted;
}

const room* journal::find(std::string_view id) const {
  if (!configured_.contains(id)) return nullptr;
  auto it = rooms_.find(id);
  return it == rooms_.end() ? nullptr : &it->second;
}

room* journal::find(std::string_view id) {
  return const_cast<room*>(std::as_const(*this).find(id));
}

std::vector<room_config> journal::missing_rooms() const {
  std::vector<room_config> missing;
  for (const auto& [id, config] : configured_) {
    if (!rooms_.contains(id)) missing.push_back(config);
  }
  return missing;
}

void journal::recover(const recovered_log& log, const std::vector<room_config>& configured) {
  for (const auto& config : configured) configured_.emplace(config.id, config);
  if (log.snapshot) decode_snapshot(*log.snapshot);
  applied_seq_ = log.snapshot_seq;
  for (const auto& bytes : log.events) {
    auto e = decode_event(bytes);
    if (!e) throw std::runtime_error(fmt::format("event {} in the log is not readable", applied_seq_ + 1));
    apply(*e);
    ++applied_seq_;
  }
  since_snapshot_ = log.events.size();
  for (auto& [id, r] : rooms_) {
    if (auto it = configured_.find(id); it != configured_.end()) r.reconfigure(it->second);
  }
}

void journal::submit(event e, applied_handler done) {
  // A room that stops admitting first makes its frontier at that moment durable, in
  // the same write, and holds it there meanwhile: what visitors saw admitted stays.
  std::optional<event> frontier;
  room* held = nullptr;
  if (const auto* change = std::get_if<state_changed>(&e)) {
    if (auto it = rooms_.find(change->room); it != rooms_.end() && it->second.state() == room_state::open) {
      held = &it->second;
      frontier = held->checkpoint(change->at_ms);
      held->hold_admission(change->at_ms);
    }
  }
  std::vector<std::string> events;
  if (frontier) events.push_back(encode(*frontier));
  events.push_back(encode(e));
  const std::size_t count = events.size();
  auto side = std::exchange(pending_side_, {});
  store_.append(std::move(events), side,
                [this, frontier = std::move(frontier), e = std::move(e), count, held, side, done = std::move(done)](
                    std::error_code ec, std::uint64_t seq) {
                  if (held) held->release_admission();
                  if (ec) {
                    requeue(side);
                    done(ec, {});
                    return;
                  }
                  if (frontier) apply(*frontier);
                  auto outcome = apply(e);
                  applied_seq_ = seq + count - 1;
                  // An account's entry must be readable by the next join with that
                  // account, which may come at once: write it now.
                  if (const auto* j = std::get_if<visitor_joined>(&e); j && j->account) flush_side_records();
                  since_snapshot_ += count;
                  if (since_snapshot_ >= options_.snapshot_every && !snapshot_in_flight_) snapshot();
                  done({}, outcome);
                });
}

void journal::requeue(const std::vector<side_record>& side) {
  ++side_failures_;
  pending_side_.insert(pending_side_.end(), side.begin(), side.end());
}

join_outcome journal::apply(const event& e) {
  return std::visit(
      overloaded{
          [&](const room_created& c) -> join_outcome {
            rooms_.try_emplace(c.room, config_for(c.room), c);
            return {};
          },
          [&](const visitor_joined& j) -> join_outcome {
            auto it = rooms_.find(j.room);
            if (it == rooms_.end()) return {};
            std::vector<merkle::stored_node> nodes;
            auto outcome = it->second.apply(j, nodes);
            if (outcome.lobby_index) {
              pending_side_.push_back({lobby_leaf_key(j.room, *outcome.lobby_index),
                                       std::string(as_chars(j.entrant))});
            }
            for (const auto& n : nodes) {
              if (n.level == 0) continue;  // leaves are stored as entrant ids
              pending_side_.push_back(
                  {lobby_node_key(j.room, n.level, n.index), std::string(as_chars(n.hash))});
            }
            if (j.account) {
              pending_side_.push_back(
                  {account_key(j.room, *j.account), joined_entry{j.visitor, j.entrant, j.at_ms, outcome}.encode()});
            }
            return outcome;
          },
          [&](const auto& other) -> join_outcome {
            if (auto it = rooms_.find(other.room); it != rooms_.end()) it->second.apply(other);
            return {};
          },
      },
      e);
}

void journal::flush_side_records() {
  auto side = std::exchange(pending_side_, {});
  store_.append({}, side, [this, side](std::error_code ec, std::uint64_t) {
    if (ec) requeue(side);
  });
}

void journal::snapshot() {
  // Encoded now, at applied_seq_, but saved only once every side record up to here
  // is durable: no write of side records failed in between. Otherwise replay from
  // this snapshot would never regenerate the lost ones.
  snapshot_in_flight_ = true;
  since_snapshot_ = 0;
  auto side = std::exchange(pending_side_, {});
  store_.append({}, side,
                [this, seq = applied_seq_, failures = side_failures_, state = encode_snapshot(), side](
                    std::error_code ec, std::uint64_t) mutable {
                  if (ec) requeue(side);
                  if (ec || failures != side_failures_) {
                    snapshot_in_flight_ = false;
                    return;
                  }
                  store_.save_snapshot(seq, std::move(state),
                                       [this](std::error_code) { snapshot_in_flight_ = false; });
                });
}

std::string journal::encode_snapshot() const {
  writer w;
  w.u8(snapshot_format);
  w.u64(rooms_.size());
  for (const auto& [id, r] : rooms_) {
    w.str(id);
    w.str(r.encode_state());
  }
  return w.take();
}

void journal::decode_snapshot(const std::string& bytes) {
  reader r(bytes);
  if (r.u8() != snapshot_format) throw std::runtime_error("the snapshot has an unknown format");
  auto count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto id = r.str();
    auto state = r.str();
    // The seed is the first field after the format byte: the room is made from it,
    // then takes the rest of its state.
    reader seed_reader(state);
    seed_reader.u8();
    room_created created{id, seed_reader.raw<32>(), 0};
    auto [pos, inserted] = rooms_.try_emplace(id, config_for(id), created);
    if (seed_reader.failed() || !pos->second.decode_state(state)) {
      throw std::runtime_error(fmt::format("the snapshot's state of room '{}' is not readable", id));
    }
  }
  if (!r.done()) throw std::runtime_error("the snapshot is truncated or has trailing bytes");
}

}  // namespace foyer
