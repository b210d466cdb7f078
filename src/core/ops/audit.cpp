#include "core/ops/audit.hpp"

#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "core/fairness/lottery.hpp"

namespace foyer {
namespace {

json_object header(std::uint64_t seq, std::int64_t at_ms, std::string_view type) {
  json_object o;
  o.num("seq", seq).str("at", format_rfc3339_ms(at_ms)).str("type", type);
  return o;
}

struct describe {
  std::uint64_t seq;
  std::optional<hold_outcome> outcome;
  const room* r;

  std::string operator()(const room_created& e) const {
    return header(seq, e.at_ms, "room_created").hex("commitment", lottery::commitment(e.seed)).done();
  }
  std::string operator()(const visitor_joined& e) const {
    auto line = header(seq, e.at_ms, "visitor_joined")
                    .hex("visitor_id", e.visitor)
                    .hex("entrant_id", e.entrant)
                    .boolean("account", e.account.has_value());
    line.str("lane", lane_id(r, e.lane));
    // The redemption: the code by its SHA-256, as the operator may have uploaded it.
    if (e.code) line.hex("code_sha256", *e.code);
    return line.done();
  }
  std::string operator()(const visitors_admitted& e) const {
    return header(seq, e.tick_ms, "visitors_admitted").num("served", e.served).done();
  }
  std::string operator()(const lobby_closed& e) const { return header(seq, e.at_ms, "lobby_closed").done(); }
  std::string operator()(const draw_witnessed& e) const {
    return header(seq, e.at_ms, "draw_witnessed")
        .str("stage", to_string(e.stage))
        .str("cosigned_checkpoint", e.cosigned_checkpoint)
        .done();
  }
  std::string operator()(const beacon_supplied& e) const {
    return header(seq, e.at_ms, "beacon_supplied").hex("value", as_bytes(e.value)).done();
  }
  std::string operator()(const state_changed& e) const {
    return header(seq, e.at_ms, "state_changed").str("state", to_string(e.state)).done();
  }
  std::string operator()(const room_configured& e) const {
    return header(seq, e.at_ms, "room_configured")
        .str("source", to_string(e.source))
        .raw("config", to_json(e.config))
        .done();
  }
  std::string operator()(const room_removed& e) const { return header(seq, e.at_ms, "room_removed").done(); }
  std::string operator()(const seats_recounted& e) const { return header(seq, e.at_ms, "seats_recounted").done(); }
  std::string operator()(const codes_added& e) const {
    return header(seq, e.at_ms, "codes_added")
        .str("batch", e.batch)
        .str("lane", e.lane)
        .num("uses_per_code", e.uses_per_code)
        .num("codes", std::uint64_t{e.codes.size()})
        .done();
  }
  std::string operator()(const codes_revoked& e) const {
    auto line = header(seq, e.at_ms, "codes_revoked").str("batch", e.batch);
    if (e.code) line.hex("code_sha256", *e.code);
    return line.done();
  }
  // The link id stays out: with the ticket it would open the visitor's place.
  std::string operator()(const resume_link_changed& e) const {
    return header(seq, e.at_ms, "resume_link_changed")
        .hex("visitor_id", e.visitor)
        .boolean("live", e.link.has_value())
        .done();
  }
  std::string operator()(const turn_notified& e) const {
    return header(seq, e.at_ms, "turn_notified").num("place", e.place).done();
  }
  std::string operator()(const pass_claimed& e) const {
    return header(seq, e.at_ms, "pass_claimed").num("place", e.place).hex("jti", e.pass).done();
  }
  std::string operator()(const passes_done& e) const {
    return header(seq, e.at_ms, "passes_done").num("passes", std::uint64_t{e.places.size()}).done();
  }
  std::string operator()(const stock_reported& e) const {
    return header(seq, e.at_ms, "stock_reported")
        .num(to_string(e.kind), e.amount)
        .str("idempotency_key", e.key)
        .done();
  }
  std::string operator()(const rate_changed& e) const {
    return header(seq, e.at_ms, "rate_changed")
        .num("rate_per_minute", e.rate_per_minute)
        .num("base_rate_per_minute", e.base_rate_per_minute)
        .str("reason", to_string(e.reason))
        .done();
  }
  std::string operator()(const hold_placed& e) const {
    return with_outcome(header(seq, e.at_ms, "hold_placed")
                            .hex("hold_id", e.hold)
                            .hex("visitor_id", e.visitor)
                            .num("seats", std::uint64_t{e.seats})
                            .str("idempotency_key", e.key));
  }
  std::string operator()(const hold_extended& e) const { return hold_request(e, "hold_extended"); }
  std::string operator()(const hold_confirmed& e) const { return hold_request(e, "hold_confirmed"); }
  std::string operator()(const hold_released& e) const { return hold_request(e, "hold_released"); }
  std::string operator()(const holds_expired& e) const {
    std::vector<std::string> ids;
    for (const auto& hold : e.holds) ids.push_back(to_hex(hold));
    return with_outcome(header(seq, e.at_ms, "holds_expired").raw("hold_ids", json_string_list(ids)));
  }

  template <class E>
  std::string hold_request(const E& e, std::string_view type) const {
    return with_outcome(header(seq, e.at_ms, type).hex("hold_id", e.hold).str("idempotency_key", e.key));
  }
  // Null while its side record is not written yet.
  std::string with_outcome(json_object& o) const {
    if (outcome) return o.str("outcome", to_string(*outcome)).done();
    return o.null("outcome").done();
  }
};

}  // namespace

std::string audit_record(std::uint64_t seq, const event& e, std::optional<hold_outcome> outcome, const room* r) {
  return std::visit(describe{seq, outcome, r}, e);
}

}  // namespace foyer
