#include "http/handlers/room.hpp"

#include <charconv>

#include <boost/beast/http/field.hpp>
#include <fmt/core.h>

#include "core/base/json.hpp"
#include "http/handlers/ledger.hpp"
#include "http/handlers/poll_bodies.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

std::string hex_or_null(const std::optional<digest>& d) {
  return d ? json_quote(to_hex(*d)) : "null";
}

// What the draw mixes in, what was checked of it, and whether the witnesses cosigned it:
// the grinding guarantee is claimed only for a drand round two relays agreed on (the
// server cannot check its BLS signature: core/fairness/drand.hpp), and a room without a
// public beacon says that the organiser, who knows the seed, could grind the draw.
std::string draw_of(const context& ctx, const room& r) {
  json_object draw;
  auto kind = r.beacon_kind();
  draw.str("beacon", kind == ledger::beacon_kind::none             ? "none"
                     : kind == ledger::beacon_kind::drand_quicknet ? "drand-quicknet"
                                                                   : "operator");
  if (kind == ledger::beacon_kind::drand_quicknet && r.committed()) {
    draw.num("beacon_round", r.committed()->round);
  }
  bool agreed = kind == ledger::beacon_kind::drand_quicknet && r.beacon() &&
                r.beacon_check() == drand::beacon_check::two_relays;
  draw.boolean("beacon_verified", false)
      .str("beacon_check", drand::to_string(r.beacon_check()))
      .boolean("grinding_guarantee", agreed);
  if (agreed) {
    // Who agreed, so that anyone can judge whether they are independent of each other.
    std::string relays = "[";
    for (const auto& relay : r.beacon_relays()) relays.append(relays.size() > 1 ? "," : "").append(json_quote(relay));
    draw.raw("beacon_relays", relays + "]");
  }
  bool single_relay = ctx.settings.beacon_relays == 1;
  if (kind == ledger::beacon_kind::drand_quicknet && r.committed() && !r.beacon() &&
      r.state() == room_state::drawing) {
    draw.str("beacon_waiting",
             single_relay
                 ? fmt::format("The draw waits for the one configured relay to give drand round {}.",
                               r.committed()->round)
                 : fmt::format("The draw waits for two configured relays to agree on drand round {}, or for the "
                               "operator to supply it; it never goes ahead on one relay's word.",
                               r.committed()->round));
  }
  if (!agreed) {
    draw.str("grinding_note",
             kind == ledger::beacon_kind::none
                 ? "No public beacon: the organiser, who knows the seed, could add entrants before the close to move "
                   "places. This guarantee is absent."
             : kind == ledger::beacon_kind::operator_value
                 ? "The beacon is a value the operator supplies, not a public one nobody could know at the close: the "
                   "organiser could still grind the draw."
             : r.beacon()
                 ? "No two relays confirmed the drand round the draw used (it came from one relay, or from the "
                   "operator), and this server does not check drand's BLS signature: the round could have been made "
                   "up. The audit checks the signature; this guarantee is not claimed."
             : single_relay
                 ? "Not claimed: a single relay is configured, and the draw will use its round unconfirmed (this "
                   "server does not check drand's BLS signature itself). A single relay gives no guarantee."
                 : "Not claimed yet: it is claimed when two configured relays agree on the drand round (this "
                   "server does not check drand's BLS signature itself).");
  }
  draw.num("witness_quorum", ctx.ledger.quorum())
      .boolean("commit_witnessed", r.witnessed(ledger::stage::commit))
      .boolean("close_witnessed", r.witnessed(ledger::stage::close))
      .str("ledger", "/api/v1/ledger")
      // The C2SP tlog-tiles prefixes of the ledger and of the room's lobby log.
      .str("ledger_tlog", "/ledger")
      .str("lobby", fmt::format("/ledger/lobbies/{}", r.config().id))
      .str("lobby_vkey", ctx.ledger.lobby_vkey(r.config().id));
  return draw.done();
}

// The draws of the lanes other than the general one (whose draw is the room's, above):
// each with its own commitment, lobby and, once drawn, seed.
std::string lane_draws_of(const context& ctx, const room& r) {
  json_object lanes;
  for (std::uint8_t lane = 1; lane < r.draw_lanes(); ++lane) {
    auto id = r.ledger_lane(lane);
    json_object draw;
    draw.hex("commitment", r.commitment(lane));
    if (r.lobby_root(lane)) {
      draw.num("lobby_size", r.lobby_size(lane));
    } else {
      draw.null("lobby_size");
    }
    draw.raw("lobby_root", hex_or_null(r.lobby_root(lane)))
        .raw("seed", hex_or_null(r.revealed_seed(lane)))
        .str("lobby_vkey", ctx.ledger.lobby_vkey(r.config().id, id))
        .str("lobby", fmt::format("/ledger/lobbies/{}/lanes/{}", r.config().id, id));
    lanes.raw(id, draw.done());
  }
  return lanes.done();
}

}  // namespace

void add_admission(json_object& body, const room& r, std::int64_t now_ms) {
  body.num("rate_per_minute", r.rate())
      .str("rate_reason", r.rate_reason_at(now_ms))
      .num("active", r.active(now_ms))
      .num("claimed", r.claimed())
      .num("no_shows", r.no_shows());
  if (auto ratio = r.claim_ratio()) {
    body.fraction("claim_ratio", *ratio);
  } else {
    body.null("claim_ratio");
  }
  if (auto left = r.stock_remaining()) {
    body.num("stock_remaining", *left);
  } else {
    body.null("stock_remaining");
  }
  const seat_ledger& seats = r.seats();
  if (seats.enabled()) {
    // "frozen": the seat count failed its check, and holds are refused until an operator looks.
    body.raw("inventory", json_object()
                              .num("total", seats.total())
                              .num("available", seats.available())
                              .num("promised", *r.seats_promised(now_ms))
                              .num("held", seats.held())
                              .num("confirmed", seats.confirmed())
                              .boolean("frozen", seats.frozen())
                              .num("max_seats_per_hold", std::uint64_t{seats.settings()->max_seats_per_hold})
                              .done());
  } else {
    body.null("inventory");
  }
}

std::string alternatives_of(const context& ctx, const room& r) {
  std::string list = "[";
  for (const auto& id : r.config().alternatives) {
    const room* other = ctx.rooms.find(id);
    if (!other) continue;
    if (list.size() > 1) list += ',';
    list += json_object()
                .str("id", id)
                .str("name", other->config().name)
                .str("state", to_string(other->state()))
                .str("url", fmt::format("/r/{}", id))
                .done();
  }
  return list + "]";
}

response rooms_list(const context& ctx, const request& req) {
  std::string list = "[";
  for (const auto& [id, r] : ctx.rooms.rooms()) {
    if (list.size() > 1) list += ',';
    list += json_object().str("id", id).str("name", r.config().name).str("state", to_string(r.state())).done();
  }
  list += ']';
  return json_response(req, bhttp::status::ok, json_object().raw("rooms", list).done());
}

// The lanes, with how each shares admission now and how far it moved: joined, served,
// claimed or never came.
std::string lanes_of(const room& r) {
  std::string list = "[";
  const auto& lanes = r.lanes();
  for (std::uint8_t i = 0; i < lanes.size(); ++i) {
    const auto& l = lanes.at(i);
    if (list.size() > 1) list += ',';
    list += json_object()
                .str("id", l.config.id)
                .str("name", l.config.name)
                .fraction("share", static_cast<double>(l.config.share) / share_scale)
                .fraction("share_now", static_cast<double>(lanes.share_now(i)) / share_scale)
                .boolean("priority", l.config.priority)
                .str("entry", to_string(l.config.entry))
                .boolean("declared", l.declared)
                .num("joined", l.joined)
                .num("served", l.served)
                .num("waiting", l.waiting())
                // The lane's funnel goes on: admitted visitors who claimed their pass, and
                // who never came for it.
                .num("claimed", l.claims.claimed_total())
                .num("no_shows", l.claims.no_shows())
                .done();
  }
  return list + "]";
}

std::optional<std::string> notifications_of(const context& ctx, const room& r, bool counts) {
  if (!ctx.settings.contacts) return std::nullopt;
  const auto& on = ctx.settings.notify_channels;
  std::vector<std::string> channels;
  for (auto ch : {notify::channel::push, notify::channel::email}) {
    if (on.has(ch)) channels.emplace_back(notify::to_string(ch));
  }
  json_object body;
  body.raw("channels", json_string_list(channels));
  if (on.push) body.str("vapid_public_key", ctx.settings.vapid_public_key);
  if (!counts) return body.done();
  auto n = ctx.settings.contacts->counts(r.config().id);
  auto by_channel = [](const notify::per_channel& v) {
    return json_object().num("push", v[0]).num("email", v[1]).done();
  };
  return body.raw("opted_in", by_channel(n.opted_in))
      .raw("held", by_channel(n.held))
      .raw("sent", by_channel(n.sent))
      .raw("delivered", by_channel(n.delivered))
      .raw("refused", by_channel(n.refused))
      .num("notified_no_shows", n.notified_no_shows)
      .num("confirmations_sent", n.confirmations_sent)
      .num("confirmations_delivered", n.confirmations_delivered)
      .done();
}

response room_info(const context& ctx, const request& req, const room& r) {
  const auto& c = r.config();
  auto now = ctx.clock.steady_ms();
  auto served = r.served(now);
  json_object body;
  body.str("id", c.id).str("name", c.name).str("state", to_string(r.state()));
  add_admission(body, r, now);
  body.num("served", served)
      .num("joined", r.joined())
      .num("waiting", r.joined() - served)
      .num("created_at", seconds(r.created_at_ms()))
      .hex("commitment", r.commitment());
  if (c.opens_at_ms) body.num("opens_at", seconds(*c.opens_at_ms));
  if (auto closes = r.lobby_closes_at_ms()) body.num("draw_at", seconds(*closes));
  if (auto opened = r.opened_at_ms()) body.num("opened_at", seconds(*opened));
  if (c.opens_at_ms) body.raw("draw", draw_of(ctx, r));
  if (c.stock) body.num("stock", *c.stock);
  if (!c.alternatives.empty()) body.raw("alternatives", alternatives_of(ctx, r));
  // Also a room whose only lane is not open: the page must know it takes invites or codes.
  if (r.lanes().size() > 1 || !r.lane_takes(general_lane, lane_entry::open)) body.raw("lanes", lanes_of(r));
  json_object brand;
  brand.str("name", c.name);
  if (!c.logo_url.empty()) brand.str("logo_url", c.logo_url);
  if (!c.accent_colour.empty()) brand.str("accent_colour", c.accent_colour);
  body.raw("branding", brand.done());
  if (auto notices = notifications_of(ctx, r, /*counts=*/false)) body.raw("notifications", *notices);
  return json_response(req, bhttp::status::ok, body.done());
}

response frontier(const context& ctx, const request& req, const room& r) {
  return cacheable(req, frontier_body(room_front_of(r, ctx.clock.steady_ms()), ctx.clock.now_ms()));
}

response lottery(const context& ctx, const request& req, const room& r) {
  json_object body;
  body.str("version", "v1")
      .hex("commitment", r.commitment())
      .str("state", r.config().opens_at_ms ? to_string(r.state()) : "fifo");
  if (r.lobby_root()) {
    body.num("lobby_size", r.lobby_size());
  } else {
    body.null("lobby_size");
  }
  body.raw("lobby_root", hex_or_null(r.lobby_root()))
      .opt_str("beacon", r.beacon() ? std::optional(to_hex(as_bytes(*r.beacon()))) : std::nullopt)
      .raw("seed", hex_or_null(r.revealed_seed()))
      .str("beacon_rule", r.config().beacon_rule)
      .hex("receipt_key", ctx.keys.active().public_key)
      .str("receipt_kid", ctx.keys.active().kid);
  // Every Ed25519 key of the ring by kid, retired ones too: a receipt is checked with the
  // key its kid names, also after the key that signed it was rotated out.
  json_object receipt_keys;
  for (const auto& k : ctx.keys.keys()) {
    if (k.type == pass::key_type::ed25519) receipt_keys.str(k.kid, to_hex(k.public_key));
  }
  body.raw("receipt_keys", receipt_keys.done());
  if (auto closes = r.lobby_closes_at_ms()) body.num("draw_at", seconds(*closes));
  if (r.config().opens_at_ms) body.raw("draw", draw_of(ctx, r));
  if (r.draw_lanes() > 1) body.raw("lanes", lane_draws_of(ctx, r));
  return cacheable(req, body.done());
}

task<response> lottery_proof(context& ctx, const request& req, const room& r) {
  auto index_text = query_param(req.target(), "index");
  auto index = index_text ? parse_u64(*index_text) : std::nullopt;
  if (!index) co_return problem(req, errc::bad_index, "Give the lobby index as ?index=<number>.");
  // A lane's lobby is named by ?lane=<id>; the general lane's, the room's own, by none.
  response refusal;
  auto lane = drawing_lane(req, r, query_param(req.target(), "lane").value_or(""), refusal);
  if (!lane) co_return refusal;
  auto root = r.lobby_root(*lane);
  if (!root) co_return problem(req, errc::lobby_open, "Proofs exist once the lobby has closed.");
  std::uint64_t size = r.lobby_size(*lane);
  if (*index >= size) {
    co_return problem(req, errc::no_such_entrant, fmt::format("The lobby has {} entrants.", size));
  }
  auto found = co_await read_lobby_path(ctx, req, r, *lane, *index, refusal);
  if (!found) co_return refusal;
  std::string path = "[";
  for (const auto& h : found->path) {
    if (path.size() > 1) path += ',';
    path += json_quote(to_hex(h));
  }
  path += ']';
  co_return json_response(req, bhttp::status::ok,
                          json_object()
                              .num("index", *index)
                              .hex("entrant_id", as_bytes(found->entrant_id))
                              .num("lobby_size", size)
                              .hex("lobby_root", *root)
                              .raw("path", path)
                              .done());
}

}  // namespace foyer::http::handlers
