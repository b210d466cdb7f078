#pragma once
// Has a log's checkpoints cosigned by its witnesses: POSTs c2sp.org/tlog-witness
// add-checkpoint to each witness (`<url>/add-checkpoint`, http:// or https:// with the
// certificate checked as tls_client.hpp says), follows 409s with the size the witness
// reports, and keeps the cosignatures in a witness::witness_book. Nothing waits: every
// request is asynchronous on the loop, bounded by a timeout and a 64 KiB answer.
//
// Single-threaded: every member runs on the event loop, and callbacks are called on it.
// The client must outlive the io_context's run (as the sinks do); after stop() no
// callback is called.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "core/base/url.hpp"
#include "core/fairness/signed_note.hpp"
#include "core/fairness/witness_protocol.hpp"

namespace foyer::delivery {

namespace net = boost::asio;

struct witness_endpoint {
  note::verifier key;  // the witness's cosignature key (cosignature::parse_vkey)
  http_url url;        // the submission prefix
};

struct witness_outcome {
  std::string witness;     // its key name
  witness::answer answer;  // its last answer to this round: a cosignature, or a failure
};

struct witness_round {
  std::uint64_t size = 0;     // the checkpoint's
  std::string cosigned_note;  // the checkpoint with the cosignatures gathered for it
  std::size_t cosigned = 0;
  bool quorum = false;        // at least `quorum` witnesses cosigned this checkpoint
  std::vector<witness_outcome> outcomes;  // the witnesses asked in this round, in list order
};

class witness_client {
 public:
  // Default timeout: 10 s for each request (connect, send, answer).
  witness_client(net::io_context& ioc, std::vector<witness_endpoint> witnesses, std::size_t quorum,
                 std::chrono::milliseconds timeout = std::chrono::seconds(10));
  witness_client(const witness_client&) = delete;
  witness_client& operator=(const witness_client&) = delete;

  // Submits `checkpoint_note` (signed by the log) to every witness that has not cosigned it,
  // with consistency proofs from `proofs`; calls `on_result` once no request is in flight
  // any more. A submit() before then joins the round: the witnesses still answering are
  // sent the newer checkpoint next, and every callback waiting gets the newer result.
  // Throws std::invalid_argument if the note is not a checkpoint, is older than the last
  // one submitted, or as large with another text (witness_book::set_checkpoint).
  void submit(std::string checkpoint_note, witness::proof_provider proofs,
              std::function<void(const witness_round&)> on_result);
  // Ends the requests in flight; no callback is called after it.
  void stop();

  const witness::witness_book& book() const { return book_; }

 private:
  net::awaitable<void> run(witness::submission s);
  net::awaitable<witness::answer> post(const witness_endpoint& w, std::string body, std::string checkpoint_text);
  void start(witness::submission s);
  // Calls the waiting callbacks if no request is in flight.
  void maybe_finish();

  net::io_context& ioc_;
  std::vector<witness_endpoint> endpoints_;
  std::chrono::milliseconds timeout_;
  net::ssl::context tls_context_;
  witness::witness_book book_;
  witness::proof_provider proofs_;
  std::vector<bool> busy_;  // a request to witness i is in flight
  std::vector<std::optional<witness::answer>> answers_;  // this round's, per witness
  std::vector<std::function<void(const witness_round&)>> waiting_;
  std::vector<boost::beast::tcp_stream*> open_;  // the connections in use, for stop()
  bool stopped_ = false;
};

}  // namespace foyer::delivery
