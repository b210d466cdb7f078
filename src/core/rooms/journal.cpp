#include "core/rooms/journal.hpp"

#include <stdexcept>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>

#include "core/base/codec.hpp"

namespace foyer {
namespace {

// 1: the rooms; 2: and the ids of removed rooms; 3: and the removed rooms whose holds
// are still answered, each with until when; 4: and the public ledger.
constexpr std::uint8_t legacy_snapshot_format = 1;
constexpr std::uint8_t retired_ids_snapshot_format = 2;
constexpr std::uint8_t answering_snapshot_format = 3;
constexpr std::uint8_t snapshot_format = 4;

// A side record of a room: its kind, the room, a number.
std::string room_record_key(char kind, std::string_view room, std::uint64_t n) {
  writer w;
  w.u8(static_cast<std::uint8_t>(kind));
  w.str(room);
  w.u64(n);
  return w.take();
}

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

// When the event happened, on the log's clock.
std::int64_t at_ms_of(const event& e) {
  return std::visit(overloaded{[](const visitors_admitted& a) { return a.tick_ms; },
                               [](const auto& any) { return any.at_ms; }},
                    e);
}

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
  return room_record_key('l', room, index);
}

std::string journal::hold_outcome_key(std::string_view room, std::uint64_t seq) {
  return room_record_key('o', room, seq);
}

std::optional<hold_outcome> journal::read_hold_outcome(const std::optional<std::string>& value) {
  if (!value || value->size() != 1) return std::nullopt;
  auto byte = static_cast<std::uint8_t>((*value)[0]);
  if (byte > static_cast<std::uint8_t>(last_hold_outcome)) return std::nullopt;
  return static_cast<hold_outcome>(byte);
}

room_config journal::config_for(std::string_view id) const {
  if (auto it = legacy_.find(id); it != legacy_.end()) return it->second;
  room_config unlisted;
  unlisted.id = id;
  unlisted.name = id;
  return unlisted;
}

const room* journal::find(std::string_view id) const {
  loop_.check();  // every handler reaches a room through here
  auto it = rooms_.find(id);
  return it == rooms_.end() ? nullptr : &it->second;
}

room* journal::find(std::string_view id) {
  return const_cast<room*>(std::as_const(*this).find(id));
}

const room* journal::find_for_holds(std::string_view id, std::int64_t now_ms) const {
  if (const room* live = find(id)) return live;
  auto until = retired_until_.find(id);
  if (until == retired_until_.end() || now_ms > until->second) return nullptr;
  return &retired_seats_.find(id)->second;
}

room* journal::holds_room(std::string_view id, std::int64_t now_ms) {
  return const_cast<room*>(std::as_const(*this).find_for_holds(id, now_ms));
}

void journal::retire(std::map<std::string, room, std::less<>>::iterator it, std::int64_t at_ms) {
  retired_.insert(it->first);
  const auto& settings = it->second.seats().settings();
  if (settings) {
    it->second.retire(at_ms);
    retired_until_.insert_or_assign(it->first, at_ms + std::int64_t{settings->late_grace_seconds} * 1000);
    retired_seats_.insert_or_assign(it->first, std::move(it->second));
  }
  rooms_.erase(it);
}

void journal::forget_retired(std::int64_t now_ms) {
  for (auto it = retired_until_.begin(); it != retired_until_.end();) {
    if (now_ms <= it->second) {
      ++it;
      continue;
    }
    retired_seats_.erase(it->first);
    it = retired_until_.erase(it);
  }
}

std::int64_t journal::latest_ms() const {
  std::int64_t latest = 0;
  for (const auto& [id, r] : rooms_) latest = std::max(latest, r.tick_ms());
  return latest;
}

void journal::recover(const recovered_log& log, const std::vector<room_config>& legacy) {
  loop_.check();
  for (const auto& config : legacy) legacy_.emplace(config.id, config);
  if (log.snapshot) decode_snapshot(*log.snapshot);
  applied_seq_ = log.snapshot_seq;
  replay(log.events);
  lead();
}

void journal::replay(const std::vector<std::string>& events) {
  for (const auto& bytes : events) {
    auto e = decode_event(bytes);
    if (!e) throw std::runtime_error(fmt::format("event {} in the log is not readable", applied_seq_ + 1));
    apply(*e, ++applied_seq_);
  }
  since_snapshot_ += events.size();
}

void journal::follow(const std::vector<std::string>& events, const std::vector<side_record>& written) {
  loop_.check();
  replay(events);
  if (written.empty() || pending_side_.empty()) return;
  std::unordered_set<std::string_view> keys;
  for (const auto& w : written) keys.insert(w.key);
  std::erase_if(pending_side_, [&](const side_record& s) { return keys.contains(s.key); });
}

void journal::lead() {
  loop_.check();
  // The side records replay made again (a crash may have lost their write) are written
  // first, so that no read, an audit's or a proof's, comes before them.
  if (!pending_side_.empty()) write_side();
}

std::optional<visitors_admitted> journal::frontier_before(const event& e) const {
  std::int64_t at_ms = 0;
  bool seats_only = false;
  if (const auto* change = std::get_if<state_changed>(&e)) {
    at_ms = change->at_ms;
  } else if (const auto* configured = std::get_if<room_configured>(&e)) {
    at_ms = configured->at_ms;
  } else if (const auto* rate = std::get_if<rate_changed>(&e)) {
    at_ms = rate->at_ms;
  } else if (const auto* stock = std::get_if<stock_reported>(&e)) {
    // A report may sell the room out, and so may a confirmation of the last seats held.
    at_ms = stock->at_ms;
  } else if (const auto* confirmed = std::get_if<hold_confirmed>(&e)) {
    at_ms = confirmed->at_ms;
  } else if (const auto* placed = std::get_if<hold_placed>(&e)) {
    // A hold takes its seats and frees one slot, a recount may find fewer seats: the
    // seats' cap may fall below the frontier visitors were shown since the last step.
    at_ms = placed->at_ms;
    seats_only = true;
  } else if (const auto* recount = std::get_if<seats_recounted>(&e)) {
    at_ms = recount->at_ms;
    seats_only = true;
  } else {
    return std::nullopt;
  }
  const room* r = find(room_of(e));
  if (!r || r->state() != room_state::open) return std::nullopt;
  // A seats' change writes a step only when the frontier moved since the last one.
  if (seats_only && r->served(at_ms) == r->durable_served()) return std::nullopt;
  return r->checkpoint(at_ms);
}

void journal::submit(event e, applied_handler done) {
  std::vector<event> events;
  events.push_back(std::move(e));
  submit(std::move(events), std::move(done));
}

void journal::submit(std::vector<event> events, applied_handler done) {
  loop_.check();
  // Kept until the store completes it: the store completes writes in call order, so the
  // oldest submit in flight is the one that completes next, and the store's handler
  // need carry nothing but `this`.
  in_flight& f = in_flight_.emplace_back();
  f.done = std::move(done);
  // A room that stops admitting or changes its rate first makes its frontier at that
  // moment durable, in the same write, and holds it there meanwhile: what visitors saw
  // admitted stays, and the new rate counts from then.
  for (std::size_t i = 0; i < events.size(); ++i) {
    event& e = events[i];
    if (auto frontier = frontier_before(e)) {
      find(frontier->room)->hold_admission(frontier->tick_ms);
      f.held.push_back(frontier->room);
      events.insert(events.begin() + static_cast<std::ptrdiff_t>(i), std::move(*frontier));
      ++i;
    }
    event& written = events[i];
    if (auto* closed = std::get_if<lobby_closed>(&written)) closed->awaits_witnesses = witnesses_required_;
    if (std::holds_alternative<room_configured>(written) || std::holds_alternative<room_removed>(written)) {
      f.configuring.push_back(room_of(written));
      configuring_.insert(room_of(written));
    }
  }
  encoded_events encoded;
  encoded.reserve(events.size());
  for (const auto& e : events) encoded.push_back(encode(e));
  f.written = std::move(events);
  f.side = std::exchange(pending_side_, {});
  store_.append(std::move(encoded), f.side, [this](std::error_code ec, std::uint64_t seq) { finish_submit(ec, seq); });
}

void journal::finish_submit(std::error_code ec, std::uint64_t seq) {
  loop_.check();
  in_flight f = std::move(in_flight_.front());
  in_flight_.pop_front();
  // Found again by id: a room may be removed by the time this runs.
  for (const auto& id : f.held) {
    if (room* r = find(id)) r->release_admission();
  }
  for (const auto& id : f.configuring) configuring_.erase(configuring_.find(id));
  if (ec) {
    requeue(f.side);
    f.done(ec, {});
    return;
  }
  applied last;
  bool any_hold = false;
  for (std::size_t i = 0; i < f.written.size(); ++i) {
    last = apply(f.written[i], seq + i);
    any_hold = any_hold || last.hold;
    if (observer_) observer_(seq + i, f.written[i], {last.hold, std::move(last.admitted), find(room_of(f.written[i]))});
  }
  applied_seq_ = seq + f.written.size() - 1;
  since_snapshot_ += f.written.size();
  if (since_snapshot_ >= options_.snapshot_every && !snapshot_in_flight_) {
    snapshot();
  } else if (any_hold) {
    // Hold outcomes are few and the audit trail reads them at once: they do
    // not wait for the next event to carry them.
    write_side();
  }
  f.done({}, last.join);
}

void journal::write_side() {
  auto side = std::exchange(pending_side_, {});
  store_.append({}, side, [this, side](std::error_code ec, std::uint64_t) {
    loop_.check();
    if (ec) requeue(side);
  });
}

void journal::requeue(const std::vector<side_record>& side) {
  ++side_failures_;
  pending_side_.insert(pending_side_.end(), side.begin(), side.end());
}

std::optional<std::uint64_t> journal::account_seats(const room& r, const id16& visitor) const {
  const auto& settings = r.seats().settings();
  if (!settings || !settings->max_seats_per_account || r.config().event.empty()) return std::nullopt;
  auto account = r.account_of(visitor);
  if (!account) return std::nullopt;
  // The rooms of one event know an account by one digest (account_scope). A removed
  // room's seats no longer count: its holds were refunded, its confirmations are done.
  std::uint64_t elsewhere = 0;
  for (const auto& [id, other] : rooms_) {
    if (&other == &r || other.config().event != r.config().event) continue;
    if (const auto* entry = other.account_entry(*account)) elsewhere += other.seats().seats_of(entry->visitor);
  }
  std::uint64_t cap = *settings->max_seats_per_account;
  return cap > elsewhere ? cap - elsewhere : 0;
}

journal::applied journal::apply(const event& e, std::uint64_t seq) {
  // On the log's own clock, so that replay forgets the same rooms at the same event.
  if (!retired_until_.empty()) forget_retired(at_ms_of(e));
  return std::visit(
      overloaded{
          [&](const room_created& c) -> applied {
            if (!retired_.contains(c.room)) rooms_.try_emplace(c.room, config_for(c.room), c);
            return {};
          },
          [&](const room_removed& removed) -> applied {
            if (auto it = rooms_.find(removed.room); it != rooms_.end()) retire(it, removed.at_ms);
            return {};
          },
          [&](const visitor_joined& j) -> applied {
            auto it = rooms_.find(j.room);
            if (it == rooms_.end()) return {};
            std::vector<merkle::stored_node> nodes;
            auto outcome = it->second.apply(j, nodes);
            if (outcome.lobby_index) {
              pending_side_.push_back({lobby_leaf_key(j.room, *outcome.lobby_index),
                                       std::string(as_chars(j.entrant))});
            }
            // A lane's tree is kept under its lane's indexes, as its leaves are.
            for (const auto& n : nodes) {
              if (n.level == 0) continue;  // leaves are stored as entrant ids
              pending_side_.push_back(
                  {lobby_node_key(j.room, n.level, lane_place(j.lane, n.index)), std::string(as_chars(n.hash))});
            }
            return {outcome, std::nullopt, {}};
          },
          [&](const auto& other) -> applied {
            if constexpr (std::is_same_v<decltype(std::declval<room&>().apply(other)), hold_outcome>) {
              room* r = holds_room(other.room, other.at_ms);
              if (!r) return {};
              hold_outcome outcome{};
              if constexpr (std::is_same_v<std::decay_t<decltype(other)>, hold_placed>) {
                outcome = r->apply(other, account_seats(*r, other.visitor));
              } else if constexpr (std::is_same_v<std::decay_t<decltype(other)>, hold_confirmed>) {
                const hold* h = r->seats().find(other.hold);
                outcome = r->apply(other, h ? account_seats(*r, h->visitor) : std::nullopt);
              } else {
                outcome = r->apply(other);
              }
              pending_side_.push_back(
                  {hold_outcome_key(other.room, seq), std::string(1, static_cast<char>(outcome))});
              return {{}, outcome, {}};
            } else {
              auto it = rooms_.find(other.room);
              if (it == rooms_.end()) return {};
              auto before = progress_of(it->second);
              if constexpr (std::is_same_v<std::decay_t<decltype(other)>, visitors_admitted>) {
                // What a step admitted is what the room did with it: it never passes the joined.
                auto served = served_by_lane(it->second);
                it->second.apply(other);
                record_draw(before, it->second, e);
                auto admitted = served_by_lane(it->second);
                for (std::size_t lane = 0; lane < admitted.size(); ++lane) {
                  admitted[lane] -= lane < served.size() ? served[lane] : 0;
                }
                return {{}, std::nullopt, std::move(admitted)};
              } else {
                it->second.apply(other);
                record_draw(before, it->second, e);
                return {};
              }
            }
          },
      },
      e);
}

std::vector<std::uint64_t> journal::served_by_lane(const room& r) {
  std::vector<std::uint64_t> served;
  for (std::uint8_t lane = 0; lane < r.lanes().size(); ++lane) served.push_back(r.lanes().at(lane).served);
  return served;
}

journal::draw_progress journal::progress_of(const room& r) {
  return {r.committed(),
          r.closed_at_ms().has_value(),
          r.revealed_seed().has_value(),
          r.witnessed(ledger::stage::commit),
          r.witnessed(ledger::stage::close),
          r.draw_lanes()};
}

void journal::record_draw(const draw_progress& before, const room& r, const event& e) {
  const std::string& id = r.config().id;
  auto at_ms = at_ms_of(e);
  auto lanes = static_cast<std::uint8_t>(r.draw_lanes());
  // Each lane's draw has its entries, the general lane's first: new terms commit every
  // lane's anew, a lane declared in the open lobby commits its own.
  if (const auto& terms = r.committed()) {
    auto first = terms != before.committed ? 0 : before.draw_lanes;
    for (auto lane = static_cast<std::uint8_t>(first); lane < lanes; ++lane) {
      ledger_.append(text(ledger::commit_entry{id, std::string(r.ledger_lane(lane)), r.commitment(lane), terms->beacon, terms->round,
                                               terms->closes_at_ms, at_ms}));
    }
  }
  if (!before.closed && r.closed_at_ms()) {
    for (std::uint8_t lane = 0; lane < lanes; ++lane) {
      ledger_.append(text(ledger::close_entry{id, std::string(r.ledger_lane(lane)), r.lobby_size(lane), *r.lobby_root(lane), *r.closed_at_ms()}));
    }
  }
  if (const auto* witnessed = std::get_if<draw_witnessed>(&e)) {
    bool was = witnessed->stage == ledger::stage::commit ? before.witnessed_commit : before.witnessed_close;
    if (!was && r.witnessed(witnessed->stage)) {
      ledger_.append(text(ledger::witnessed_entry{id, witnessed->stage, witnessed->cosigned_checkpoint}));
    }
  }
  if (!before.drawn && r.revealed_seed()) {
    for (std::uint8_t lane = 0; lane < lanes; ++lane) {
      ledger::reveal_entry reveal{id,      std::string(r.ledger_lane(lane)),          *r.revealed_seed(lane), r.beacon_kind(), 0, {},
                                  *r.lottery_key(lane), r.places_hash(lane), at_ms};
      if (r.beacon()) reveal.beacon_value = byte_vector(as_bytes(*r.beacon()).begin(), as_bytes(*r.beacon()).end());
      if (r.committed()) reveal.round = r.committed()->round;
      ledger_.append(text(reveal));
    }
  }
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
  w.u64(retired_.size());
  for (const auto& id : retired_) w.str(id);
  w.u64(retired_seats_.size());
  for (const auto& [id, r] : retired_seats_) {
    w.str(id);
    w.i64(retired_until_.at(id));
    w.str(r.encode_state());
  }
  w.str(ledger_.encode());
  return w.take();
}

room& journal::decode_room(std::map<std::string, room, std::less<>>& into, const std::string& id,
                           const std::string& state) {
  // The seed is the first field after the format byte: the room is made from it, then
  // takes the rest of its state.
  reader seed_reader(state);
  seed_reader.u8();
  room_created created{id, seed_reader.raw<32>(), 0};
  auto [pos, inserted] = into.try_emplace(id, config_for(id), created);
  if (seed_reader.failed() || !pos->second.decode_state(state)) {
    throw std::runtime_error(fmt::format("the snapshot's state of room '{}' is not readable", id));
  }
  return pos->second;
}

void journal::decode_snapshot(const std::string& bytes) {
  reader r(bytes);
  auto format = r.u8();
  if (format < legacy_snapshot_format || format > snapshot_format) {
    throw std::runtime_error("the snapshot has an unknown format");
  }
  auto count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto id = r.str();
    decode_room(rooms_, id, r.str());
  }
  if (format >= retired_ids_snapshot_format) {
    auto count_retired = r.u64();
    for (std::uint64_t i = 0; i < count_retired && !r.failed(); ++i) retired_.insert(r.str());
  }
  if (format >= answering_snapshot_format) {
    auto count_answering = r.u64();
    for (std::uint64_t i = 0; i < count_answering && !r.failed(); ++i) {
      auto id = r.str();
      retired_until_.insert_or_assign(id, r.i64());
      // Its holds ended when it was removed: this marks the ledger retired again.
      decode_room(retired_seats_, id, r.str()).retire(0);
    }
  }
  if (format >= snapshot_format) {
    auto ledger = ledger::log::decode(r.str());
    if (!ledger) throw std::runtime_error("the snapshot's public ledger is not readable");
    ledger_ = std::move(*ledger);
  }
  if (!r.done()) throw std::runtime_error("the snapshot is truncated or has trailing bytes");
}

}  // namespace foyer
