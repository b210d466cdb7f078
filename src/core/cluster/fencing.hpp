#pragma once
// The leader's rules in cluster mode, with no I/O: how long its lease may be trusted, and
// what one fenced write to the cluster's log came to.
//
// A leader holds the leader key under an etcd lease; the key's create revision is its
// fencing token. Every group commit is one etcd transaction that puts the next log entry
// only if the leader key still has that create revision and the entry's key does not
// exist yet. A deposed leader's write fails, and it steps down.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace foyer::cluster {

// How long the lease may be trusted here. etcd counts a lease's TTL from when it received
// the keepalive; a keepalive's answer therefore proves the lease until (when it was sent
// + TTL) at the earliest. Less a margin for the two clocks' drift, that is the deadline
// past which the leader answers nothing and signs nothing.
class lease_clock {
 public:
  lease_clock(std::int64_t ttl_ms, std::int64_t margin_ms) : ttl_ms_(ttl_ms), margin_ms_(margin_ms) {}

  // A keepalive sent at `sent_at_ms` was answered: etcd renewed the lease for `ttl_ms`.
  void renewed(std::int64_t sent_at_ms, std::int64_t ttl_ms) {
    const std::int64_t until = sent_at_ms + std::min(ttl_ms, ttl_ms_) - margin_ms_;
    if (until > deadline_ms_) deadline_ms_ = until;
  }
  std::int64_t deadline_ms() const { return deadline_ms_; }
  bool holds(std::int64_t now_ms) const { return now_ms < deadline_ms_; }

 private:
  std::int64_t ttl_ms_;
  std::int64_t margin_ms_;
  std::int64_t deadline_ms_ = 0;
};

// A fenced write's definite answer from etcd: whether its guard held, and if not, the
// value the entry's key holds (nothing if it is absent).
struct fenced_reply {
  bool succeeded = false;
  std::optional<std::string> entry_found;
};

enum class commit_verdict {
  committed,  // the entry is in the cluster's log
  deposed,    // it is not and never will be: another leader holds the key or wrote that entry
  unknown,    // no definite answer yet: the same write must be tried again
};

// A guard that failed may still hide this very write, made by an earlier try whose answer
// was lost: the entry found is then ours, byte for byte, and committed.
inline commit_verdict judge(const std::optional<fenced_reply>& reply, std::string_view ours) {
  if (!reply) return commit_verdict::unknown;
  if (reply->succeeded || reply->entry_found == ours) return commit_verdict::committed;
  return commit_verdict::deposed;
}

enum class commit_outcome {
  committed,
  deposed,
  refused,  // etcd refused the write as a whole (its space quota, a request too large), no try landed
  lapsed,   // still unknown when the lease's deadline passed: answer nothing, stop
};

// What one try of a fenced write came to: a definite reply, a refusal, or nothing known.
struct fenced_try {
  std::optional<fenced_reply> reply;
  bool refused = false;
};

// Tries the write until its outcome is known. An unknown outcome is never answered as
// success or failure: the same transaction is tried again, and its own guard tells
// whether an earlier try landed. A refusal says only that its own try did nothing: after
// an unknown try it is tried again too. Once the lease's deadline has passed, a leader may
// no longer act on any answer, even one that came just after it: it stops.
// `attempt()` -> fenced_try; `now_ms()` -> the steady clock; `deadline_ms()` -> the
// lease's deadline as last renewed; `pause()` waits a little before another try.
template <class Attempt, class Now, class Deadline, class Pause>
commit_outcome commit_until_known(std::string_view ours, Attempt attempt, Now now_ms, Deadline deadline_ms,
                                  Pause pause) {
  bool may_have_landed = false;
  for (;;) {
    if (now_ms() >= deadline_ms()) return commit_outcome::lapsed;
    const fenced_try tried = attempt();
    if (now_ms() >= deadline_ms()) return commit_outcome::lapsed;
    if (tried.refused) {
      if (!may_have_landed) return commit_outcome::refused;
    } else {
      switch (judge(tried.reply, ours)) {
        case commit_verdict::committed: return commit_outcome::committed;
        case commit_verdict::deposed: return commit_outcome::deposed;
        case commit_verdict::unknown: may_have_landed = true; break;
      }
    }
    pause();
  }
}

}  // namespace foyer::cluster
