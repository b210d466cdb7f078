#include "http/handlers/status_body.hpp"

#include "core/lanes/lane_place.hpp"

namespace foyer::http::handlers {

void status_fields(json_object& body, const visitor_status& st, std::optional<std::uint64_t> lobby_index) {
  body.str("state", st.state);
  if (st.lane) body.str("lane", *st.lane);
  body.opt_num("place", st.place)
      .num("served", st.served)
      .opt_num("position", st.position)
      .opt_num("eta_seconds", st.eta_seconds)
      .num("poll_after_ms", st.poll_after_ms)
      .opt_num("frontier_above", st.frontier_above);
  if (st.held) body.str("held_reason", *st.held);
  if (lobby_index) body.num("lobby_index", place_in_lane(*lobby_index));
}

void stock_fields(json_object& body, std::optional<std::uint64_t> stock_left, std::optional<double> claim_ratio) {
  if (!stock_left) return;
  body.num("stock_left", *stock_left);
  if (claim_ratio) body.fraction("claim_ratio", *claim_ratio);
}

}  // namespace foyer::http::handlers
