#pragma once
// Which "your turn" notice a waiting visitor is due, from what their poll would answer.
//
// Pure: status in, decision out; the caller's clock made the status.

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/rooms/status.hpp"

namespace foyer::notify {

enum class notice_kind : std::uint8_t {
  soon,  // "your turn in about N minutes"
  turn,  // "it's your turn": the visitor is admitted and their claim window runs
  confirm,  // by email only: "confirm notices to this address", before any other is sent
};
std::string_view to_string(notice_kind k);

// What a delivery attempt came to: a channel sender's answer (delivered, gone, refused,
// failed), or the outbox's own (dropped, stale).
enum class outcome : std::uint8_t {
  delivered,
  gone,     // the push service or relay says the contact no longer exists: it is forgotten
  refused,  // refused for good (4xx, 5xx SMTP reply): not retried
  failed,   // unreachable, timed out, 5xx: retried, boundedly
  dropped,  // the channel's outbox was full, or its retries ran out
  stale,    // an "it's your turn" that came too late to help: the visitor claimed their pass
            // or their claim window closed while it waited in the outbox; not sent
};
inline constexpr std::size_t outcome_count = 6;
std::string_view to_string(outcome o);

// The notice `st` calls for, if one is due: `turn` once admitted, else `soon` once the
// estimated wait is at most `soon_seconds`. Each at most once: `soon` is never sent after
// `turn`, and neither while admission is held (no estimate is honest then).
std::optional<notice_kind> due_notice(const visitor_status& st, bool soon_sent, bool turn_sent,
                                      std::uint32_t soon_seconds);

// The minutes a `soon` notice names: the estimate rounded up, at least 1.
std::uint32_t minutes_of(std::optional<std::uint64_t> eta_seconds);

}  // namespace foyer::notify
