#pragma once
// The data dir: created with mode 0700 if missing; holds the RocksDB log, the pass
// key ring and the server secret (tickets and challenges are MACed with keys
// derived from it).

#include <filesystem>

#include "core/base/bytes.hpp"

namespace foyer::app {

// Creates the dir if needed; throws std::runtime_error naming the dir if it cannot.
void prepare_data_dir(const std::filesystem::path& dir);

std::filesystem::path secret_path(const std::filesystem::path& dir);

// 32 random bytes in `dir`/secret (mode 0600), made at first start. Throws
// std::runtime_error if the file exists but is not a valid secret: changing the
// secret silently would invalidate every ticket in circulation.
digest load_or_create_secret(const std::filesystem::path& dir);

}  // namespace foyer::app
