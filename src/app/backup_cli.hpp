#pragma once
// `foyer backup` and `foyer restore`: a consistent copy of a data dir, taken while the
// server runs, and its checked return into a new data dir.
//
//   foyer backup --data-dir DIR --to DEST     DEST (new or empty) gets the log as of now,
//                                             the pass keys, the secret, the incarnation
//                                             if any, and backup.json: the SHA-256 of every
//                                             file, signed with a key derived from the secret
//   foyer restore --from DEST --data-dir DIR  checks the copy against backup.json (its
//                                             signature, every digest, regular files only,
//                                             nothing unlisted in log/), and restores it into
//                                             DIR (new or empty) only, as a new incarnation
//
// A cluster's node keeps its keys in the shared secrets dir: `foyer backup --secrets-dir S`
// takes them from there. `foyer restore --secrets-dir S` restores a node of the same
// cluster (the backup's secret is S's): only the log, and no new incarnation, since the
// node copies from etcd every entry written after the backup before it may lead.
//
//   foyer new-incarnation --config FILE       after the log was lost while the secret lives on
//                                             (etcd wiped, a new prefix, a deleted log): a new
//                                             incarnation in the secrets, and the empty log marked
//                                             as its own (core/cluster/log_claim.hpp)
//
// The keys and the secret travel with the log: without them the restored server could
// not honour the tickets and passes in circulation. It honours the tickets the restored log
// accounts for; those the old server issued after the backup are refused (see
// core/gate/ticket.hpp), since their places would be given again. A backup holds secrets:
// keep it as the data dir is kept (both are made mode 0700); whoever can read it all could
// also re-sign an edited one. Failures are printed and thrown as CLI::RuntimeError(1), which
// CLI11_PARSE turns into exit code 1.

#include <CLI/CLI.hpp>

namespace foyer::app {

void add_backup_commands(CLI::App& app);

}  // namespace foyer::app
