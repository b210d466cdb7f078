#pragma once
// `foyer guard`: checks visitors' passes for nginx auth_request with the public keys alone.
// It never calls Foyer per request; if Foyer stops, visitors holding passes keep going.
//
//   foyer guard (--foyer URL [--issuer ISS] | --jwks FILE|URL --issuer ISS) --room ROOM
//               --login-url URL [--listen HOST:PORT] [--leeway S] [--refresh S] [--single-use]
//               [--secure-cookie] [--cache-size N] [--single-use-capacity N]
//
// --foyer: the issuer and the JWKS's location come from the server's discovery document
// (app/guard_discovery.hpp), read once at start under the same rules as a JWKS URL. A given
// --issuer that differs from the server's, or a --room the server does not list, stops the
// start with both values: every pass would be refused.
//
// Keys: a JWKS file, or Foyer's https://.../.well-known/jwks.json (the certificate checked
// against the system's trusted roots, which SSL_CERT_FILE can replace), or http:// to a
// loopback or private address only. Either is capped at 64 KiB: a larger file is
// refused unread. Loaded at start (a start without keys fails), then re-read every --refresh
// seconds and early when a pass names an unknown kid (at most every 10 s); a failed or
// refused refresh keeps the last good set and says why on stderr. Ed25519
// (EdDSA) and P-256 (ES256) keys are both loaded; each kid accepts only its own algorithm.
// The HTTP endpoints are described in http/guard_handler.hpp; packaging/nginx/ has the
// nginx side. Bad options are printed and thrown as CLI::RuntimeError(1).

#include <CLI/CLI.hpp>

namespace foyer::app {

void add_guard_command(CLI::App& app);

}  // namespace foyer::app
