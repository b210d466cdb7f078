#include "http/handlers/poll_bodies.hpp"

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

std::string frontier_body(const room_front& f, std::int64_t at_ms) {
  // A visitor's position is their place in their lane less its served: the general
  // lane's is `served`, every lane's is under `lanes` in a room with lanes.
  json_object body;
  body.num("served", f.lanes.front().served)
      .str("state", to_string(f.lanes.front().state))
      .num("rate_per_minute", f.rate)
      .num("at", at_ms);
  if (!f.lane_ids.empty()) {
    json_object lanes;
    for (std::size_t i = 0; i < f.lane_ids.size(); ++i) {
      lanes.raw(f.lane_ids[i], json_object().num("served", f.lanes[i].served).num("rate_per_minute", f.lanes[i].rate).done());
    }
    body.raw("lanes", lanes.done());
  }
  return body.done();
}

response cacheable(const request& req, std::string body) {
  auto res = response::json(beast::http::status::ok, req.version(), std::move(body));
  res.set(beast::http::field::cache_control, "public, max-age=1");
  return res;
}

}  // namespace foyer::http::handlers
