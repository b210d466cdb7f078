#pragma once
// The pass key ring on disk, <data dir>/pass-keys.json (mode 0600, secret seeds inside), and
// `foyer keygen`, which rotates and retires its keys.
//
// Rotation runbook:
//   foyer keygen                 adds a key; after a restart the server signs new passes with
//                                it and publishes old and new keys in its JWKS
//   (guards pick the new key up at their next refresh, or at once when a pass names it)
//   (wait until the passes signed with the old key have expired: the room's pass lifetime)
//   foyer keygen --retire KID    stops publishing the old key (takes effect at restart)
//   foyer keygen --list          shows every key, its creation time and state
// Keygen is a read-modify-write of the file: run one at a time.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>

#include "core/passes/pass.hpp"

namespace foyer::app {

std::filesystem::path keyring_path(const std::filesystem::path& data_dir);

// Reads the key ring, or at first start creates it with one new key created at `now` (unix
// seconds). A ring without a VAPID key (Web Push) is given one, created at `now`, and saved. Throws std::runtime_error naming the file if it exists but cannot be read, is
// not a key file, or is open to group or others: a server must never start with a key that
// others could have read, nor silently replace keys whose passes are in circulation.
pass::keyring load_or_create_keyring(const std::filesystem::path& data_dir, std::int64_t now);

// Replaces the file atomically and durably: a fresh 0600 temp file, fsync, rename, fsync
// of the directory. A crash leaves the old file or the new one. Throws std::runtime_error.
void save_keyring(const std::filesystem::path& data_dir, const pass::keyring& ring);

// Registers `foyer keygen [--config FILE] [--data-dir DIR] [--alg EdDSA|ES256 | --retire KID | --list]`.
// Without --retire or --list it adds a new key of the given type (creating the file, with an
// Ed25519 key first, if needed). An ES256 key switches new passes to the ES256 profile (see
// core/pass.hpp); an EdDSA key added later switches them back. Failures are
// printed on stderr and thrown as CLI::RuntimeError(1), which CLI11_PARSE turns into exit 1.
void add_keygen_command(CLI::App& app);

}  // namespace foyer::app
