#include "http/handlers/admin.hpp"

#include <limits>

#include <fmt/core.h>

#include "core/base/crypto.hpp"
#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "core/ops/audit.hpp"
#include "core/rooms/room_admin.hpp"
#include "http/handlers/desk_runner.hpp"
#include "http/handlers/holds.hpp"
#include "http/handlers/room.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

}  // namespace

std::optional<response> admin_check(const context& ctx, const request& req) {
  const auto& expected = ctx.settings.admin_token;
  if (expected.empty()) {
    return problem(req, errc::admin_disabled, "The admin API is off: set server.admin_token to enable it.");
  }
  auto token = bearer(req);
  if (!token || !equal_constant_time(as_bytes(*token), as_bytes(expected))) {
    return problem(req, errc::admin_token_required, "Send the admin token as 'Authorization: Bearer <token>'.");
  }
  return std::nullopt;
}

namespace {

// The last holds that ran out of time: seats the shop may be losing at checkout.
std::string recent_expiries(const seat_ledger& seats) {
  std::string list = "[";
  for (const auto& [id, h] : seats.recent_expiries(5)) {
    if (list.size() > 1) list += ',';
    list += json_object()
                .hex("hold_id", id)
                .num("seats", std::uint64_t{h->seats})
                .str("expired_at", format_rfc3339_ms(h->ended_ms))
                .done();
  }
  return list + "]";
}

// A room as the operator sees it: its counters, who owns it and its settings.
std::string admin_view(const context& ctx, const room& r) {
  auto now = ctx.clock.steady_ms();
  auto served = r.served(now);
  json_object view;
  view.str("id", r.config().id)
      .str("name", r.config().name)
      .str("state", to_string(r.state()))
      .str("owner", to_string(r.owner()))
      .num("joined", r.joined())
      .num("served", served)
      .num("waiting", r.joined() - served)
      .num("lobby_size", r.lobby_size());
  add_admission(view, r, now);
  if (r.seats().enabled()) view.raw("recent_expiries", recent_expiries(r.seats()));
  if (auto notices = notifications_of(ctx, r, /*counts=*/true)) view.raw("notifications", *notices);
  return view.opt_num("stock", r.config().stock)
      .boolean("needs_beacon", r.needs_beacon())
      .raw("config", to_json(r.config()))
      .done();
}

// A JSON value as a setting's value; nullopt if the JSON is malformed.
std::optional<room_value> json_value_of(simdjson::ondemand::value v) {
  simdjson::ondemand::json_type kind;
  if (v.type().get(kind)) return std::nullopt;
  switch (kind) {
    case simdjson::ondemand::json_type::null: return unset_value{};
    case simdjson::ondemand::json_type::boolean: {
      bool flag = false;
      if (v.get_bool().get(flag)) return std::nullopt;
      return flag;
    }
    case simdjson::ondemand::json_type::number: {
      std::int64_t whole = 0;
      if (!v.get_int64().get(whole)) return whole;
      double fraction = 0;
      if (!v.get_double().get(fraction)) return fraction;
      return other_value{};
    }
    case simdjson::ondemand::json_type::string: {
      std::string_view text;
      if (v.get_string().get(text)) return std::nullopt;
      return std::string(text);
    }
    case simdjson::ondemand::json_type::array: {
      // A list of names or of whole numbers, as the first item is; an empty list is read as names.
      simdjson::ondemand::array items;
      if (v.get_array().get(items)) return std::nullopt;
      std::vector<std::string> list;
      std::vector<std::int64_t> numbers;
      for (auto item : items) {
        std::string_view text;
        std::int64_t n = 0;
        if (list.empty() && !item.get_int64().get(n)) {
          numbers.push_back(n);
        } else if (!numbers.empty() || item.get_string().get(text)) {
          return other_value{};
        } else {
          list.emplace_back(text);
        }
      }
      if (!numbers.empty()) return numbers;
      return list;
    }
    default: return other_value{};
  }
}

// The settings of `object`, each key under `prefix`; a table of settings, as in the file
// ({"adaptive": {"min_rate_per_minute": 60}}, {"lanes": {"members": {"share": 0.2}}}), as
// its keys "adaptive.min_rate_per_minute", "lanes.members.share".
std::optional<field_problem> apply_object(simdjson::ondemand::object& object, std::string_view prefix, room_config& config) {
  const field_problem bad_body{};
  for (auto field : object) {
    std::string_view name;
    simdjson::ondemand::json_type kind;
    if (field.unescaped_key().get(name) || field.value().type().get(kind)) return bad_body;
    auto key = prefix.empty() ? std::string(name) : fmt::format("{}.{}", prefix, name);
    if (kind == simdjson::ondemand::json_type::object && is_room_table(key)) {
      simdjson::ondemand::object inner;
      if (field.value().get_object().get(inner)) return bad_body;
      if (auto p = apply_object(inner, key, config)) return p;
      continue;
    }
    auto value = json_value_of(field.value());
    if (!value) return bad_body;
    if (auto p = set_room_setting(config, key, *value)) return p;
  }
  return std::nullopt;
}

}  // namespace

std::optional<field_problem> apply_settings(simdjson::ondemand::parser& parser, simdjson::padded_string_view text,
                                           room_config& config) {
  const field_problem bad_body{};
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  if (parser.iterate(text).get(doc) || doc.get_object().get(object)) return bad_body;
  return apply_object(object, "", config);
}

namespace {

// The body's settings over `config`; else the answer to give.
std::optional<response> read_settings(context& ctx, const request& req, room_config& config) {
  auto refused = apply_settings(ctx.json_parser, padded(ctx, req.body()), config);
  if (!refused) return std::nullopt;
  if (refused->field.empty()) {
    return problem(req, errc::bad_body, "The body must be a JSON object of room settings, e.g. {\"rate_per_minute\": 120}.");
  }
  return problem(req, errc::invalid_room, refused->message, {{"field", json_quote(refused->field)}});
}

// Writes what an admin decision asks, then answers with `answer(room)` of the room as it
// is then (nullptr once removed).
template <class Answer>
task<response> carry_out(context& ctx, const request& req, std::string id, admin_decision decision, Answer answer) {
  auto once_durable = [](const std::vector<event>&, std::error_code ec, const join_outcome&) -> admin_decision {
    if (ec) return not_durable();
    return answer_from_room{};
  };
  auto from_room = [&ctx, &answer, id](answer_from_room) { return answer(ctx.rooms.find(id)); };
  co_return co_await carry(ctx, req, std::move(decision), once_durable, from_room);
}

// An operator's state action, once durable: the room's state then. Callers build the
// event before the co_await: made within the co_await's expression, a temporary event
// corrupted the heap under GCC 12.
task<response> apply(context& ctx, const request& req, std::string room_id, event e) {
  admin_decision decision = std::vector<event>{std::move(e)};
  co_return co_await carry_out(ctx, req, room_id, std::move(decision), [&](const room* now) {
    if (!now) return unknown_room(req, room_id);
    return json_response(req, bhttp::status::ok, json_object().str("state", to_string(now->state())).done());
  });
}

// `?opens_at_in_past=accept`: the operator means an opening in the past or within a minute.
past_opening opening_rule(const request& req) {
  return query_param(req.target(), past_opening_key) == past_opening_accept ? past_opening::accept
                                                                            : past_opening::refuse;
}

constexpr std::size_t audit_batch = 4096;
constexpr std::uint64_t default_audit_limit = 1000;
constexpr std::uint64_t max_audit_limit = 100'000;
constexpr std::uint64_t max_audit_after_seq = std::numeric_limits<std::int64_t>::max();

std::optional<std::uint64_t> number_param(const request& req, std::string_view name, std::uint64_t fallback) {
  auto text = query_param(req.target(), name);
  return text ? parse_u64(*text) : fallback;
}

}  // namespace

response admin_rooms(const context& ctx, const request& req) {
  std::string list = "[";
  for (const auto& [id, r] : ctx.rooms.rooms()) {
    if (list.size() > 1) list += ',';
    list += admin_view(ctx, r);
  }
  list += ']';
  return json_response(req, bhttp::status::ok, json_object().raw("rooms", list).num("at", ctx.clock.now_ms()).done());
}

response admin_room(const context& ctx, const request& req, const room& r) {
  return json_response(req, bhttp::status::ok, admin_view(ctx, r));
}

task<response> create_room(context& ctx, const request& req) {
  room_config config;
  if (auto bad = read_settings(ctx, req, config)) co_return std::move(*bad);
  std::string id = config.id;
  auto decision =
      foyer::create_room(ctx.rooms, std::move(config), random_array<32>(), ctx.clock.steady_ms(), opening_rule(req));
  co_return co_await carry_out(ctx, req, id, std::move(decision), [&](const room* now) {
    return now ? json_response(req, bhttp::status::created, admin_view(ctx, *now)) : unknown_room(req, id);
  });
}

task<response> patch_room(context& ctx, const request& req, const room& r) {
  room_config next = r.config();
  if (auto bad = read_settings(ctx, req, next)) co_return std::move(*bad);
  std::string id = r.config().id;
  // The change's time, which the room applies it at.
  const std::int64_t at_ms = ctx.clock.steady_ms();
  auto decision = change_room(ctx.rooms, id, next, at_ms, opening_rule(req));
  co_return co_await carry_out(ctx, req, id, std::move(decision), [&](const room* now) {
    if (!now) return unknown_room(req, id);
    // Checked again when it applied: holds written meanwhile keep seats it would not fit.
    if (auto seats = now->refuses_seats(next, at_ms)) {
      return refused(req, desk_refusal{errc::change_refused, fmt::format("When the change applied: {}.", seats->message),
                                       seats->field, seats_taken(*now)});
    }
    // Checked against the room as it was; a join written meanwhile keeps the schedule.
    if (auto kept = changed_settings(next, now->config()); !kept.empty()) {
      return problem(req, errc::change_refused, "Visitors joined while the change was written; this setting was kept.",
                     {{"field", json_quote(kept.front())}});
    }
    return json_response(req, bhttp::status::ok, admin_view(ctx, *now));
  });
}

task<response> delete_room(context& ctx, const request& req, const room& r) {
  bool force = query_param(req.target(), "force") == std::optional<std::string_view>("true");
  std::string id = r.config().id;
  auto decision = remove_room(ctx.rooms, id, force, ctx.clock.steady_ms());
  co_return co_await carry_out(ctx, req, id, std::move(decision), [&](const room*) {
    return json_response(req, bhttp::status::ok, json_object().str("removed", id).done());
  });
}

task<response> audit(context& ctx, const request& req, std::string_view room_id) {
  std::string id(room_id);
  if (!ctx.rooms.find(id) && !ctx.rooms.retired(id)) co_return unknown_room(req, id);
  auto after = number_param(req, "after_seq", 0);
  auto limit = number_param(req, "limit", default_audit_limit);
  // The store reads from after_seq + 1, which must not wrap.
  if (!after || *after > max_audit_after_seq) {
    co_return problem(req, errc::bad_request,
                      fmt::format("after_seq is a seq from a previous line, from 0 to {}.", max_audit_after_seq),
                      {{"parameter", R"("after_seq")"}});
  }
  if (!limit || *limit == 0 || *limit > max_audit_limit) {
    co_return problem(req, errc::bad_request, fmt::format("limit is from 1 to {}.", max_audit_limit),
                      {{"parameter", R"("limit")"}});
  }
  // The log is read in bounded batches, each its own storage request, so that group
  // commits go on between them however long the log is.
  std::string lines;
  std::uint64_t count = 0;
  std::uint64_t seq = *after;
  for (;;) {
    auto batch = co_await read_events(ctx, seq, audit_batch);
    if (!batch) co_return unavailable(req);
    std::vector<std::pair<std::uint64_t, event>> events;
    std::vector<std::string> outcome_keys;
    for (const auto& bytes : batch->events) {
      ++seq;
      auto e = decode_event(bytes);
      if (!e || room_of(*e) != id) continue;
      if (has_hold_outcome(*e)) outcome_keys.push_back(journal::hold_outcome_key(id, seq));
      events.emplace_back(seq, std::move(*e));
      if (count + events.size() == *limit) break;
    }
    // What each hold event did, from its side record.
    std::vector<std::optional<std::string>> outcomes;
    if (!outcome_keys.empty()) {
      auto stored = co_await read_side_records(ctx, std::move(outcome_keys));
      if (!stored) co_return unavailable(req);
      outcomes = std::move(*stored);
    }
    std::size_t next_outcome = 0;
    for (const auto& [at, e] : events) {
      std::optional<hold_outcome> outcome;
      if (has_hold_outcome(e)) outcome = journal::read_hold_outcome(outcomes[next_outcome++]);
      // Found again after each read: the room may be removed meanwhile.
      lines += audit_record(at, e, outcome, ctx.rooms.find(id));
      lines += '\n';
      ++count;
    }
    if (count == *limit || batch->events.size() < audit_batch) break;
  }
  co_return private_text(req, "application/x-ndjson", std::move(lines));
}

task<response> change_state(context& ctx, const request& req, const room& r, room_state target) {
  if (!r.allows(target)) {
    co_return problem(req, errc::not_allowed,
                      fmt::format("A room that is {} cannot become {}.", to_string(r.state()), to_string(target)));
  }
  std::string id = r.config().id;
  event e = state_changed{id, target, ctx.clock.steady_ms()};
  co_return co_await apply(ctx, req, std::move(id), std::move(e));
}

task<response> recount_seats(context& ctx, const request& req, const room& r) {
  std::string id = r.config().id;
  auto decision = foyer::recount_seats(ctx.rooms, id, ctx.clock.steady_ms());
  co_return co_await carry_out(ctx, req, id, std::move(decision), [&](const room* now) {
    if (!now) return unknown_room(req, id);
    // Decided again when it applied: holds confirmed meanwhile may not fit.
    if (now->seats().frozen()) return refused(req, recount_refusal(id, now->seats().recounted()));
    return json_response(req, bhttp::status::ok, inventory_json(now->seats()));
  });
}

task<response> close_lobby(context& ctx, const request& req, const room& r) {
  if (r.state() != room_state::lobby) co_return problem(req, errc::not_in_lobby, "The lobby is not open.");
  std::string id = r.config().id;
  event e = lobby_closed{id, ctx.clock.steady_ms()};
  co_return co_await apply(ctx, req, std::move(id), std::move(e));
}

task<response> supply_beacon(context& ctx, const request& req, const room& r) {
  if (r.state() != room_state::drawing || r.beacon()) {
    co_return problem(req, errc::not_drawing,
                      r.beacon() ? "The room has its beacon; the draw waits for its witnesses."
                                 : "A beacon is taken only after the lobby closed and before the draw.");
  }
  std::string_view hex;
  auto doc = ctx.json_parser.iterate(padded(ctx, req.body()));
  if (doc.error() || doc["value"].get_string().get(hex) || !from_hex(hex) || hex.empty() || hex.size() > 1024) {
    co_return problem(req, errc::bad_beacon, "Send {\"value\": \"<hex bytes of the public random value>\"}.");
  }
  auto bytes = *from_hex(hex);
  // A drand room takes its committed round's signature, as a relay would give it.
  if (r.beacon_kind() == ledger::beacon_kind::drand_quicknet && bytes.size() != 48) {
    co_return problem(req, errc::bad_beacon,
                      fmt::format("Send the signature of drand quicknet round {} (48 bytes, 96 hex digits).",
                                  r.committed() ? r.committed()->round : 0));
  }
  std::string id = r.config().id;
  event e = beacon_supplied{id, std::string(as_chars(bytes)), ctx.clock.steady_ms()};
  co_return co_await apply(ctx, req, std::move(id), std::move(e));
}

namespace {

constexpr std::string_view codes_usage =
    "Send {\"batch\": \"members-1\", \"lane\": \"members\", \"count\": 500} to generate codes, or "
    "{\"batch\", \"lane\", \"sha256\": [\"<hex SHA-256 of a code>\", ...]} to upload their digests; "
    "\"uses_per_code\" (default 1) lets that many accounts use each code.";

// The body of a batch: its digests, generated or uploaded, and the codes it generated.
std::optional<std::pair<codes_added, std::vector<std::string>>> read_batch(context& ctx, const request& req, std::string_view room_id) {
  codes_added batch;
  batch.room = room_id;
  // The batch's time is the event's: the audit, its CloudEvent and the batch's created_at.
  batch.at_ms = ctx.clock.steady_ms();
  std::uint64_t count = 0;
  bool uploaded = false;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  if (ctx.json_parser.iterate(padded(ctx, req.body())).get(doc) || doc.get_object().get(object)) return std::nullopt;
  for (auto field : object) {
    std::string_view key, text;
    if (field.unescaped_key().get(key)) return std::nullopt;
    if (key == "batch" || key == "lane") {
      if (field.value().get_string().get(text) || text.size() > code_book::max_id) return std::nullopt;
      (key == "batch" ? batch.batch : batch.lane) = text;
    } else if (key == "uses_per_code" || key == "count") {
      std::uint64_t n = 0;
      if (field.value().get_uint64().get(n) || n > code_book::max_codes_per_batch) return std::nullopt;
      if (key == "count") count = n;
      else batch.uses_per_code = static_cast<std::uint32_t>(n);
    } else if (key == "sha256") {
      simdjson::ondemand::array list;
      if (field.value().get_array().get(list)) return std::nullopt;
      uploaded = true;
      for (auto item : list) {
        auto code = item.get_string().get(text) ? std::nullopt : parse_code_digest(text);
        if (!code || batch.codes.size() == code_book::max_codes_per_batch) return std::nullopt;
        batch.codes.push_back(*code);
      }
    } else {
      return std::nullopt;
    }
  }
  if (batch.batch.empty() || batch.lane.empty() || uploaded == (count > 0)) return std::nullopt;
  std::vector<std::string> generated;
  for (std::uint32_t i = 0; i < count; ++i) {
    generated.push_back(derived_code(ctx.settings.code_key, room_id, batch.batch, i));
    batch.codes.push_back(code_digest(*normalize_code(generated.back())));
  }
  return std::pair{std::move(batch), std::move(generated)};
}

std::string batch_json(const code_batch& b) {
  return json_object()
      .str("batch", b.id)
      .str("lane", b.lane)
      .num("uses_per_code", b.uses_per_code)
      .num("created_at", seconds(b.created_at_ms))
      .boolean("revoked", b.revoked_at_ms.has_value())
      .num("codes", std::uint64_t{b.codes.size()})
      .num("codes_redeemed", b.codes_redeemed)
      .num("redemptions", b.redemptions)
      .num("codes_revoked", b.codes_revoked)
      .done();
}

}  // namespace

task<response> add_codes(context& ctx, const request& req, const room& r) {
  std::string id = r.config().id;
  auto read = read_batch(ctx, req, id);
  if (!read) co_return problem(req, errc::bad_body, codes_usage);
  // Named, not bound: a lambda below uses `generated`, which clang 14 refuses of a binding.
  codes_added batch = std::move(read->first);
  std::vector<std::string> generated = std::move(read->second);
  std::string batch_id = batch.batch;
  auto decision = foyer::add_codes(ctx.rooms, std::move(batch));
  co_return co_await carry_out(ctx, req, id, std::move(decision), [&](const room* now) {
    const code_batch* b = now ? now->codes().batch(batch_id) : nullptr;
    if (!b) return unknown_room(req, id);
    std::string body = batch_json(*b);
    if (!generated.empty()) {
      // Shown here, and again by the export: Foyer derives them, it does not store them.
      std::string codes = "[";
      for (const auto& code : generated) {
        if (codes.size() > 1) codes += ',';
        codes += json_quote(code);
      }
      body.pop_back();
      body += ",\"generated\":" + codes + "]}";
    }
    return json_response(req, bhttp::status::created, std::move(body));
  });
}

response code_batches(const request& req, const room& r) {
  std::string list = "[";
  for (const auto& b : r.codes().batches()) {
    if (list.size() > 1) list += ',';
    list += batch_json(b);
  }
  return json_response(req, bhttp::status::ok, json_object().raw("batches", list + "]").done());
}

response export_codes(const context& ctx, const request& req, const room& r, std::string_view batch_id) {
  const auto* b = r.codes().batch(batch_id);
  if (!b) return problem(req, errc::unknown_code_batch, fmt::format("Room '{}' has no batch '{}'.", r.config().id, batch_id));
  std::string csv = "code,sha256,uses,first_redeemed_at,revoked\r\n";
  for (std::uint32_t i = 0; i < b->codes.size(); ++i) {
    const auto& digest = b->codes[i];
    // A generated batch's codes are derived again; an uploaded one's are not known here.
    auto code = derived_code(ctx.settings.code_key, r.config().id, b->id, i);
    if (code_digest(*normalize_code(code)) != digest) code.clear();
    const auto* c = r.codes().find(digest);
    auto uses = c ? c->uses() : 0;
    auto first = uses > 0 ? format_rfc3339_ms(c->redemptions.front().at_ms) : "";
    bool revoked = b->revoked_at_ms || (c && c->revoked_at_ms);
    csv += fmt::format("{},{},{},{},{}\r\n", code, to_hex(digest), uses, first, revoked ? "true" : "false");
  }
  return private_text(req, "text/csv; charset=utf-8", std::move(csv));
}

task<response> revoke_codes(context& ctx, const request& req, const room& r, std::string_view batch_id) {
  std::string id = r.config().id;
  codes_revoked revocation{id, std::string(batch_id), std::nullopt, ctx.clock.steady_ms()};
  if (auto typed = query_param(req.target(), "code")) {
    auto code = normalize_code(*typed);
    if (!code) co_return problem(req, errc::bad_request, "code is an access code, e.g. 7KQ2-M9XD-4WTF-H3NB.", {{"parameter", R"("code")"}});
    revocation.code = code_digest(*code);
  } else if (auto hex = query_param(req.target(), "sha256")) {
    revocation.code = parse_code_digest(*hex);
    if (!revocation.code) co_return problem(req, errc::bad_request, "sha256 is 64 hex digits.", {{"parameter", R"("sha256")"}});
  }
  auto decision = foyer::revoke_codes(ctx.rooms, std::move(revocation));
  std::string batch(batch_id);
  co_return co_await carry_out(ctx, req, id, std::move(decision), [&](const room* now) {
    const code_batch* b = now ? now->codes().batch(batch) : nullptr;
    if (!b) return unknown_room(req, id);
    return json_response(req, bhttp::status::ok, batch_json(*b));
  });
}

}  // namespace foyer::http::handlers
