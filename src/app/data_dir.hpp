#pragma once
// The data dir: created with mode 0700 if missing; holds the RocksDB log, the pass
// key ring, the server secret (tickets and challenges are MACed with keys
// derived from it) and, once restored from a backup, its incarnation.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/cluster/log_claim.hpp"
#include "core/gate/ticket.hpp"

namespace foyer::app {

// Creates the dir if needed; throws std::runtime_error naming the dir if it cannot.
void prepare_data_dir(const std::filesystem::path& dir);

std::filesystem::path secret_path(const std::filesystem::path& dir);

// 32 random bytes in `dir`/secret (mode 0600), made at first start. Throws
// std::runtime_error if the file exists but is not a valid secret: changing the
// secret silently would invalidate every ticket in circulation. `created`, if given, says
// whether this call made it.
digest load_or_create_secret(const std::filesystem::path& dir, bool* created = nullptr);

// The secret in `dir`; throws std::runtime_error naming the file if it is missing or bad.
digest load_secret(const std::filesystem::path& dir);

// Which state the data dir's tickets belong to. A restore starts a new incarnation (a random
// id) and records the one it restored, with what the backup's log held of each room: the
// tickets that incarnation issued later name places the restored log does not hold.
struct incarnation {
  struct earlier {
    std::string id;  // "" for a data dir's first
    std::map<std::string, ticket_cut, std::less<>> rooms;
  };
  std::string id;  // Default: "", a data dir never restored
  std::vector<earlier> before;
};

std::filesystem::path incarnation_path(const std::filesystem::path& dir);

// `dir`/incarnation.json, or the first incarnation if there is none. Throws
// std::runtime_error naming the file if it cannot be read as one.
incarnation load_incarnation(const std::filesystem::path& dir);
std::string encode_incarnation(const incarnation& i);

// The incarnation after `previous`: a new random id, honouring `previous`'s tickets for
// what `cuts` holds (none: every one of them is refused as lost in restore).
incarnation next_incarnation(incarnation previous, std::map<std::string, ticket_cut, std::less<>> cuts);

// What a log must be marked with for this incarnation to lead it (core/cluster/log_claim.hpp).
cluster::log_identity log_identity_of(const digest& secret, const incarnation& i, bool secret_new);

// The ticket codec of the data dir's incarnation, honouring the earlier ones' tickets for
// what the log holds.
ticket_codec make_ticket_codec(const digest& secret, const incarnation& i);

}  // namespace foyer::app
