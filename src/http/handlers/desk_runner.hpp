#pragma once
// Carries a desk's step (core/desk.hpp) over HTTP, for every desk alike: a refusal is
// answered as a problem, an answer by the handler's serialiser, and a commit is made
// durable and handed to the desk's follow-up (decide again, or finish), whose step is
// carried the same way.

#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/desk.hpp"
#include "http/handlers/context.hpp"
#include "http/problem.hpp"

namespace foyer::http {

// The problem body of a refusal, with each of its parts that is set.
response refused(const request& req, const desk_refusal& why);

// A challenge as JSON: the answer of POST .../challenge, and the offer of a price_rose.
std::string challenge_json(const pow::challenge& c);

// The request's Idempotency-Key; else the problem to answer with.
std::variant<std::string, response> idempotency_key(const request& req);

// The events a desk's commit asks to have written.
inline std::vector<event> events_of(std::vector<event> events) { return events; }
inline std::vector<event> events_of(const join_commit& c) { return {c.event}; }
template <class Event>
std::vector<event> events_of(Event e) {
  return {event(std::move(e))};
}

// An answer made at once, or one that waits for something first (a signature).
using answer_or_task = std::variant<response, task<response>>;

// The room a desk decides on: a live one.
struct live_room {
  const room* operator()(const context& ctx, std::string_view id) const { return ctx.rooms.find(id); }
};

// A follow-up that decides again once the write is durable, on the room found again by
// id with `find`: it may have been removed meanwhile.
template <class Decide, class Find = live_room>
auto decide_again(context& ctx, std::string room_id, Decide decide, Find find = {}) {
  return [&ctx, room_id = std::move(room_id), decide, find](const auto&, std::error_code ec, const join_outcome&) {
    using next_step = decltype(decide(std::declval<const room&>()));
    if (ec) return next_step{not_durable()};
    const room* now = find(ctx, room_id);
    if (!now) return next_step{no_such_room(room_id)};
    return decide(*now);
  };
}

// Carries `s`: a commit (nothing is written for an empty one) goes to
// `follow_up(commit, ec, outcome)`, an answer to `answer` (which may suspend), a refusal
// to `refuse`.
template <class Answer, class Commit, class FollowUp, class Serialise>
task<response> carry(context& ctx, const request& req, step<Answer, Commit> s, FollowUp follow_up, Serialise answer,
                     response (*refuse)(const request&, const desk_refusal&) = refused) {
  if (auto* c = std::get_if<Commit>(&s)) {
    // Built before the co_await: GCC 12 mishandles temporaries with destructors inside one.
    Commit decided = std::move(*c);
    std::vector<event> events = events_of(decided);
    std::error_code ec;
    join_outcome outcome;
    if (!events.empty()) std::tie(ec, outcome) = co_await commit(ctx, std::move(events));
    s = follow_up(decided, ec, outcome);
  }
  if (const auto* why = std::get_if<desk_refusal>(&s)) co_return refuse(req, *why);
  if (const auto* a = std::get_if<Answer>(&s)) {
    using made = std::invoke_result_t<Serialise&, const Answer&>;
    if constexpr (std::is_same_v<made, task<response>>) {
      co_return co_await answer(*a);
    } else if constexpr (std::is_same_v<made, answer_or_task>) {
      answer_or_task out = answer(*a);
      if (auto* later = std::get_if<task<response>>(&out)) co_return co_await std::move(*later);
      co_return std::move(std::get<response>(out));
    } else {
      co_return answer(*a);
    }
  }
  co_return problem(req, errc::internal_error, "The request was written but not answered; retry with the same key.");
}

}  // namespace foyer::http
