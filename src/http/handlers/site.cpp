#include "http/handlers/site.hpp"

#include <boost/beast/http/field.hpp>

#include "core/base/crypto.hpp"
#include "core/base/json.hpp"
#include "core/rooms/site_reports.hpp"
#include "http/handlers/desk_runner.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

constexpr std::uint64_t max_stock_amount = std::uint64_t{1} << 48;
constexpr std::size_t max_passes_per_report = 10'000;

bool token_matches(std::string_view given, const std::string& expected) {
  return !expected.empty() && equal_constant_time(as_bytes(given), as_bytes(expected));
}

response stock_response(const request& req, const stock_receipt& receipt) {
  json_object body;
  if (receipt.remaining) {
    body.num("remaining", *receipt.remaining);
  } else {
    body.null("remaining");
  }
  return json_response(req, bhttp::status::ok, body.str("state", to_string(receipt.state)).done());
}

}  // namespace

std::optional<stock_report> parse_stock(simdjson::ondemand::parser& parser, simdjson::padded_string_view text) {
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  if (parser.iterate(text).get(doc) || doc.get_object().get(object)) return std::nullopt;
  std::optional<stock_report> report;
  for (auto field : object) {
    std::string_view key;
    std::uint64_t amount = 0;
    if (report || field.unescaped_key().get(key) || field.value().get_uint64().get(amount) ||
        amount > max_stock_amount) {
      return std::nullopt;
    }
    if (key == "consumed") report = stock_report{stock_change::consumed, amount};
    else if (key == "released") report = stock_report{stock_change::released, amount};
    else if (key == "remaining") report = stock_report{stock_change::remaining, amount};
    else return std::nullopt;
  }
  return report;
}

std::optional<std::vector<id16>> parse_done(simdjson::ondemand::parser& parser, simdjson::padded_string_view text) {
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  simdjson::ondemand::array list;
  if (parser.iterate(text).get(doc) || doc.get_object().get(object) ||
      object.find_field_unordered("passes").get_array().get(list)) {
    return std::nullopt;
  }
  std::vector<id16> passes;
  for (auto item : list) {
    std::string_view jti;
    if (item.get_string().get(jti) || passes.size() == max_passes_per_report) return std::nullopt;
    auto id = from_hex_fixed<16>(jti);
    if (!id) return std::nullopt;
    passes.push_back(*id);
  }
  return passes;
}

std::optional<site_signal> parse_signals(simdjson::ondemand::parser& parser, simdjson::padded_string_view text) {
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  if (parser.iterate(text).get(doc) || doc.get_object().get(object)) return std::nullopt;
  site_signal signal;
  for (auto field : object) {
    std::string_view key;
    double value = 0;
    if (field.unescaped_key().get(key) || field.value().get_double().get(value)) return std::nullopt;
    if (key == "p95_ms" && value >= 0 && value <= 3'600'000) signal.p95_ms = value;
    else if (key == "error_rate" && value >= 0 && value <= 1) signal.error_rate = value;
    else return std::nullopt;
  }
  if (!signal.p95_ms && !signal.error_rate) return std::nullopt;
  return signal;
}

std::optional<response> site_check(const context& ctx, const request& req) {
  const auto& s = ctx.settings;
  if (s.site_token.empty() && s.admin_token.empty()) {
    return problem(req, errc::site_calls_off, "The site's calls are off: set server.site_token to enable them.");
  }
  auto token = bearer(req);
  // Both compared, whichever matches: the time taken says nothing about either token.
  bool site = token && token_matches(*token, s.site_token);
  bool admin = token && token_matches(*token, s.admin_token);
  if (!site && !admin) {
    return problem(req, errc::site_token_required, "Send the site token as 'Authorization: Bearer <token>'.");
  }
  return std::nullopt;
}

task<response> report_stock(context& ctx, const request& req, const room& r) {
  if (auto denied = site_check(ctx, req)) co_return std::move(*denied);
  auto key = idempotency_key(req);
  if (auto* bad = std::get_if<response>(&key)) co_return std::move(*bad);
  auto report = parse_stock(ctx.json_parser, padded(ctx, req.body()));
  if (!report) {
    co_return problem(req, errc::bad_body,
                      "The body must be one of {\"consumed\": n}, {\"released\": n} or {\"remaining\": n}, with n a whole number.");
  }
  std::string key_text = std::get<std::string>(std::move(key));
  // Built before the co_await: GCC 12 mishandles temporaries with destructors inside one.
  stock_decision first = decide_stock(r, key_text, *report, ctx.clock.steady_ms());
  auto again = decide_again(ctx, r.config().id, [key_text, report = *report](const room& now) {
    return stock_answer(now, key_text, report);
  });
  auto answer = [&req](const stock_receipt& receipt) { return stock_response(req, receipt); };
  co_return co_await carry(ctx, req, std::move(first), std::move(again), answer);
}

task<response> report_done(context& ctx, const request& req, const room& r) {
  if (auto denied = site_check(ctx, req)) co_return std::move(*denied);
  auto bad_body = [&req] {
    return problem(req, errc::bad_body, "The body must be {\"passes\": [\"<jti>\", ...]}, each jti as the pass carries it.");
  };
  auto passes = parse_done(ctx.json_parser, padded(ctx, req.body()));
  if (!passes) co_return bad_body();
  std::string id = r.config().id;
  auto done = decide_done(r, *passes, ctx.clock.steady_ms());
  std::size_t freed = done ? done->places.size() : 0;
  if (done) {
    event e = std::move(*done);
    auto [ec, outcome] = co_await commit(ctx, std::move(e));
    if (ec) co_return unavailable(req);
  }
  const room* now = ctx.rooms.find(id);
  if (!now) co_return unknown_room(req, id);
  co_return json_response(req, bhttp::status::ok,
                          json_object()
                              .num("done", std::uint64_t{freed})
                              .num("active", now->active(ctx.clock.steady_ms()))
                              .done());
}

response report_signals(context& ctx, const request& req, const room& r) {
  if (auto denied = site_check(ctx, req)) return std::move(*denied);
  auto bad_body = [&req] {
    return problem(req, errc::bad_body,
                   "The body must be {\"p95_ms\": x, \"error_rate\": y}: either field, x ≥ 0 and y from 0 to 1.");
  };
  auto signal = parse_signals(ctx.json_parser, padded(ctx, req.body()));
  if (!signal) return bad_body();
  signal->at_ms = ctx.clock.steady_ms();
  ctx.rates.report(r.config().id, *signal);
  return json_response(req, bhttp::status::accepted, json_object().str("status", "accepted").done());
}

}  // namespace foyer::http::handlers
