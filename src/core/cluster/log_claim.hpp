#pragma once
// Which tickets a log accounts for. A ticket is MACed with its incarnation's key (the
// secret and, after a restore, the incarnation's id: core/gate/ticket.hpp), and names a
// place that a log gave. A log that starts empty while that key lives on (etcd wiped, a
// new `prefix`, a data dir's log deleted beside its secret) would honour the old log's
// tickets and give their places again: two passes for one place.
//
// So a log carries the mark of the incarnation whose tickets it holds, and a node serves
// a log only if the mark is its own (or an earlier incarnation's, restored under its
// current one, whose tickets are honoured only up to the restore's cut). A log without a
// mark is claimed only when it holds entries (a log from before marks) or when the
// secret was made by this very start (no ticket can exist). Otherwise the node refuses to
// lead and names the fix: `foyer new-incarnation`, after which the old tickets get
// ticket_lost_in_restore.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/bytes.hpp"

namespace foyer::cluster {

// The key of a cluster's log mark in etcd: `prefix`/incarnation.
std::string incarnation_key(std::string_view prefix);

// The mark of an incarnation ("" for a secret's first): 32 hex digits derived from the
// secret, so that another sale's secrets never match, and the key itself is not shown.
std::string incarnation_mark(byte_view secret, std::string_view incarnation);

// What a node knows of its own tickets.
struct log_identity {
  std::string mark;                  // its incarnation's
  std::vector<std::string> earlier;  // the incarnations it was restored from
  bool secret_new = false;           // the secret was made by this start
};

enum class log_claim {
  lead,     // the log is this incarnation's
  adopt,    // it becomes this incarnation's: write the mark, then lead
  foreign,  // it is another sale's or another incarnation's: refuse
  unknown,  // empty and unmarked, while this incarnation's tickets may be out: refuse
};

// `mark`: the log's, if any; `empty`: the log holds no entry (no event in a data dir).
log_claim judge_log(const std::optional<std::string>& mark, bool empty, const log_identity& self);

// Whether a standby whose store holds `entries` of a log marked `local` (none: a store
// from before marks) may follow etcd's log marked `mark`: a store that holds entries
// continues only a log marked as the one it followed, or the new log would be copied
// after the old one's entries; an empty store follows any.
bool may_follow(const std::optional<std::string>& local, std::uint64_t entries, std::string_view mark);

// Why a node refuses a log, and the fix: `where` names the log (etcd's prefix, the data
// dir's log), `repair` the command that starts a new incarnation for it.
std::string log_refusal(log_claim claim, std::string_view where, std::string_view repair);

}  // namespace foyer::cluster
