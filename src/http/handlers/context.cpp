#include "http/handlers/context.hpp"

#include "http/handlers/desk_runner.hpp"

namespace foyer::http {

simdjson::padded_string_view padded(context& ctx, std::string_view text) {
  ctx.json_scratch.assign(text);
  ctx.json_scratch.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  return simdjson::padded_string_view(ctx.json_scratch.data(), ctx.json_scratch.size(), ctx.json_scratch.capacity());
}

task<std::tuple<std::error_code, join_outcome>> commit(context& ctx, event e) {
  std::vector<event> events;
  events.push_back(std::move(e));
  return commit(ctx, std::move(events));
}

task<std::tuple<std::error_code, join_outcome>> commit(context& ctx, std::vector<event> events) {
  using result = std::tuple<std::error_code, join_outcome>;
  // Not await_callback: the journal takes the move-only handler itself, so a commit
  // allocates no shared copy of it and no std::function around that.
  auto initiate = [&ctx, events = std::move(events)](auto handler) mutable {
    ctx.rooms.submit(std::move(events), [handler = std::move(handler)](std::error_code ec, const join_outcome& outcome) mutable {
      std::move(handler)(result(ec, outcome));
    });
  };
  return net::async_initiate<decltype(use_task), void(result)>(std::move(initiate), use_task);
}

task<std::optional<std::vector<std::optional<std::string>>>> read_side_records(context& ctx,
                                                                               std::vector<std::string> keys) {
  using values = std::vector<std::optional<std::string>>;
  return await_callback<std::optional<values>>([&ctx, keys = std::move(keys)](auto done) mutable {
    ctx.store.read(std::move(keys), [done](std::error_code ec, values v) {
      done(ec ? std::nullopt : std::optional<values>(std::move(v)));
    });
  });
}

task<std::optional<logged_events>> read_events(context& ctx, std::uint64_t after_seq, std::size_t max_events) {
  return await_callback<std::optional<logged_events>>([&ctx, after_seq, max_events](auto done) {
    ctx.store.read_events(after_seq, max_events,
                          [done](std::error_code ec, std::uint64_t first_seq, std::vector<std::string> events) {
                            done(ec ? std::nullopt
                                    : std::optional<logged_events>(logged_events{first_seq, std::move(events)}));
                          });
  });
}

response private_text(const request& req, std::string_view content_type, std::string body) {
  response res{beast::http::status::ok, req.version()};
  res.set(beast::http::field::content_type, content_type);
  res.set(beast::http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.body() = std::move(body);
  return res;
}

response unavailable(const request& req) { return refused(req, not_durable()); }

response unknown_room(const request& req, std::string_view id) { return refused(req, no_such_room(id)); }

}  // namespace foyer::http
