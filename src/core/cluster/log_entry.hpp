#pragma once
// One group commit as the cluster's log in etcd holds it: the events and side records of
// one synced write, and the seq of its first event. Entries are numbered 1, 2, ... in
// their keys; a write of side records alone is an entry too, with no event. Contacts and
// snapshots are never in it: contacts stay on the node that took them, and each node
// makes its own snapshots.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "foyer/store.hpp"

namespace foyer::cluster {

struct log_entry {
  std::uint64_t first_seq = 0;  // the seq of events[0], or of the next event if there is none
  std::vector<std::string> events;
  std::vector<side_record> side_records;
};

std::string encode_log_entry(std::uint64_t first_seq, std::span<const std::string_view> events, std::span<const side_record> side_records);
// Nothing if `bytes` is not an entry this build wrote.
std::optional<log_entry> decode_log_entry(std::string_view bytes);

// `prefix`/log/ and the entry's number in 20 digits, so that keys sort in log order.
std::string log_key(std::string_view prefix, std::uint64_t entry);
// The entry a log key names; nothing if `key` is not one under `prefix`.
std::optional<std::uint64_t> log_key_entry(std::string_view prefix, std::string_view key);
// The key just past every log key under `prefix` (an etcd range's end).
std::string log_keys_end(std::string_view prefix);
// The key the leader holds under its lease.
std::string leader_key(std::string_view prefix);

}  // namespace foyer::cluster
