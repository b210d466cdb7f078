#pragma once
// Applied events as they leave the process: CloudEvents 1.0 envelopes in structured JSON
// (https://github.com/cloudevents/spec, "JSON Event Format"), for the sinks.
//
// Ids are stable: an event's id is its log seq, a join count's is its room, its second and
// the seq of its first join, so a retried delivery carries the same id and a receiver can
// de-duplicate (and catch up from the audit trail by seq). Nothing secret or personal
// leaves: no seed (only its commitment), no visitor, entrant or account ids.
//
// Pure: no clock of its own, no I/O. Single-threaded, like the journal it follows.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "core/rooms/applied_effect.hpp"
#include "core/rooms/event.hpp"

namespace foyer {

struct envelope {
  std::string id;
  std::string type;  // e.g. "dev.foyer.room.visitors_admitted"
  std::string json;  // the whole CloudEvent, one JSON object, no newline
};

// Joins are counted per room and per second of their time, never sent one by one: a
// count leaves as "dev.foyer.room.joins" once its second is over (flush), or before the
// next event of its room, so that a sink sees each room's events in log order. A count
// and an admission name each lane by its id. An admission carries the visitors the room
// admitted (none: no event), and its served as the step left it.
class cloud_events {
 public:
  // `source` is every envelope's CloudEvents source, e.g. "/foyer/queue-1".
  cloud_events(std::string source, std::function<void(envelope)> emit);

  // `e` was applied at log seq `seq`; `effect` is what applying it did (a hold's outcome,
  // what an admission admitted) and the room it left.
  void on_applied(std::uint64_t seq, const event& e, const applied_effect& effect = {});
  // Sends the join counts of every second before the one `now_ms` (unix ms) is in.
  void flush(std::int64_t now_ms);

 private:
  struct join_count {
    std::uint64_t first_seq = 0;
    std::int64_t second = 0;
    std::uint64_t count = 0;
    std::map<std::string, std::uint64_t, std::less<>> lanes;  // by lane id
  };
  void count(std::uint64_t seq, const visitor_joined& j, const room* r);
  void send_admitted(std::uint64_t seq, const visitors_admitted& e, const applied_effect& effect);
  void send_joins(const std::string& room, const join_count& c);
  void send(std::string id, std::string_view room, std::string_view type, std::int64_t at_ms, std::string data);

  std::string source_;
  std::function<void(envelope)> emit_;
  std::map<std::string, join_count, std::less<>> joins_;  // by room: the second being counted
};

// Whether a sink's `events` pattern takes `type`: the type itself, "*" for every type, or
// a prefix ending in ".*" ("dev.foyer.room.*") for every type below it.
bool type_matches(std::string_view pattern, std::string_view type);

}  // namespace foyer
