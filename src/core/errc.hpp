#pragma once
// Every error Foyer answers a request with, as one enum that is a std::error_code. Its
// code string (to_string) is what clients match on: a value may be added, never renamed.
// http/problem.hpp maps each to an HTTP status and a problem-details body.

#include <string_view>
#include <system_error>
#include <type_traits>

namespace foyer {

// Values run from 1 (0 is success, as for every error_code) with no gaps, and
// internal_error stays last: tests walk them all.
enum class errc {
  // Visitors: tickets, joins and proofs.
  missing_ticket = 1,
  invalid_ticket,
  ticket_for_other_room,
  ticket_lost_in_restore,  // issued after the backup the server was restored from
  bad_join_body,
  proof_rejected,
  account_hints_off,
  bad_account_hint,
  join_in_progress,
  price_rose,        // the challenge was minted cheaper than the network pays now
  account_required,  // the room takes joins with an account hint only
  invalid_code,      // an access code that is unknown, revoked, used up or another's: one answer for all
  code_required,     // the room's open lanes take nobody: join with an access code
  code_batch_exists,  // the batch id is taken by a batch of other codes
  unknown_code_batch,
  invite_required,  // the room takes invited visitors only
  agent_window,     // an agent's invite, in the room's first minutes
  invite_keys_unavailable,  // the site's keys are fetched by URL, and no fetch was good yet
  sold_out,  // the room's state: no more joins
  closed,    // the room's state: no more joins
  // Rooms and their lottery.
  unknown_room,
  bad_index,
  lobby_open,
  no_such_entrant,
  unknown_lane,  // no lane of that id draws in the room
  proof_unavailable,
  // Operators.
  admin_disabled,
  admin_token_required,
  not_in_lobby,
  not_drawing,
  bad_beacon,
  not_allowed,
  invalid_room,    // a field failed validation
  bad_body,        // not a JSON object, or a field of the wrong type
  room_exists,
  room_id_used,    // the id belonged to a room that was removed
  change_refused,  // a config change would alter what visitors hold
  visitors_waiting,
  room_removed,
  // The site's calls: stock, passes done, signals.
  site_calls_off,
  site_token_required,
  idempotency_key_required,
  idempotency_key_reused,  // the same key came with another body
  stock_unknown,           // a change was reported before any stock was known
  // Requests as HTTP.
  not_found,
  method_not_allowed,
  unsupported_media_type,
  bad_request,
  headers_too_large,
  body_too_large,
  request_timeout,
  too_many_connections,
  storage_unavailable,
  // The degradation ladder and readiness (core/ops/overload.hpp).
  overloaded,  // shed at a level of the ladder
  not_ready,   // /readyz: the reason is in the body
  // Holds on a room's seats.
  no_inventory,      // the room has no seats to hold
  inventory_frozen,  // the seat ledger's invariant failed: holds are refused
  pass_required,     // a visitor's call without a valid pass of this room
  live_hold_exists,  // one live hold per visitor
  unknown_hold,
  hold_not_held,     // the hold is no longer held (confirmed, released, expired)
  hold_extended_already,
  invalid_route,  // a hold's stations: named without legs, missing, unknown or reversed
  waitlist_offered,  // a placement waits in line for seats that may come back
  seats_per_pass_exceeded,  // a placement would take the pass past max_seats_per_pass
  seats_per_account_exceeded,  // a placement would take the account past its event's max_seats_per_account
  too_many_requests,        // a pass past its request budget on the holds endpoints
  // "Your turn" notifications.
  notifications_off,  // no channel is configured ([notifications])
  bad_contact,        // a push subscription or email address that can't be used
  too_many_contacts,  // the room holds as many contacts as it may
  contact_taken,      // the ticket gave another address in this room: one address per ticket
  too_many_opt_ins,   // the client's network opted in as often as it may for now
  invalid_confirmation_link,  // a notice confirmation link this server did not make for the room
  // Resume links ("Keep my place").
  invalid_resume_link,   // malformed, or its signature does not match
  resume_link_revoked,   // revoked, or replaced by a newer link
  resume_links_used_up,  // the ticket made as many links as one may
  cross_site,            // a form posted from another site than the server's public address
  internal_error,
};

// The code string: "unknown_room".
std::string_view to_string(errc e);

const std::error_category& foyer_category();
inline std::error_code make_error_code(errc e) { return {static_cast<int>(e), foyer_category()}; }

}  // namespace foyer

template <>
struct std::is_error_code_enum<foyer::errc> : std::true_type {};
