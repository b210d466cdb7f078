#pragma once
// The HTTP side of `foyer guard`: answers nginx's auth_request subrequests and moves a pass
// from the URL the waiting room sent the visitor to into a cookie of the site's domain.
//
//   any method /auth    the pass from a foyer_pass cookie (each of the first 4 is tried, in
//                       order: a stale one may come first) or "Authorization: Bearer":
//                       204 with X-Foyer-Visitor (the pass's sub) and X-Foyer-Pass-Expires
//                       (its exp), or 401 with X-Foyer-Error (the refusal code). A site URL
//                       (X-Original-URI) carrying foyer_pass is refused too, so that it goes
//                       through /enter and the pass leaves the URL.
//   any method /enter   for requests /auth refused (nginx: error_page 401). The site URL is
//                       X-Original-URI, else the request's own target. If it carries a valid
//                       foyer_pass: 302 to its `next` parameter when that is a same-site path,
//                       else to the URL without foyer_pass when that is one, else to "/",
//                       setting the foyer_pass cookie (HttpOnly, SameSite=Lax, Max-Age = the
//                       pass's remaining life, Secure if configured). A spent single-use pass
//                       gets 403. Anything else: 302 to the waiting room (the login URL), with
//                       foyer_refused=<refusal code> added to its query when a pass was
//                       presented (in the URL, a cookie or the bearer) and refused: the
//                       waiting page names it if the visitor keeps coming back. A first
//                       visit, without any pass, goes to the login URL as it is.
//   GET /healthz        200 {"status":"ok","keys":[kids],"cached":N,"spent":N,"checks":N,
//                       "signature_checks":N}
//
// Each refused pass is logged with its code, once: at /auth, or at /enter for the pass in the
// URL (which /auth leaves to it). At most one line per code every 10 s (the steady clock);
// the next line for a code says how many were held back.
//
// Runs on the guard's one event-loop thread, as the gate requires.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <foyer/clock.hpp>

#include "core/ops/log_throttle.hpp"
#include "core/passes/pass_gate.hpp"
#include "http/server.hpp"

namespace foyer::http {

struct guard_settings {
  std::string login_url;       // Required: the room's waiting page, where refused visitors go
  bool secure_cookie = false;  // Default: false; set when the site is served over HTTPS
};

// A same-site path to redirect to, from a decoded `next` parameter or a site URL as nginx
// forwards it (path and query, still percent-encoded): at most 2 KiB of printable ASCII
// without backslashes, starting with one '/' and not with "//" or "/\" (which browsers read
// as another host), not even once its path is percent-decoded, as often as a layer behind
// the guard might, and read as URL parsers do (tabs and newlines dropped, '\' as '/', dot
// segments removed). Nullopt otherwise: no open redirects.
std::optional<std::string> same_site_path(std::string_view target);

class guard_handler {
 public:
  // `on_unknown_kid` runs when a pass names a key the guard does not know: new keys may
  // have been published since the last refresh. `log` writes a line (without its newline).
  guard_handler(pass::gate& gate, const clock& clock, guard_settings settings, std::function<void()> on_unknown_kid,
                std::function<void(std::string_view)> log);

  response handle(const request& req);

 private:
  response auth(const request& req);
  response enter(const request& req);
  response health(const request& req) const;
  // The first presented pass that is valid, else the first refusal; nullopt: none presented.
  std::optional<pass::gate_result> check_presented(const request& req, bool spend);
  pass::gate_result check(std::string_view token, bool spend);
  response redirect(const request& req, const std::string& location) const;
  // To the waiting room, saying why the pass was refused (`code` empty: no pass presented).
  response to_waiting_room(const request& req, std::string_view code) const;
  void log_refusal(std::string_view code);

  pass::gate& gate_;
  const clock& clock_;
  guard_settings settings_;
  std::function<void()> on_unknown_kid_;
  std::function<void(std::string_view)> log_;
  ops::log_throttle refusal_lines_;
  std::uint64_t checks_ = 0;
  std::uint64_t signature_checks_ = 0;
};

}  // namespace foyer::http
