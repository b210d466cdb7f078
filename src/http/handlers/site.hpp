#pragma once
// The site's calls about one room, with "Authorization: Bearer <site token>" (or the
// admin token):
//   POST .../stock        {"consumed": n} | {"released": n} | {"remaining": n}, with an
//                         Idempotency-Key: the stock left and the room's state
//   POST .../passes/done  {"passes": ["<jti>", ...]}: those visitors' slots free at once
//   POST .../signals      {"p95_ms": x, "error_rate": y}: the adaptive rate's input

#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

// The answer to give if the request does not carry the site's or the admin's token.
std::optional<response> site_check(const context& ctx, const request& req);

task<response> report_stock(context& ctx, const request& req, const room& r);
task<response> report_done(context& ctx, const request& req, const room& r);
response report_signals(context& ctx, const request& req, const room& r);

}  // namespace foyer::http::handlers
