#pragma once
// A visitor's resume link ("Keep my place", core/gate/resume_link.hpp):
//   POST   /api/v1/rooms/{room}/resume-link  the visitor's live link (made when they hold
//                                            none), as a URL and a QR code of it
//   DELETE /api/v1/rooms/{room}/resume-link  revokes it: 204, nothing written without one
//   GET    /r/{room}/resume/{token}          the link opened: checked, and sent on (303)
//                                            to the room's API path, where the browser
//                                            shows the ticket cookie it may hold
//   GET    /api/v1/rooms/{room}/resume/{token}  this browser gets the ticket's cookie and
//                                            is sent (303) to the waiting page, which
//                                            takes the ticket up; a browser that holds
//                                            another place of the room is asked first
//   POST   /api/v1/rooms/{room}/resume/{token}  the answer: from the same site only, the
//                                            cookie replaced and 303 to the waiting page
// The first two take the visitor's ticket as the other visitor calls do.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/gate/resume_link.hpp"
#include "http/handlers/visitor.hpp"

namespace foyer::http::handlers {

class resume_links {
 public:
  resume_links(context& ctx, const visitor& visitors);

  task<response> keep(const request& req, const room& r);
  // The live link of ticket `t`'s visitor, made when they hold none, given to `answer` as
  // its path and its URL at the server's public address.
  using link_answer = std::function<response(const std::string& path, const std::string& url)>;
  task<response> with_link(const request& req, const room& r, const ticket& t, link_answer answer);
  task<response> revoke(const request& req, const room& r);
  response forward(const request& req, const room& r, std::string_view token) const;
  response open(const request& req, const room& r, std::string_view token) const;
  response confirm(const request& req, const room& r, std::string_view token) const;

 private:
  response take_up(const request& req, const room& r, const resumed& back) const;

  context& ctx_;
  const visitor& visitors_;
  resume_codec codec_;
};

}  // namespace foyer::http::handlers
