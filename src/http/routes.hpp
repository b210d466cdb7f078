#pragma once
// What `foyer serve` answers: the route table of the API and the pages, over the state
// the handlers share. Every route is in routes.cpp; to add one, add a line to the table
// there and a handler in handlers/ for its resource.
//
// Runs on the event loop; the references must outlive it. Adds the HTTP, room and proof
// metrics to `metrics`.

#include "core/ops/metrics.hpp"
#include "http/handlers/context.hpp"
#include "http/handlers/pages.hpp"
#include "http/handlers/notifications.hpp"
#include "http/handlers/resume.hpp"
#include "http/handlers/plain_queue.hpp"
#include "http/handlers/visitor.hpp"
#include "http/http_metrics.hpp"
#include "http/router.hpp"

namespace foyer::http {

class routes {
 public:
  routes(journal& rooms, event_store& store, const ticket_codec& tickets, const pass::keyring& keys,
         const clock& clock, join_price& price, rate_controller& rates, api_settings settings,
         ops::overload_ladder& overload, const ledger::publisher& ledger, ops::metrics_registry& metrics);
  // The table's handlers hold `this`.
  routes(const routes&) = delete;
  routes& operator=(const routes&) = delete;

  // The router's answer, counted and timed by route.
  task<response> handle(request& req, const peer& who);

  // The polls the I/O threads' desks answered (http/poll_desk.hpp), counted as the status
  // and frontier routes'.
  void count_near_polls(const ops::histogram& status, const ops::histogram& frontier);

  // The table, as router::table() lists it.
  std::vector<std::string> table() const { return router_.table(); }

 private:
  context ctx_;
  handlers::visitor visitor_;
  handlers::resume_links resume_;
  handlers::notifications notifications_;  // after resume_: an email carries the resume link
  handlers::plain_queue plain_;
  handlers::pages pages_;
  router router_;
  http_metrics http_metrics_;  // set once every route is added
  std::size_t status_route_ = 0;
  std::size_t frontier_route_ = 0;
};

}  // namespace foyer::http
