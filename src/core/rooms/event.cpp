#include "core/rooms/event.hpp"

#include "core/base/codec.hpp"

namespace foyer {
namespace {

// Tags are part of the on-disk format: never renumber.
enum class tag : std::uint8_t {
  room_created = 1,
  visitor_joined = 2,
  visitors_admitted = 3,
  lobby_closed = 4,
  beacon_supplied = 5,
  state_changed = 6,
  room_configured = 7,
  room_removed = 8,
  // room_configured with settings of room_config_format 2 (7 has format 1).
  room_configured_2 = 9,
  pass_claimed = 10,
  passes_done = 11,
  stock_reported = 12,
  rate_changed = 13,
  // room_configured whose settings carry their room_config_format (3 on): later formats
  // need no new tag.
  room_configured_with_format = 14,
  hold_placed = 15,
  hold_extended = 16,
  hold_confirmed = 17,
  hold_released = 18,
  holds_expired = 19,
  // hold_placed with the stations it goes from and to.
  hold_placed_on_legs = 20,
  seats_recounted = 21,
  // lobby_closed whose draw awaits the witnesses.
  lobby_closed_witnessed = 22,
  draw_witnessed = 23,
  // visitor_joined in a lane other than the general one, or with an access code.
  visitor_joined_in_lane = 24,
  codes_added = 25,
  codes_revoked = 26,
  resume_link_changed = 27,
  turn_notified = 28,
  // beacon_supplied with what stands behind it (drand::beacon_check); 5 has none.
  beacon_supplied_checked = 29,
  // beacon_supplied_checked with the relays that agreed.
  beacon_supplied_agreed = 30,
};

// The events that name one hold by a request's key share a layout.
template <class E>
void write_hold_request(writer& w, tag t, const E& e) {
  w.u8(static_cast<std::uint8_t>(t));
  w.str(e.room);
  w.raw(e.hold);
  w.str(e.key);
  w.i64(e.at_ms);
}

template <class E>
E read_hold_request(reader& r) {
  E e;
  e.room = r.str();
  e.hold = r.raw<16>();
  e.key = r.str();
  e.at_ms = r.i64();
  return e;
}

struct encoder {
  writer& w;
  void operator()(const room_created& e) {
    w.u8(static_cast<std::uint8_t>(tag::room_created));
    w.str(e.room);
    w.raw(e.seed);
    w.i64(e.at_ms);
  }
  void operator()(const visitor_joined& e) {
    bool in_lane = e.lane != 0 || e.code || e.invite;
    w.u8(static_cast<std::uint8_t>(in_lane ? tag::visitor_joined_in_lane : tag::visitor_joined));
    w.str(e.room);
    w.raw(e.visitor);
    w.raw(e.entrant);
    w.i64(e.at_ms);
    w.u8(e.account.has_value());
    if (e.account) w.raw(*e.account);
    if (!in_lane) return;
    w.u8(e.lane);
    w.u8(e.code.has_value());
    if (e.code) w.raw(*e.code);
    w.u8(e.invite.has_value());
    if (e.invite) {
      w.str(e.invite->jti);
      w.i64(e.invite->exp_ms);
    }
  }
  void operator()(const codes_added& e) {
    w.u8(static_cast<std::uint8_t>(tag::codes_added));
    w.str(e.room);
    w.str(e.batch);
    w.str(e.lane);
    w.u32(e.uses_per_code);
    w.u32(static_cast<std::uint32_t>(e.codes.size()));
    for (const auto& code : e.codes) w.raw(code);
    w.i64(e.at_ms);
  }
  void operator()(const codes_revoked& e) {
    w.u8(static_cast<std::uint8_t>(tag::codes_revoked));
    w.str(e.room);
    w.str(e.batch);
    w.u8(e.code.has_value());
    if (e.code) w.raw(*e.code);
    w.i64(e.at_ms);
  }
  void operator()(const resume_link_changed& e) {
    w.u8(static_cast<std::uint8_t>(tag::resume_link_changed));
    w.str(e.room);
    w.raw(e.visitor);
    w.u8(e.link.has_value());
    if (e.link) w.raw(*e.link);
    w.i64(e.at_ms);
  }
  void operator()(const visitors_admitted& e) {
    w.u8(static_cast<std::uint8_t>(tag::visitors_admitted));
    w.str(e.room);
    w.u64(e.served);
    w.i64(e.tick_ms);
    w.u64(e.carry);
  }
  void operator()(const lobby_closed& e) {
    w.u8(static_cast<std::uint8_t>(e.awaits_witnesses ? tag::lobby_closed_witnessed : tag::lobby_closed));
    w.str(e.room);
    w.i64(e.at_ms);
  }
  void operator()(const draw_witnessed& e) {
    w.u8(static_cast<std::uint8_t>(tag::draw_witnessed));
    w.str(e.room);
    w.u8(static_cast<std::uint8_t>(e.stage));
    w.str(e.cosigned_checkpoint);
    w.i64(e.at_ms);
  }
  void operator()(const beacon_supplied& e) {
    bool checked = e.check != drand::beacon_check::none;
    bool named = !e.relays.empty();
    w.u8(static_cast<std::uint8_t>(named     ? tag::beacon_supplied_agreed
                                   : checked ? tag::beacon_supplied_checked
                                             : tag::beacon_supplied));
    w.str(e.room);
    w.str(e.value);
    w.i64(e.at_ms);
    if (checked || named) w.u8(static_cast<std::uint8_t>(e.check));
    if (named) {
      w.u8(static_cast<std::uint8_t>(e.relays.size()));
      for (const auto& relay : e.relays) w.str(relay);
    }
  }
  void operator()(const state_changed& e) {
    w.u8(static_cast<std::uint8_t>(tag::state_changed));
    w.str(e.room);
    w.u8(static_cast<std::uint8_t>(e.state));
    w.i64(e.at_ms);
  }
  void operator()(const room_configured& e) {
    w.u8(static_cast<std::uint8_t>(tag::room_configured_with_format));
    w.u8(room_config_format);
    w.str(e.room);
    write_room_config(w, e.config);
    w.u8(static_cast<std::uint8_t>(e.source));
    w.u8(e.declared.has_value());
    if (e.declared) write_room_config(w, *e.declared);
    w.i64(e.at_ms);
  }
  void operator()(const room_removed& e) {
    w.u8(static_cast<std::uint8_t>(tag::room_removed));
    w.str(e.room);
    w.i64(e.at_ms);
  }
  void operator()(const pass_claimed& e) {
    w.u8(static_cast<std::uint8_t>(tag::pass_claimed));
    w.str(e.room);
    w.u64(e.place);
    w.raw(e.pass);
    w.i64(e.at_ms);
  }
  void operator()(const turn_notified& e) {
    w.u8(static_cast<std::uint8_t>(tag::turn_notified));
    w.str(e.room);
    w.u64(e.place);
    w.i64(e.at_ms);
  }
  void operator()(const passes_done& e) {
    w.u8(static_cast<std::uint8_t>(tag::passes_done));
    w.str(e.room);
    w.u32(static_cast<std::uint32_t>(e.places.size()));
    for (auto place : e.places) w.u64(place);
    w.i64(e.at_ms);
  }
  void operator()(const stock_reported& e) {
    w.u8(static_cast<std::uint8_t>(tag::stock_reported));
    w.str(e.room);
    w.u8(static_cast<std::uint8_t>(e.kind));
    w.u64(e.amount);
    w.str(e.key);
    w.i64(e.at_ms);
  }
  void operator()(const rate_changed& e) {
    w.u8(static_cast<std::uint8_t>(tag::rate_changed));
    w.str(e.room);
    w.u32(e.base_rate_per_minute);
    w.u32(e.rate_per_minute);
    w.u8(static_cast<std::uint8_t>(e.reason));
    w.i64(e.at_ms);
  }
  void operator()(const hold_placed& e) {
    w.u8(static_cast<std::uint8_t>(tag::hold_placed_on_legs));
    w.str(e.room);
    w.raw(e.hold);
    w.raw(e.visitor);
    w.u8(e.place.has_value());
    w.u64(e.place.value_or(0));
    w.u32(e.seats);
    w.str(e.key);
    w.i64(e.at_ms);
    w.str(e.from);
    w.str(e.to);
  }
  void operator()(const hold_extended& e) { write_hold_request(w, tag::hold_extended, e); }
  void operator()(const hold_confirmed& e) { write_hold_request(w, tag::hold_confirmed, e); }
  void operator()(const hold_released& e) { write_hold_request(w, tag::hold_released, e); }
  void operator()(const seats_recounted& e) {
    w.u8(static_cast<std::uint8_t>(tag::seats_recounted));
    w.str(e.room);
    w.i64(e.at_ms);
  }
  void operator()(const holds_expired& e) {
    w.u8(static_cast<std::uint8_t>(tag::holds_expired));
    w.str(e.room);
    w.u32(static_cast<std::uint32_t>(e.holds.size()));
    for (const auto& hold : e.holds) w.raw(hold);
    w.i64(e.at_ms);
  }
};

// Room settings of `format`, then who made the change, the file's declaration and the time.
std::optional<event> read_room_configured(reader& r, std::uint8_t format) {
  room_configured e;
  e.room = r.str();
  e.config = read_room_config(r, format);
  auto source = r.u8();
  if (source > static_cast<std::uint8_t>(room_owner::api) || e.config.id != e.room) return std::nullopt;
  e.source = static_cast<room_owner>(source);
  if (r.u8() != 0) e.declared = read_room_config(r, format);
  if (e.declared && e.declared->id != e.room) return std::nullopt;
  e.at_ms = r.i64();
  return e;
}

std::optional<event> read_event(reader& r) {
  auto kind = r.u8();
  switch (static_cast<tag>(kind)) {
    case tag::room_created: {
      room_created e{r.str(), r.raw<32>(), 0};
      e.at_ms = r.i64();
      return e;
    }
    case tag::visitor_joined:
    case tag::visitor_joined_in_lane: {
      visitor_joined e;
      e.room = r.str();
      e.visitor = r.raw<16>();
      e.entrant = r.raw<16>();
      e.at_ms = r.i64();
      if (r.u8() != 0) e.account = r.raw<16>();
      if (static_cast<tag>(kind) == tag::visitor_joined_in_lane) {
        e.lane = r.u8();
        if (r.u8() != 0) e.code = r.raw<32>();
        if (r.u8() != 0) {
          e.invite.emplace();
          e.invite->room = e.room;
          e.invite->jti = r.str();
          e.invite->exp_ms = r.i64();
          e.invite->at_ms = e.at_ms;
        }
      }
      return e;
    }
    case tag::codes_added: {
      codes_added e;
      e.room = r.str();
      e.batch = r.str();
      e.lane = r.str();
      e.uses_per_code = r.u32();
      auto count = r.u32();
      // Bounded by what the bytes hold: a corrupt count fails the read, not the memory.
      for (std::uint32_t i = 0; i < count && !r.failed(); ++i) e.codes.push_back(r.raw<32>());
      e.at_ms = r.i64();
      return e;
    }
    case tag::codes_revoked: {
      codes_revoked e;
      e.room = r.str();
      e.batch = r.str();
      if (r.u8() != 0) e.code = r.raw<32>();
      e.at_ms = r.i64();
      return e;
    }
    case tag::resume_link_changed: {
      resume_link_changed e;
      e.room = r.str();
      e.visitor = r.raw<16>();
      if (r.u8() != 0) e.link = r.raw<16>();
      e.at_ms = r.i64();
      return e;
    }
    case tag::visitors_admitted: {
      visitors_admitted e;
      e.room = r.str();
      e.served = r.u64();
      e.tick_ms = r.i64();
      e.carry = r.u64();
      return e;
    }
    case tag::lobby_closed:
    case tag::lobby_closed_witnessed: {
      lobby_closed e;
      e.room = r.str();
      e.at_ms = r.i64();
      e.awaits_witnesses = static_cast<tag>(kind) == tag::lobby_closed_witnessed;
      return e;
    }
    case tag::draw_witnessed: {
      draw_witnessed e;
      e.room = r.str();
      auto stage = r.u8();
      if (stage > static_cast<std::uint8_t>(ledger::stage::close)) return std::nullopt;
      e.stage = static_cast<ledger::stage>(stage);
      e.cosigned_checkpoint = r.str();
      e.at_ms = r.i64();
      return e;
    }
    case tag::beacon_supplied:
    case tag::beacon_supplied_checked:
    case tag::beacon_supplied_agreed: {
      beacon_supplied e;
      e.room = r.str();
      e.value = r.str();
      e.at_ms = r.i64();
      if (static_cast<tag>(kind) != tag::beacon_supplied) {
        auto check = r.u8();
        if (check == 0 || check > static_cast<std::uint8_t>(drand::beacon_check::two_relays)) return std::nullopt;
        e.check = static_cast<drand::beacon_check>(check);
      }
      if (static_cast<tag>(kind) == tag::beacon_supplied_agreed) {
        auto count = r.u8();
        if (count == 0 || count > max_beacon_relays) return std::nullopt;
        for (std::uint8_t i = 0; i < count && !r.failed(); ++i) e.relays.push_back(r.str());
      }
      return e;
    }
    case tag::state_changed: {
      state_changed e;
      e.room = r.str();
      auto s = r.u8();
      if (s > static_cast<std::uint8_t>(room_state::closed)) return std::nullopt;
      e.state = static_cast<room_state>(s);
      e.at_ms = r.i64();
      return e;
    }
    case tag::room_configured: return read_room_configured(r, 1);
    case tag::room_configured_2: return read_room_configured(r, 2);
    case tag::room_configured_with_format: {
      auto format = r.u8();
      if (format < 3 || format > room_config_format) return std::nullopt;
      return read_room_configured(r, format);
    }
    case tag::hold_placed:
    case tag::hold_placed_on_legs: {
      bool on_legs = static_cast<tag>(kind) == tag::hold_placed_on_legs;
      hold_placed e;
      e.room = r.str();
      e.hold = r.raw<16>();
      e.visitor = r.raw<16>();
      bool placed = r.u8() != 0;
      auto place = r.u64();
      if (placed) e.place = place;
      e.seats = r.u32();
      e.key = r.str();
      e.at_ms = r.i64();
      if (on_legs) {
        e.from = r.str();
        e.to = r.str();
      }
      return e;
    }
    case tag::hold_extended: return read_hold_request<hold_extended>(r);
    case tag::hold_confirmed: return read_hold_request<hold_confirmed>(r);
    case tag::hold_released: return read_hold_request<hold_released>(r);
    case tag::holds_expired: {
      holds_expired e;
      e.room = r.str();
      auto count = r.u32();
      for (std::uint32_t i = 0; i < count && !r.failed(); ++i) e.holds.push_back(r.raw<16>());
      e.at_ms = r.i64();
      return e;
    }
    case tag::seats_recounted: {
      seats_recounted e;
      e.room = r.str();
      e.at_ms = r.i64();
      return e;
    }
    case tag::room_removed: {
      room_removed e;
      e.room = r.str();
      e.at_ms = r.i64();
      return e;
    }
    case tag::pass_claimed: {
      pass_claimed e;
      e.room = r.str();
      e.place = r.u64();
      e.pass = r.raw<16>();
      e.at_ms = r.i64();
      return e;
    }
    case tag::turn_notified: {
      turn_notified e;
      e.room = r.str();
      e.place = r.u64();
      e.at_ms = r.i64();
      return e;
    }
    case tag::passes_done: {
      passes_done e;
      e.room = r.str();
      auto count = r.u32();
      for (std::uint32_t i = 0; i < count && !r.failed(); ++i) e.places.push_back(r.u64());
      e.at_ms = r.i64();
      return e;
    }
    case tag::stock_reported: {
      stock_reported e;
      e.room = r.str();
      auto kind = r.u8();
      if (kind > static_cast<std::uint8_t>(stock_change::remaining)) return std::nullopt;
      e.kind = static_cast<stock_change>(kind);
      e.amount = r.u64();
      e.key = r.str();
      e.at_ms = r.i64();
      return e;
    }
    case tag::rate_changed: {
      rate_changed e;
      e.room = r.str();
      e.base_rate_per_minute = r.u32();
      e.rate_per_minute = r.u32();
      auto reason = r.u8();
      if (reason > static_cast<std::uint8_t>(rate_reason::no_show_compensation)) return std::nullopt;
      e.reason = static_cast<rate_reason>(reason);
      e.at_ms = r.i64();
      return e;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(room_state state) {
  switch (state) {
    case room_state::lobby: return "lobby";
    case room_state::drawing: return "drawing";
    case room_state::open: return "open";
    case room_state::paused: return "paused";
    case room_state::sold_out: return "sold_out";
    case room_state::closed: return "closed";
  }
  return "unknown";
}

std::string_view to_string(stock_change kind) {
  switch (kind) {
    case stock_change::consumed: return "consumed";
    case stock_change::released: return "released";
    case stock_change::remaining: return "remaining";
  }
  return "unknown";
}

std::string_view to_string(rate_reason reason) {
  switch (reason) {
    case rate_reason::configured: return "configured";
    case rate_reason::adaptive_increase: return "adaptive_increase";
    case rate_reason::adaptive_decrease: return "adaptive_decrease";
    case rate_reason::adaptive_no_signal: return "adaptive_no_signal";
    case rate_reason::no_show_compensation: return "no_show_compensation";
  }
  return "unknown";
}

std::string encode(const event& e) {
  writer w(128);  // a join, the event written most, fits: one allocation
  std::visit(encoder{w}, e);
  return w.take();
}

std::optional<event> decode_event(std::string_view bytes) {
  reader r(bytes);
  auto e = read_event(r);
  if (!e || !r.done()) return std::nullopt;
  return e;
}

bool has_hold_outcome(const event& e) {
  return std::holds_alternative<hold_placed>(e) || std::holds_alternative<hold_extended>(e) ||
         std::holds_alternative<hold_confirmed>(e) || std::holds_alternative<hold_released>(e) ||
         std::holds_alternative<holds_expired>(e);
}

const std::string& room_of(const event& e) {
  return std::visit([](const auto& v) -> const std::string& { return v.room; }, e);
}

}  // namespace foyer
