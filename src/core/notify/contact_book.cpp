#include "core/notify/contact_book.hpp"

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
  }
  auto& e = found->second;
  auto ch = channel_of(c);
  bool had = ch == channel::push ? e.push.has_value() : e.email.has_value();
  if (auto* push = std::get_if<push_subscription>(&c)) {
    e.push = std::move(*push);
  } else {
    e.email = std::move(std::get<email_contact>(c));
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
  auto& held = it->second.counts.held;
  if (found->second.push) --held[index(channel::push)];
  if (found->second.email) --held[index(channel::email)];
  it->second.visitors.erase(found);
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
  if (had) --it->second.counts.held[index(ch)];
  if (!e.push && !e.email) it->second.visitors.erase(found);
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

std::vector<notice> contact_book::plan(const journal& rooms, std::int64_t now_ms, std::uint32_t soon_seconds) {
  std::vector<notice> out;
  for (auto it = rooms_.begin(); it != rooms_.end();) {
    const room* r = rooms.find(it->first);
    if (!r || ended(r->state())) {
      it = rooms_.erase(it);
      continue;
    }
    auto& book = it->second;
    for (auto v = book.visitors.begin(); v != book.visitors.end();) {
      auto& e = v->second;
      auto place = e.place;
      if (!place && e.lobby_index) place = r->place_of(*e.lobby_index);
      auto st = status_of(*r, place, now_ms, /*jitter=*/0.0, {}, e.lobby_index);
      auto kind = due_notice(st, e.soon_sent, /*turn_sent=*/false, soon_seconds);
      if (!kind) {
        ++v;
        continue;
      }
      auto minutes = *kind == notice_kind::soon ? minutes_of(st.eta_seconds) : 0;
      auto send = [&](channel ch, contact c) {
        ++book.counts.sent[index(ch)];
        out.push_back({it->first, v->first, *kind, minutes, std::move(c)});
      };
      if (e.push) send(channel::push, *e.push);
      if (e.email) send(channel::email, *e.email);
      if (*kind == notice_kind::soon) {
        e.soon_sent = true;
        ++v;
        continue;
      }
      if (st.place) book.told.push_back(*st.place);
      // The last notice is on its way: the book holds the contact no longer.
      if (e.push) --book.counts.held[index(channel::push)];
      if (e.email) --book.counts.held[index(channel::email)];
      v = book.visitors.erase(v);
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

}  // namespace foyer::notify
