#pragma once
// For the machines around Foyer:
//   GET /.well-known/jwks.json   the keys passes are signed with, for offline checks
//   GET /.well-known/foyer.json  {issuer, jwks_uri, rooms}: what a guard or a site needs
//                                to check passes, in one place
//   GET /metrics                 Prometheus text (core/ops/metrics.hpp)
//   GET /healthz                 {"status":"ok"}: the process is alive
//   GET /readyz                  {"status":"ready"}, or 503 not_ready with the reason: no
//                                write succeeded lately, or joins are refused (overload)
//   GET /api/v1/admin/ops        (admin token) totals and the ladder's level, for the console

#include "core/ops/metrics.hpp"
#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

response jwks(const context& ctx, const request& req);
response discovery(const context& ctx, const request& req);
response metrics(const ops::metrics_registry& registry, const request& req);
// The rooms' funnel (joined, served, waiting, rate) and the refused proofs by reason.
void collect_rooms(const context& ctx, ops::metrics_writer& w);
response healthz(const request& req);
response readyz(const context& ctx, const request& req);
response ops_status(const context& ctx, const request& req);

}  // namespace foyer::http::handlers
