#pragma once
// A blocking client of etcd's v3 API through its JSON gateway (etcd 3.4, Debian's): one
// keep-alive connection, over TLS to https:// endpoints, authenticated as an etcd user if
// one is given; a timeout on every call, and the next endpoint when one fails. Each thread
// that talks to etcd owns its own client.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/cluster_settings.hpp"

namespace foyer::store::etcd {

struct key_value {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
};

// What a call came to. `answered`: etcd replied (its JSON is in `body`). `refused`: etcd
// said the request was not applied (e.g. its space quota is reached). Neither: no
// definite answer (a timeout, a lost connection, etcd itself unsure), so a write may
// or may not have been applied.
struct reply {
  bool answered = false;
  bool refused = false;
  std::string body;     // the JSON answer
  std::string problem;  // why it was refused or unknown, for the log
};

struct txn_reply {
  bool succeeded = false;
  std::int64_t revision = 0;       // the store's revision after the transaction
  std::vector<key_value> found;    // what the failure branch's range read
};

// One comparison of a transaction's guard: the key's create revision or version equals `value`.
struct guard {
  enum class target { create_revision, version } on;
  std::string key;
  std::int64_t value = 0;
};

// Throws std::invalid_argument, naming the problem, unless `url` is http:// or https://HOST:PORT.
void check_endpoint(const std::string& url);

class client {
 public:
  // `endpoints`: http:// or https://HOST:PORT each. Throws std::invalid_argument on another
  // form, or when a file of `access` cannot be used.
  client(const std::vector<std::string>& endpoints, const etcd_access& access, std::chrono::milliseconds timeout);
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  // A lease of `ttl_seconds`; its id, or nothing without a definite answer.
  std::optional<std::int64_t> grant(std::int64_t ttl_seconds);
  // Renews the lease: the TTL etcd granted (0: the lease is gone), or nothing.
  std::optional<std::int64_t> keep_alive(std::int64_t lease);
  // Ends the lease and deletes its keys at once (a clean stop hands over without waiting).
  void revoke(std::int64_t lease);
  // If every guard holds, puts `value` at `key` (under `lease` if not 0); otherwise reads
  // `read_on_failure`. The reply's body is parsed by `parse_txn`.
  reply txn(const std::vector<guard>& guards, const std::string& key, const std::string& value, std::int64_t lease,
            const std::string& read_on_failure);
  // If every guard holds, deletes the keys from `key` up to `range_end` (exclusive).
  reply delete_range_if(const std::vector<guard>& guards, const std::string& key, const std::string& range_end);
  // Keys from `key` up to `range_end` (exclusive), at most `limit` of them; nothing
  // without a definite answer.
  std::optional<std::vector<key_value>> range(const std::string& key, const std::string& range_end, std::int64_t limit);

  // Why the last call that failed did: "no answer", a TLS failure, etcd refusing the user,
  // or etcd's own answer.
  const std::string& last_problem() const;

  static std::optional<txn_reply> parse_txn(const std::string& body);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace foyer::store::etcd
