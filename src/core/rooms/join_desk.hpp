#pragma once
// The join, decided without I/O, as Boost.MySQL's sans-I/O algorithms are: the handler
// reads the request into a join_request, asks decide(), carries out the step it is
// given (answer, or commit the event), and hands the commit's result to finish(). The
// room is found again by id at each step, since it may be removed in between.
//
// Single-threaded: owned by the event loop.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>

#include "core/desk.hpp"
#include "core/gate/join_price.hpp"
#include "core/gate/ticket.hpp"
#include "core/lanes/invite_token.hpp"
#include "core/lanes/site_keys.hpp"
#include "core/passes/pass_budget.hpp"
#include "core/rooms/journal.hpp"

namespace foyer {

struct join_request {
  std::string room_id;
  std::optional<ticket> presented;  // a good ticket of this room that the visitor holds
  std::string_view challenge, nonce;
  std::string_view account, account_hint;
  std::string_view code;    // an access code for a lane, as the visitor typed it
  std::string_view invite;  // an invite token the site signed (core/lanes/invite_token)
  // From the page without JavaScript: no proof, the room's no_script lane (core/rooms/no_script).
  bool no_script = false;
  ip_address address;                 // the client's, for its price
  std::array<std::uint8_t, 32> ids{};  // fresh randomness: the visitor and entrant ids
};

// The visitor's entry: made by this join, or the one the visitor (or account) had.
struct join_entry {
  ticket t;
  bool existing = false;
};

// Make `event` durable, then call finish().
struct join_commit {
  visitor_joined event;
  std::optional<std::uint64_t> spent_challenge;  // given back if the write fails
  network_key network;
};

using join_step = step<join_entry, join_commit>;

// The site's invites: its keys (none refuses invites; owned by whoever runs the desk, and
// fetched keys change while it runs), and the key an invited account's digest is made
// with when the site signs no account hints.
struct invite_settings {
  invite::site_keys* keys = nullptr;
  digest account_key{};
};

class join_desk {
 public:
  // `account_secret` is shared with the site, which signs account hints with it; empty
  // refuses hints.
  join_desk(join_price& price, std::string account_secret, invite_settings invites = {});

  // `now_ms` is wall-clock time: challenges carry their expiry in it.
  join_step decide(const journal& rooms, const join_request& req, std::int64_t now_ms);
  // What the commit of `c` came to (every commit decide() asks for must come here): the
  // new entry; a 503 with the proof given back, so
  // the same solved challenge may be sent again; or, if the room stopped taking joins
  // or the account joined while this was written, what the log decided.
  join_step finish(const journal& rooms, const join_commit& c, std::error_code ec, const join_outcome& outcome,
                   std::int64_t now_ms);

  // Refused proofs by reason, for the metrics.
  const std::map<std::string, std::uint64_t, std::less<>>& proof_rejections() const { return proof_rejections_; }

 private:
  std::optional<desk_refusal> refuse_room(const room& r) const;
  // The lane and the code a join with `req.code` takes, or why not. Checked before the
  // proof of work, so a refused code costs the visitor none; refusals are counted per
  // network, and a network past its budget is refused before its code is looked up.
  // The invite's claims and the lane they take, or why not: refused like a code.
  std::variant<std::pair<std::uint8_t, invite::claims>, desk_refusal> check_invite(const room& r, const join_request& req,
                                                                                  const network_key& network,
                                                                                  std::int64_t now_ms);
  // The account an invite names, as an account hint's would be kept (account_scope).
  id16 invited_account(std::string_view scope, std::string_view account) const;
  std::variant<std::pair<std::uint8_t, digest>, desk_refusal> check_code(const room& r, const join_request& req,
                                                                        const id16& redeemer, const network_key& network,
                                                                        std::int64_t now_ms);
  // The lane a join without JavaScript takes, or why not: the room has none, or the
  // network joined that way too often of late.
  std::variant<std::uint8_t, desk_refusal> no_script_lane_of(const room& r, const network_key& network, std::int64_t now_ms);
  // The challenge spent, or why the proof is refused.
  std::variant<std::optional<std::uint64_t>, desk_refusal> check_proof(const join_request& req,
                                                                       const network_key& network,
                                                                       std::int64_t now_ms);

  join_price& price_;
  std::string account_secret_;
  invite_settings invites_;
  // Accounts whose join is being written: another join of one of them is told to retry
  // at once, instead of waiting on the storage to be refused by the log.
  std::set<id16> accounts_joining_;
  // Refused access codes by network: a few a minute, so guessing codes goes nowhere.
  pass::pass_budget refused_codes_{refused_codes_per_minute};
  // Joins without JavaScript by network: they pay no proof of work, so one network
  // cannot fill the lane they take.
  pass::pass_budget no_script_joins_{no_script_joins_per_minute};

 public:
  static constexpr std::uint32_t refused_codes_per_minute = 10;
  static constexpr std::uint32_t no_script_joins_per_minute = 5;

 private:
  std::map<std::string, std::uint64_t, std::less<>> proof_rejections_;
};

}  // namespace foyer
