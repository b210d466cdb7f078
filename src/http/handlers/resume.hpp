#pragma once
// A visitor's resume link ("Keep my place", core/gate/resume_link.hpp):
//   POST   /api/v1/rooms/{room}/resume-link  the visitor's live link (made when they hold
//                                            none), as a URL and a QR code of it
//   DELETE /api/v1/rooms/{room}/resume-link  revokes it: 204, nothing written without one
//   GET    /r/{room}/resume/{token}          the link opened: this browser gets the
//                                            ticket's cookie and is sent (303) to the
//                                            waiting page, which takes the ticket up
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
  // its path and, when the request's Host is a plain host[:port], its URL.
  using link_answer = std::function<response(const std::string& path, const std::optional<std::string>& url)>;
  task<response> with_link(const request& req, const room& r, const ticket& t, link_answer answer);
  task<response> revoke(const request& req, const room& r);
  // The URL of `path` on this server, made as the resume links' are (other links a visitor
  // is mailed use it); nullopt when no URL can be made.
  std::optional<std::string> url_for(const request& req, std::string_view path) const;
  response open(const request& req, const room& r, std::string_view token) const;

 private:
  context& ctx_;
  const visitor& visitors_;
  resume_codec codec_;
};

}  // namespace foyer::http::handlers
