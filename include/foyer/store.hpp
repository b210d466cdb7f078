#pragma once
// The durable event log as the rest of Foyer sees it.
//
// State changes are events: opaque byte strings, appended in order, each given the
// next sequence number (the first event ever is seq 1). Recovery loads the newest
// snapshot and replays the events after it. Side records are keyed values written
// in the same atomic write as the events (e.g. lobby Merkle nodes), read back later.
// Contacts (visitors' notification addresses) are kept apart from all of these: never in
// an event, a snapshot or a copy of the log, and deleted once used.
//
// Threading: every member is called on the event loop thread only, and every
// completion handler runs on the event loop thread, through the `post` function the
// implementation was given, in the order of the calls that started them.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace foyer {

struct side_record {
  std::string key;
  std::string value;
};

// A contact record to put, or to delete when it has no value.
struct record_change {
  std::string key;
  std::optional<std::string> value;
};

struct recovered_log {
  std::optional<std::string> snapshot;  // bytes given to save_snapshot, if any was saved
  std::uint64_t snapshot_seq = 0;       // the last event the snapshot covers (0: none)
  std::vector<std::string> events;      // the events after snapshot_seq, in order
};

// The events of one append, encoded. Most appends are one event (a join): its bytes are
// held in place, not in an array of their own.
using encoded_events = boost::container::small_vector<std::string, 1>;

class event_store {
 public:
  // ec is empty when the write is durable (synced); first_seq is the seq of events[0].
  using durable_handler = std::function<void(std::error_code ec, std::uint64_t first_seq)>;
  using done_handler = std::function<void(std::error_code ec)>;
  using read_handler =
      std::function<void(std::error_code ec, std::vector<std::optional<std::string>> values)>;
  // events[i] has seq first_seq + i.
  using events_handler =
      std::function<void(std::error_code ec, std::uint64_t first_seq, std::vector<std::string> events)>;

  virtual ~event_store() = default;

  // Appends the events and writes the side records in one atomic, synced write.
  // On error, nothing of this call is durable and nothing later was written before it.
  virtual void append(encoded_events events, std::vector<side_record> side_records,
                      durable_handler done) = 0;

  // Saves `state`, the state after applying every event up to and including `seq`.
  virtual void save_snapshot(std::uint64_t seq, std::string state, done_handler done) = 0;

  // Reads side records; a missing key reads as std::nullopt.
  virtual void read(std::vector<std::string> keys, read_handler done) = 0;

  // Reads up to `max_events` durable events from seq `after_seq + 1` on, in order; fewer
  // (or none) at the end of the log. The log is never truncated: it is the audit trail.
  virtual void read_events(std::uint64_t after_seq, std::size_t max_events, events_handler done) = 0;

  // Puts and deletes contact records in one atomic, synced write; on error none of them is.
  virtual void write_contacts(std::vector<record_change> changes, done_handler done) = 0;
};

}  // namespace foyer
