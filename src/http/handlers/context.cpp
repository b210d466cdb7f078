#include "http/handlers/context.hpp"

#include <memory>

#include <boost/asio/async_result.hpp>
#include <fmt/core.h>

#include "http/problem.hpp"

namespace foyer::http {

simdjson::padded_string_view padded(context& ctx, std::string_view text) {
  ctx.json_scratch.assign(text);
  ctx.json_scratch.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  return simdjson::padded_string_view(ctx.json_scratch.data(), ctx.json_scratch.size(), ctx.json_scratch.capacity());
}

task<std::tuple<std::error_code, join_outcome>> commit(context& ctx, event e) {
  auto initiate = [&ctx, e = std::move(e)](auto handler) mutable {
    // std::function needs a copyable callable; the coroutine's handler is move-only.
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    ctx.rooms.submit(std::move(e), [shared](std::error_code ec, const join_outcome& outcome) {
      (*shared)(std::make_tuple(ec, outcome));
    });
  };
  co_return co_await net::async_initiate<decltype(use_task), void(std::tuple<std::error_code, join_outcome>)>(
      std::move(initiate), use_task);
}

task<std::optional<std::vector<std::optional<std::string>>>> read_side_records(context& ctx,
                                                                               std::vector<std::string> keys) {
  using values = std::vector<std::optional<std::string>>;
  auto initiate = [&ctx, keys = std::move(keys)](auto handler) mutable {
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    ctx.store.read(std::move(keys), [shared](std::error_code ec, values v) {
      (*shared)(ec ? std::nullopt : std::optional<values>(std::move(v)));
    });
  };
  co_return co_await net::async_initiate<decltype(use_task), void(std::optional<values>)>(std::move(initiate), use_task);
}

response unavailable(const request& req) {
  return problem(req, errc::storage_unavailable,
                 "The server could not make this change durable; nothing was recorded. Retry shortly.");
}

response unknown_room(const request& req, std::string_view id) {
  return problem(req, errc::unknown_room, fmt::format("There is no room '{}'.", id));
}

}  // namespace foyer::http
