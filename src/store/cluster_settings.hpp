#pragma once
// What a node needs to know to join a cluster ([cluster] in the config file).

#include <cstdint>
#include <string>
#include <vector>

namespace foyer::store {

// How a node reaches etcd beyond its endpoints: TLS (with https:// endpoints) and etcd's
// own users. Each part is optional.
struct etcd_access {
  std::string ca_file;    // PEM certificates that sign etcd's (default: the system's roots)
  std::string cert_file;  // this node's client certificate and key, when etcd asks for one
  std::string key_file;
  std::string user;       // an etcd user, with `password`
  std::string password;
};

struct cluster_settings {
  std::vector<std::string> etcd;  // http://HOST:PORT or https://HOST:PORT of each member
  etcd_access access;
  std::string prefix = "/foyer";  // every key Foyer writes is under it
  std::string node_id;            // unique to each node
  std::string advertise;          // where this node serves, said to the others (may be empty)
  std::int64_t lease_ttl_seconds = 2;
  // Entries kept in etcd below the lowest any node holds: a node restarted within this
  // many entries catches up from etcd, one away longer from a backup (core/cluster/log_trim.hpp).
  std::uint64_t retained_entries = 20000;
};

}  // namespace foyer::store
