#pragma once
// Keeping the cluster's log in etcd small. Every node keeps the whole state in its own
// store, so the log in etcd is needed only by a standby still copying it. Each standby
// reports the entries it holds under a key of its own, held by its lease: a node that is
// gone stops holding the log back. The leader deletes the entries below the lowest of
// those reports and its own, less a window kept in any case, so that a node restarted
// within the window catches up from etcd; a node that was away longer starts from a
// backup of another node (`foyer restore --secrets-dir`).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace foyer::cluster {

// The lowest entry every node holds: `written`, the leader's last entry, or a live
// standby's report (`held`) below it.
std::uint64_t lowest_held(std::uint64_t written, std::span<const std::uint64_t> held);
// The last entry the leader may delete (0: none), given lowest_held(): `retained` (at
// least 1) entries up to it stay, the lowest itself among them, so that the newest entry
// is never deleted and a new leader can check its store against it.
std::uint64_t trim_through(std::uint64_t lowest, std::uint64_t retained);

// `prefix`/held/`node`: the entries that node holds, a decimal number.
std::string held_key(std::string_view prefix, std::string_view node);
// Every node's held key: from held_keys_begin up to held_keys_end (exclusive).
std::string held_keys_begin(std::string_view prefix);
std::string held_keys_end(std::string_view prefix);
// The node a held key names; nothing if `key` is not one under `prefix`.
std::optional<std::string_view> held_key_node(std::string_view prefix, std::string_view key);
// A report's number; nothing unless it is the decimal a node writes.
std::optional<std::uint64_t> held_value(std::string_view value);

}  // namespace foyer::cluster
