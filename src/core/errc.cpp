#include "core/errc.hpp"

#include <string>

namespace foyer {
namespace {

class category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "foyer"; }
  // The code string: it names the error as clients see it.
  std::string message(int value) const override { return std::string(to_string(static_cast<errc>(value))); }
};

}  // namespace

std::string_view to_string(errc e) {
  switch (e) {
    case errc::missing_ticket: return "missing_ticket";
    case errc::invalid_ticket: return "invalid_ticket";
    case errc::ticket_for_other_room: return "ticket_for_other_room";
    case errc::ticket_lost_in_restore: return "ticket_lost_in_restore";
    case errc::bad_join_body: return "bad_join_body";
    case errc::proof_rejected: return "proof_rejected";
    case errc::account_hints_off: return "account_hints_off";
    case errc::bad_account_hint: return "bad_account_hint";
    case errc::join_in_progress: return "join_in_progress";
    case errc::price_rose: return "price_rose";
    case errc::account_required: return "account_required";
    case errc::invalid_code: return "invalid_code";
    case errc::code_required: return "code_required";
    case errc::code_batch_exists: return "code_batch_exists";
    case errc::unknown_code_batch: return "unknown_code_batch";
    case errc::invite_required: return "invite_required";
    case errc::agent_window: return "agent_window";
    case errc::invite_keys_unavailable: return "invite_keys_unavailable";
    case errc::sold_out: return "sold_out";
    case errc::closed: return "closed";
    case errc::unknown_room: return "unknown_room";
    case errc::bad_index: return "bad_index";
    case errc::lobby_open: return "lobby_open";
    case errc::no_such_entrant: return "no_such_entrant";
    case errc::unknown_lane: return "unknown_lane";
    case errc::proof_unavailable: return "proof_unavailable";
    case errc::admin_disabled: return "admin_disabled";
    case errc::admin_token_required: return "admin_token_required";
    case errc::not_in_lobby: return "not_in_lobby";
    case errc::not_drawing: return "not_drawing";
    case errc::bad_beacon: return "bad_beacon";
    case errc::not_allowed: return "not_allowed";
    case errc::invalid_room: return "invalid_room";
    case errc::bad_body: return "bad_body";
    case errc::room_exists: return "room_exists";
    case errc::room_id_used: return "room_id_used";
    case errc::change_refused: return "change_refused";
    case errc::visitors_waiting: return "visitors_waiting";
    case errc::room_removed: return "room_removed";
    case errc::site_calls_off: return "site_calls_off";
    case errc::site_token_required: return "site_token_required";
    case errc::idempotency_key_required: return "idempotency_key_required";
    case errc::idempotency_key_reused: return "idempotency_key_reused";
    case errc::stock_unknown: return "stock_unknown";
    case errc::not_found: return "not_found";
    case errc::method_not_allowed: return "method_not_allowed";
    case errc::unsupported_media_type: return "unsupported_media_type";
    case errc::bad_request: return "bad_request";
    case errc::headers_too_large: return "headers_too_large";
    case errc::body_too_large: return "body_too_large";
    case errc::request_timeout: return "request_timeout";
    case errc::too_many_connections: return "too_many_connections";
    case errc::storage_unavailable: return "storage_unavailable";
    case errc::overloaded: return "overloaded";
    case errc::not_ready: return "not_ready";
    case errc::no_inventory: return "no_inventory";
    case errc::inventory_frozen: return "inventory_frozen";
    case errc::pass_required: return "pass_required";
    case errc::live_hold_exists: return "live_hold_exists";
    case errc::unknown_hold: return "unknown_hold";
    case errc::hold_not_held: return "hold_not_held";
    case errc::hold_extended_already: return "hold_extended_already";
    case errc::invalid_route: return "invalid_route";
    case errc::waitlist_offered: return "waitlist_offered";
    case errc::seats_per_pass_exceeded: return "seats_per_pass_exceeded";
    case errc::seats_per_account_exceeded: return "seats_per_account_exceeded";
    case errc::too_many_requests: return "too_many_requests";
    case errc::notifications_off: return "notifications_off";
    case errc::bad_contact: return "bad_contact";
    case errc::too_many_contacts: return "too_many_contacts";
    case errc::contact_taken: return "contact_taken";
    case errc::too_many_opt_ins: return "too_many_opt_ins";
    case errc::invalid_confirmation_link: return "invalid_confirmation_link";
    case errc::invalid_resume_link: return "invalid_resume_link";
    case errc::resume_link_revoked: return "resume_link_revoked";
    case errc::resume_links_used_up: return "resume_links_used_up";
    case errc::cross_site: return "cross_site";
    case errc::internal_error: return "internal_error";
  }
  return "unknown";
}

const std::error_category& foyer_category() {
  static const category instance;
  return instance;
}

}  // namespace foyer
