#pragma once
// For the machines around Foyer:
//   GET /.well-known/jwks.json   the keys passes are signed with, for offline checks
//   GET /metrics                 Prometheus text: room gauges, why proofs were refused, sinks
//   GET /healthz                 {"status":"ok"}

#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

response jwks(const context& ctx, const request& req);
response metrics(const context& ctx, const request& req);
response healthz(const request& req);

}  // namespace foyer::http::handlers
