#pragma once
// The queue for visitors without JavaScript, as pages rendered here, in a room with a
// lane whose entry is "no_script" (core/rooms/no_script.hpp); 404 in any other room:
//   GET  /r/{room}/plain                 the join form
//   POST /api/v1/rooms/{room}/plain      joins the lane (no proof of work) and sets the
//                                        foyer_ticket cookie; 303 to the waiting page
//   GET  /api/v1/rooms/{room}/plain      the waiting page, which refreshes itself as
//                                        often as a status poll would ask
//   GET  /api/v1/rooms/{room}/plain/pass claims the pass; 303 to the room's target with it
// The ticket and the cookie are the JavaScript page's, so the two pages show one place.
// A browser (Accept: text/html) gets refusals as pages; other clients as problems.

#include <string_view>

#include "http/handlers/context.hpp"
#include "http/handlers/visitor.hpp"

namespace foyer::http::handlers {

class plain_queue {
 public:
  plain_queue(context& ctx, visitor& visitors) : ctx_(ctx), visitors_(visitors) {}

  response form(const request& req, std::string_view room_id) const;
  task<response> join(const request& req, const room& r, const peer& who);
  response wait(const request& req, const room& r);
  response pass(const request& req, const room& r);

 private:
  context& ctx_;
  visitor& visitors_;
};

}  // namespace foyer::http::handlers
