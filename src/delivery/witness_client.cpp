#include "delivery/witness_client.hpp"

#include <algorithm>
#include <stdexcept>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <fmt/core.h>

#include "delivery/http_exchange.hpp"
#include "delivery/tls_client.hpp"

namespace foyer::delivery {
namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
using net::redirect_error;
using net::use_awaitable;

// An answer is a few signature lines or a size: more is the witness's fault.
constexpr std::size_t witness_answer_limit = 64 * 1024;

// Lists a connection as open while it is in use, so stop() can close it.
class registration {
 public:
  registration(std::vector<beast::tcp_stream*>& open, beast::tcp_stream& stream) : open_(open), stream_(&stream) {
    open_.push_back(stream_);
  }
  ~registration() { open_.erase(std::find(open_.begin(), open_.end(), stream_)); }
  registration(const registration&) = delete;
  registration& operator=(const registration&) = delete;

 private:
  std::vector<beast::tcp_stream*>& open_;
  beast::tcp_stream* stream_;
};

std::vector<note::verifier> keys_of(const std::vector<witness_endpoint>& endpoints) {
  std::vector<note::verifier> keys;
  for (const auto& e : endpoints) keys.push_back(e.key);
  return keys;
}

}  // namespace

witness_client::witness_client(net::io_context& ioc, std::vector<witness_endpoint> witnesses, std::size_t quorum,
                               std::chrono::milliseconds timeout)
    : ioc_(ioc),
      endpoints_(std::move(witnesses)),
      timeout_(timeout),
      tls_context_(verifying_client_context()),
      book_(keys_of(endpoints_), quorum),
      busy_(endpoints_.size()),
      answers_(endpoints_.size()) {}

void witness_client::submit(std::string checkpoint_note, witness::proof_provider proofs,
                            std::function<void(const witness_round&)> on_result) {
  if (!book_.set_checkpoint(std::move(checkpoint_note))) {
    throw std::invalid_argument("witness_client: not a checkpoint newer than the last one");
  }
  if (stopped_) return;
  proofs_ = std::move(proofs);
  waiting_.push_back(std::move(on_result));
  for (const auto& s : book_.submissions()) {
    answers_[s.witness].reset();
    // One in flight per witness: its answer's follow-up carries the newer checkpoint.
    if (!busy_[s.witness]) start(s);
  }
  // Every witness may have cosigned it already; the callback still comes from the loop.
  net::post(ioc_, [this] { maybe_finish(); });
}

void witness_client::stop() {
  stopped_ = true;
  for (auto* stream : open_) stream->close();
}

void witness_client::start(witness::submission s) {
  std::size_t i = s.witness;
  busy_[i] = true;
  net::co_spawn(ioc_, run(s), [this, i](std::exception_ptr failure) {
    if (stopped_) return;
    if (failure) {
      try {
        std::rethrow_exception(failure);
      } catch (const std::exception& e) {
        answers_[i] = witness::failure{witness::refusal::unreachable, fmt::format("no request made: {}", e.what())};
      }
    }
    busy_[i] = false;
    maybe_finish();
  });
}

net::awaitable<void> witness_client::run(witness::submission s) {
  for (;;) {
    auto body = witness::add_checkpoint_body(s.old_size, proofs_(s.old_size, s.new_size), book_.checkpoint_note());
    auto a = co_await post(endpoints_[s.witness], std::move(body), book_.checkpoint_text());
    if (stopped_) co_return;
    auto next = book_.record(s, a);
    answers_[s.witness] = std::move(a);
    if (!next) co_return;
    s = *next;
  }
}

net::awaitable<witness::answer> witness_client::post(const witness_endpoint& w, std::string body,
                                                     std::string checkpoint_text) {
  const http_url& url = w.url;
  std::string target = url.target;
  if (target.ends_with('/')) target.pop_back();
  target += "/add-checkpoint";
  auto where = fmt::format("witness {} ({}://{}{})", w.key.name, url.tls ? "https" : "http", url.authority, target);
  auto unreachable = [&](std::string_view what, const beast::error_code& ec) {
    return witness::failure{witness::refusal::unreachable, fmt::format("{}: {}: {}", where, what, ec.message())};
  };

  beast::error_code ec;
  net::ip::tcp::resolver resolver(ioc_);
  auto endpoints = co_await resolver.async_resolve(url.host, url.port, redirect_error(use_awaitable, ec));
  if (ec) co_return unreachable("cannot resolve", ec);

  http_request req{bhttp::verb::post, target, 11};
  req.set(bhttp::field::host, url.authority);
  req.set(bhttp::field::user_agent, "foyer");
  req.keep_alive(false);
  req.body() = std::move(body);
  req.prepare_payload();
  std::optional<answer_parser> parser;
  beast::flat_buffer buffer;
  if (url.tls) {
    beast::ssl_stream<beast::tcp_stream> stream(ioc_, tls_context_);
    registration listed(open_, beast::get_lowest_layer(stream));
    ec = co_await connect(stream, url.host, endpoints, timeout_);
    if (ec) co_return unreachable("cannot connect", ec);
    ec = co_await exchange(stream, buffer, req, parser, witness_answer_limit, timeout_);
  } else {
    beast::tcp_stream stream(ioc_);
    registration listed(open_, stream);
    ec = co_await connect(stream, endpoints, timeout_);
    if (ec) co_return unreachable("cannot connect", ec);
    ec = co_await exchange(stream, buffer, req, parser, witness_answer_limit, timeout_);
  }
  if (ec) co_return unreachable("no answer", ec);

  const auto& res = parser->get();
  auto a = witness::read_answer(res.result_int(), res[bhttp::field::content_type], res.body(), checkpoint_text, w.key);
  if (auto* f = std::get_if<witness::failure>(&a)) f->detail = fmt::format("{}: {}", where, f->detail);
  co_return a;
}

void witness_client::maybe_finish() {
  if (stopped_ || waiting_.empty() || std::find(busy_.begin(), busy_.end(), true) != busy_.end()) return;
  witness_round round{book_.checkpoint_size(), book_.cosigned_note(), book_.cosigned_count(),
                      book_.cosigned_count() >= book_.quorum(), {}};
  for (std::size_t i = 0; i < answers_.size(); ++i) {
    if (answers_[i]) round.outcomes.push_back({endpoints_[i].key.name, *answers_[i]});
  }
  auto callbacks = std::move(waiting_);
  waiting_.clear();
  for (const auto& callback : callbacks) callback(round);
}

}  // namespace foyer::delivery
