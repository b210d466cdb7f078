#pragma once
// What a node needs to know to join a cluster ([cluster] in the config file).

#include <cstdint>
#include <string>
#include <vector>

namespace foyer::store {

struct cluster_settings {
  std::vector<std::string> etcd;  // http://HOST:PORT of each member
  std::string prefix = "/foyer";  // every key Foyer writes is under it
  std::string node_id;            // unique to each node
  std::string advertise;          // where this node serves, said to the others (may be empty)
  std::int64_t lease_ttl_seconds = 2;
  // Entries kept in etcd below the lowest any node holds: a node restarted within this
  // many entries catches up from etcd, one away longer from a backup (core/cluster/log_trim.hpp).
  std::uint64_t retained_entries = 20000;
};

}  // namespace foyer::store
