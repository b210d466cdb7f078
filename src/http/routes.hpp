#pragma once
// What `foyer serve` answers: the route table of the API and the pages, over the state
// the handlers share. Every route is in routes.cpp; to add one, add a line to the table
// there and a handler in handlers/ for its resource.
//
// Runs on the event loop; the references must outlive it.

#include "http/handlers/context.hpp"
#include "http/handlers/pages.hpp"
#include "http/handlers/visitor.hpp"
#include "http/router.hpp"

namespace foyer::http {

class routes {
 public:
  routes(journal& rooms, event_store& store, const ticket_codec& tickets, const pass::keyring& keys,
         const clock& clock, join_price& price, rate_controller& rates, api_settings settings,
         sink_report sinks);
  // The table's handlers hold `this`.
  routes(const routes&) = delete;
  routes& operator=(const routes&) = delete;

  task<response> handle(request& req, const peer& who) const { return router_.handle(req, who); }

 private:
  context ctx_;
  handlers::visitor visitor_;
  handlers::pages pages_;
  router router_;
};

}  // namespace foyer::http
