#include "core/notify/contact_book.hpp"

#include <algorithm>

#include "core/lanes/lane_place.hpp"
#include "core/rooms/status.hpp"

namespace foyer::notify {
namespace {

std::size_t index(channel ch) { return static_cast<std::size_t>(ch); }

bool ended(room_state s) { return s == room_state::closed || s == room_state::sold_out; }

}  // namespace

bool contact_book::add(std::string_view room, const id16& visitor, std::optional<std::uint64_t> place,
                       std::optional<std::uint64_t> lobby_index, contact c) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) it = rooms_.emplace(std::string(room), room_book{}).first;
  auto& book = it->second;
  auto found = book.visitors.find(visitor);
  if (found == book.visitors.end()) {
    if (book.visitors.size() >= max_per_room_) return false;
    found = book.visitors.emplace(visitor, entry{place, lobby_index, {}, {}, false}).first;
    index_place(book, visitor, found->second);
    changed(room, visitor);
  } else if (!found->second.place && place) {
    // A lobby member's ticket carries their place once the draw gave it.
    unindex(book, visitor, found->second);
    found->second.place = place;
    index_place(book, visitor, found->second);
    changed(room, visitor);
  }
  auto& e = found->second;
  auto ch = channel_of(c);
  bool had = ch == channel::push ? e.push.has_value() : e.email.has_value();
  if (auto* push = std::get_if<push_subscription>(&c)) {
    if (e.push != *push) changed(room, visitor);
    e.push = std::move(*push);
  } else {
    auto& email = std::get<email_contact>(c);
    if (e.email != email) changed(room, visitor);
    e.email = std::move(email);
  }
  // A page sends its subscription again on every load: one opt-in, however often.
  if (!had) {
    ++book.counts.opted_in[index(ch)];
    ++book.counts.held[index(ch)];
  }
  return true;
}

bool contact_book::remove(std::string_view room, const id16& visitor) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return false;
  auto found = it->second.visitors.find(visitor);
  if (found == it->second.visitors.end()) return false;
  drop(it->second, found);
  changed(room, visitor);
  return true;
}

void contact_book::forget(std::string_view room, const id16& visitor, channel ch) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return;
  auto found = it->second.visitors.find(visitor);
  if (found == it->second.visitors.end()) return;
  auto& e = found->second;
  bool had = ch == channel::push ? std::exchange(e.push, std::nullopt).has_value()
                                 : std::exchange(e.email, std::nullopt).has_value();
  if (!had) return;
  --it->second.counts.held[index(ch)];
  changed(room, visitor);
  if (e.push || e.email) return;
  unindex(it->second, visitor, e);
  it->second.visitors.erase(found);
}

void contact_book::forget_channel(channel ch) {
  for (auto& [room, book] : rooms_) {
    std::vector<id16> holding;
    for (const auto& [visitor, e] : book.visitors) {
      if (ch == channel::push ? e.push.has_value() : e.email.has_value()) holding.push_back(visitor);
    }
    for (const auto& visitor : holding) forget(room, visitor, ch);
  }
}

std::optional<contact> contact_book::find(std::string_view room, const id16& visitor, channel ch) const {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return std::nullopt;
  auto found = it->second.visitors.find(visitor);
  if (found == it->second.visitors.end()) return std::nullopt;
  const auto& e = found->second;
  if (ch == channel::push && e.push) return contact{*e.push};
  if (ch == channel::email && e.email) return contact{*e.email};
  return std::nullopt;
}

void contact_book::index_place(room_book& book, const id16& visitor, const entry& e) {
  if (e.place) {
    book.by_place.emplace(*e.place, visitor);
  } else {
    book.unplaced.insert(visitor);
  }
}

void contact_book::unindex(room_book& book, const id16& visitor, const entry& e) {
  if (e.place) {
    book.by_place.erase({*e.place, visitor});
  } else {
    book.unplaced.erase(visitor);
  }
}

void contact_book::hold(room_book& book, const id16& visitor, entry e) {
  if (e.push) ++book.counts.held[index(channel::push)];
  if (e.email) ++book.counts.held[index(channel::email)];
  auto found = book.visitors.emplace(visitor, std::move(e)).first;
  index_place(book, visitor, found->second);
}

void contact_book::drop(room_book& book, std::map<id16, entry>::iterator found) {
  if (found->second.push) --book.counts.held[index(channel::push)];
  if (found->second.email) --book.counts.held[index(channel::email)];
  unindex(book, found->first, found->second);
  book.visitors.erase(found);
}

void contact_book::place_drawn(room_book& book, const room& r) {
  // Every lane draws at once, with the room's one beacon.
  if (book.unplaced.empty() || !r.revealed_seed()) return;
  for (auto v = book.unplaced.begin(); v != book.unplaced.end();) {
    auto& e = book.visitors.at(*v);
    if (e.lobby_index) e.place = r.place_of(*e.lobby_index);
    if (!e.place) {
      ++v;
      continue;
    }
    book.by_place.emplace(*e.place, *v);
    v = book.unplaced.erase(v);
  }
}

std::vector<notice> contact_book::plan(const journal& rooms, std::int64_t now_ms, std::uint32_t soon_seconds) {
  std::vector<notice> out;
  looked_at_ = 0;
  for (auto it = rooms_.begin(); it != rooms_.end();) {
    const room* r = rooms.find(it->first);
    if (!r || ended(r->state())) {
      for (const auto& v : it->second.visitors) changed(it->first, v.first);
      it = rooms_.erase(it);
      continue;
    }
    auto& book = it->second;
    place_drawn(book, *r);
    for (std::uint8_t lane = 0; lane < r->lanes().size(); ++lane) {
      // status_of's estimate is (position + 1) / rate minutes: nobody further back is due.
      std::uint64_t rate = std::max<std::uint32_t>(r->lane_rate(lane), 1);
      auto reach = std::min(r->served_in_lane(lane, now_ms) + rate * soon_seconds / 60 + 1, lane_place_mask);
      auto at = book.by_place.lower_bound({lane_place(lane, 0), id16{}});
      while (at != book.by_place.end() && at->first < lane_place(lane, reach)) {
        ++looked_at_;
        auto v = book.visitors.find(at->second);
        auto& e = v->second;
        auto st = status_of(*r, e.place, now_ms, /*jitter=*/0.0, {}, e.lobby_index);
        auto kind = due_notice(st, e.soon_sent, /*turn_sent=*/false, soon_seconds);
        if (!kind) {
          ++at;
          continue;
        }
        auto minutes = *kind == notice_kind::soon ? minutes_of(st.eta_seconds) : 0;
        auto send = [&](channel ch, contact c) {
          ++book.counts.sent[index(ch)];
          out.push_back({it->first, v->first, *e.place, *kind, minutes, std::move(c)});
        };
        if (e.push) send(channel::push, *e.push);
        if (e.email) send(channel::email, *e.email);
        changed(it->first, v->first);
        if (*kind == notice_kind::soon) {
          e.soon_sent = true;
          ++at;
          continue;
        }
        book.told.push_back(*e.place);
        // The last notice is on its way: the book holds the contact no longer.
        if (e.push) --book.counts.held[index(channel::push)];
        if (e.email) --book.counts.held[index(channel::email)];
        at = book.by_place.erase(at);
        book.visitors.erase(v);
      }
    }
    std::erase_if(book.told, [&](std::uint64_t place) {
      if (r->pass_claimed_once(place)) return true;
      if (!r->lapsed(place, now_ms)) return false;
      ++book.counts.notified_no_shows;
      ++notified_no_shows_;
      return true;
    });
    ++it;
  }
  return out;
}

void contact_book::record(std::string_view room, channel ch, outcome o) {
  ++outcomes_[index(ch)][static_cast<std::size_t>(o)];
  if (o != outcome::delivered) return;
  if (auto it = rooms_.find(room); it != rooms_.end()) ++it->second.counts.delivered[index(ch)];
}

room_counts contact_book::counts(std::string_view room) const {
  auto it = rooms_.find(room);
  return it == rooms_.end() ? room_counts{} : it->second.counts;
}

std::size_t contact_book::size() const {
  std::size_t n = 0;
  for (const auto& [id, book] : rooms_) n += book.visitors.size();
  return n;
}

bool contact_book::restore(std::string_view key, std::string_view value) {
  auto who = decode_contact_key(key);
  auto record = decode_contact_record(value);
  if (!who || !record) return false;
  auto& book = rooms_[who->first];
  if (book.visitors.contains(who->second)) return false;
  if (record->push) ++book.counts.opted_in[index(channel::push)];
  if (record->email) ++book.counts.opted_in[index(channel::email)];
  hold(book, who->second, std::move(*record));
  return true;
}

std::optional<std::string> contact_book::stored(std::string_view room, const id16& visitor) const {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return std::nullopt;
  auto found = it->second.visitors.find(visitor);
  if (found == it->second.visitors.end()) return std::nullopt;
  return encode_contact_record(found->second);
}

std::vector<record_change> contact_book::take_changes() {
  std::vector<record_change> out;
  out.reserve(changed_.size());
  for (auto& key : changed_) {
    auto who = decode_contact_key(key);
    out.push_back({key, stored(who->first, who->second)});
  }
  changed_.clear();
  return out;
}

std::optional<record_change> contact_book::take_change(std::string_view room, const id16& visitor) {
  auto key = changed_.find(encode_contact_key(room, visitor));
  if (key == changed_.end()) return std::nullopt;
  record_change out{std::move(changed_.extract(key).value()), stored(room, visitor)};
  return out;
}

void contact_book::unwritten(const std::vector<record_change>& changes) {
  for (const auto& c : changes) changed_.insert(c.key);
}

void contact_book::put_back(std::string_view room, const id16& visitor, const std::optional<std::string>& before,
                            const record_change& written) {
  changed(room, visitor);
  if (stored(room, visitor) != written.value) return;
  auto& book = rooms_[std::string(room)];
  entry now;
  if (auto found = book.visitors.find(visitor); found != book.visitors.end()) {
    now = found->second;
    drop(book, found);
  }
  std::optional<entry> then;
  if (before) then = decode_contact_record(*before);
  // The opt-in was refused: it was not taken.
  if (now.push && !(then && then->push)) --book.counts.opted_in[index(channel::push)];
  if (now.email && !(then && then->email)) --book.counts.opted_in[index(channel::email)];
  if (then) hold(book, visitor, std::move(*then));
}

}  // namespace foyer::notify
