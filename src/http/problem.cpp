#include "http/problem.hpp"

#include <boost/beast/http/field.hpp>

#include "core/base/json.hpp"

namespace foyer::http {

namespace bhttp = beast::http;

problem_type type_of(errc e) {
  switch (e) {
    case errc::missing_ticket: return {401, "Ticket required"};
    case errc::invalid_ticket: return {401, "Invalid ticket"};
    case errc::ticket_for_other_room: return {403, "Ticket for another room"};
    case errc::ticket_lost_in_restore: return {401, "Ticket lost in a restore"};
    case errc::bad_join_body: return {400, "Malformed join"};
    case errc::proof_rejected: return {403, "Proof of work refused", 1};
    case errc::account_hints_off: return {400, "Account hints are off"};
    case errc::bad_account_hint: return {403, "Account hint refused"};
    case errc::join_in_progress: return {409, "Join in progress", 1};
    case errc::price_rose: return {409, "Price rose"};
    case errc::account_required: return {403, "Account required"};
    case errc::invalid_code: return {403, "Access code not accepted"};
    case errc::code_required: return {403, "Access code required"};
    case errc::code_batch_exists: return {409, "Code batch exists"};
    case errc::unknown_code_batch: return {404, "Unknown code batch"};
    case errc::invite_required: return {403, "Invite required"};
    case errc::agent_window: return {403, "Not yet open to agents"};
    case errc::invite_keys_unavailable: return {503, "Invite keys unavailable", 5};
    case errc::sold_out: return {410, "Sold out"};
    case errc::closed: return {410, "Room closed"};
    case errc::unknown_room: return {404, "Unknown room"};
    case errc::bad_index: return {400, "Bad lobby index"};
    case errc::lobby_open: return {409, "Lobby still open"};
    case errc::no_such_entrant: return {404, "No such entrant"};
    case errc::unknown_lane: return {404, "No such lane draw"};
    case errc::proof_unavailable: return {503, "Proof not written yet"};
    case errc::admin_disabled: return {404, "Admin API off"};
    case errc::admin_token_required: return {401, "Admin token required"};
    case errc::not_in_lobby: return {409, "Lobby not open"};
    case errc::not_drawing: return {409, "Not awaiting a beacon"};
    case errc::bad_beacon: return {400, "Malformed beacon"};
    case errc::not_allowed: return {409, "State change not allowed"};
    case errc::invalid_room: return {422, "Invalid room"};
    case errc::bad_body: return {400, "Malformed body"};
    case errc::room_exists: return {409, "Room exists"};
    case errc::room_id_used: return {409, "Room id used before"};
    case errc::change_refused: return {409, "Change refused"};
    case errc::visitors_waiting: return {409, "Visitors waiting"};
    case errc::room_removed: return {410, "Room removed"};
    case errc::site_calls_off: return {404, "Site calls off"};
    case errc::site_token_required: return {401, "Site token required"};
    case errc::idempotency_key_required: return {400, "Idempotency-Key required"};
    case errc::idempotency_key_reused: return {422, "Idempotency-Key reused"};
    case errc::stock_unknown: return {409, "Stock unknown"};
    case errc::not_found: return {404, "Not found"};
    case errc::method_not_allowed: return {405, "Method not allowed"};
    case errc::unsupported_media_type: return {415, "Unsupported media type"};
    case errc::bad_request: return {400, "Bad request"};
    case errc::headers_too_large: return {431, "Headers too large"};
    case errc::body_too_large: return {413, "Body too large"};
    case errc::request_timeout: return {408, "Request timeout"};
    case errc::too_many_connections: return {503, "Too many connections", 5};
    case errc::storage_unavailable: return {503, "Storage unavailable", 2};
    // A visitor turned away by the ladder loses nothing by waiting: half a minute spreads
    // the crowd's returns well past a short overload.
    case errc::overloaded: return {503, "Overloaded", 30};
    case errc::not_ready: return {503, "Not ready", 5};
    case errc::no_inventory: return {404, "No seats to hold"};
    case errc::inventory_frozen: return {503, "Holds frozen"};
    case errc::pass_required: return {401, "Pass required"};
    case errc::live_hold_exists: return {409, "Live hold exists"};
    case errc::unknown_hold: return {404, "Unknown hold"};
    case errc::hold_not_held: return {409, "Hold not held"};
    case errc::hold_extended_already: return {409, "Hold extended already"};
    case errc::invalid_route: return {422, "Invalid route"};
    case errc::waitlist_offered: return {409, "Waitlisted"};
    case errc::seats_per_pass_exceeded: return {409, "Seats per pass exceeded"};
    case errc::seats_per_account_exceeded: return {409, "Seats per account exceeded"};
    case errc::too_many_requests: return {429, "Too many requests", 1};
    case errc::notifications_off: return {404, "Notifications off"};
    case errc::bad_contact: return {422, "Bad contact"};
    case errc::too_many_contacts: return {503, "Too many contacts", 60};
    case errc::contact_taken: return {409, "Contact taken"};
    case errc::too_many_opt_ins: return {429, "Too many opt-ins", 60};
    case errc::invalid_confirmation_link: return {404, "Invalid confirmation link"};
    case errc::invalid_resume_link: return {404, "Invalid resume link"};
    case errc::resume_link_revoked: return {410, "Resume link revoked"};
    case errc::resume_links_used_up: return {409, "Resume links used up"};
    case errc::cross_site: return {403, "Cross-site request"};
    case errc::internal_error: return {500, "Internal error"};
  }
  return {500, "Internal error"};
}

namespace {

response make_problem(unsigned version, bool keep_alive, unsigned status, std::string_view code,
                      std::string_view title, std::string_view detail, std::span<const problem_member> extensions) {
  std::string type = "urn:foyer:problem:";
  type += code;
  json_object body;
  body.str("type", type)
      .str("title", title)
      .num("status", std::uint64_t{status})
      .str("detail", detail)
      .str("error", code)
      .str("message", detail);
  for (const auto& member : extensions) body.raw(member.name, member.json);
  response res{static_cast<bhttp::status>(status), version};
  res.set(bhttp::field::content_type, "application/problem+json");
  res.set(bhttp::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.body() = body.done();
  res.keep_alive(keep_alive);
  return res;
}

response typed_problem(unsigned version, bool keep_alive, errc e, std::string_view detail,
                       std::span<const problem_member> extensions) {
  auto type = type_of(e);
  auto res = make_problem(version, keep_alive, type.status, to_string(e), type.title, detail, extensions);
  if (type.retry_after_s) res.set(bhttp::field::retry_after, std::to_string(type.retry_after_s));
  return res;
}

}  // namespace

response problem(const request& req, errc e, std::string_view detail,
                 std::initializer_list<problem_member> extensions) {
  return typed_problem(req.version(), req.keep_alive(), e, detail, {extensions.begin(), extensions.size()});
}

response problem(const request& req, errc e, std::string_view detail, std::span<const problem_member> extensions) {
  return typed_problem(req.version(), req.keep_alive(), e, detail, extensions);
}

response problem(unsigned version, bool keep_alive, errc e, std::string_view detail,
                 std::initializer_list<problem_member> extensions) {
  return typed_problem(version, keep_alive, e, detail, {extensions.begin(), extensions.size()});
}

response problem(unsigned version, bool keep_alive, unsigned status, std::string_view code, std::string_view title,
                 std::string_view detail, std::initializer_list<problem_member> extensions) {
  return make_problem(version, keep_alive, status, code, title, detail, {extensions.begin(), extensions.size()});
}

}  // namespace foyer::http
