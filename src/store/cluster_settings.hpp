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
};

}  // namespace foyer::store
