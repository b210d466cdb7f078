#include "app/backup_cli.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/config.hpp"
#include "app/data_dir.hpp"
#include "app/keyring.hpp"
#include "core/base/crypto.hpp"
#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "core/rooms/journal.hpp"
#include "core/cluster/log_entry.hpp"
#include "store/etcd_client.hpp"
#include "store/log_copy.hpp"
#include "store/rocks_store.hpp"

namespace foyer::app {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view manifest_file = "backup.json";
constexpr std::string_view backup_format = "foyer-backup/2";
constexpr std::string_view log_dir = "log";
constexpr std::string_view mac_label = "foyer/backup-manifest/v1";
// The manifest's signature closes it: `,"mac":"<64 hex>"}` and a newline.
constexpr std::string_view mac_member = ",\"mac\":\"";
constexpr std::size_t mac_tail = mac_member.size() + 64 + 3;
// A manifest lists a few dozen files; anything far larger is not one.
constexpr std::uintmax_t max_manifest_bytes = 1 << 20;
constexpr std::size_t digest_chunk = 1 << 20;

struct failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The files beside the log that a server needs to honour what it handed out; the
// incarnation only once the data dir was restored. A cluster node keeps them in its
// secrets dir, which every node shares, instead of its data dir.
std::vector<fs::path> key_files(const fs::path& dir) { return {secret_path(dir), keyring_path(dir)}; }

// A target must be new or empty: a restore never mixes with what is there.
void require_clean(const fs::path& dir, std::string_view what) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec)) throw failure(fmt::format("{} {} exists and is not a directory", what, dir.string()));
  if (!fs::is_empty(dir, ec)) {
    throw failure(fmt::format("{} {} is not empty: give a new or empty directory", what, dir.string()));
  }
}

void make_private_dir(const fs::path& dir) {
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all);
}

// A backup is read as foyer wrote it: regular files only, never through a link someone
// planted to make the restore copy another file.
void require_regular(const fs::path& path) {
  std::error_code ec;
  auto status = fs::symlink_status(path, ec);
  if (ec || !fs::exists(status)) throw failure(fmt::format("{} is missing", path.string()));
  if (fs::is_symlink(status)) throw failure(fmt::format("{} is a symbolic link: refused", path.string()));
  if (!fs::is_regular_file(status)) throw failure(fmt::format("{} is not a regular file: refused", path.string()));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw failure(fmt::format("{} cannot be read", path.string()));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_private_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw failure(fmt::format("{} cannot be written", path.string()));
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
}

// SHA-256 of a file of any size, read in chunks.
std::string digest_of_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw failure(fmt::format("{} cannot be read", path.string()));
  crypto_hash_sha256_state state;
  crypto_hash_sha256_init(&state);
  std::vector<char> chunk(digest_chunk);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    crypto_hash_sha256_update(&state, reinterpret_cast<const unsigned char*>(chunk.data()),
                              static_cast<unsigned long long>(in.gcount()));
  }
  if (in.bad()) throw failure(fmt::format("{} cannot be read", path.string()));
  digest out;
  crypto_hash_sha256_final(&state, out.data());
  return to_hex(out);
}

std::string manifest_mac(const digest& secret, std::string_view body) {
  return to_hex(hmac_sha256(hmac_sha256(secret, {as_bytes(mac_label)}), {as_bytes(body)}));
}

// Every file of a backup being written, by its name in it: the key files, then log/<file>.
std::vector<std::string> files_of(const fs::path& backup_dir, const std::vector<fs::path>& keys) {
  std::vector<std::string> names;
  for (const auto& file : keys) names.push_back(file.filename().string());
  std::vector<std::string> logs;
  for (const auto& entry : fs::directory_iterator(backup_dir / log_dir)) {
    logs.push_back(std::string(log_dir) + "/" + entry.path().filename().string());
  }
  std::sort(logs.begin(), logs.end());
  names.insert(names.end(), logs.begin(), logs.end());
  return names;
}

void backup(const fs::path& data_dir, const fs::path& secrets_dir, const fs::path& dest) {
  require_clean(dest, "backup target");
  auto keys = key_files(secrets_dir);
  for (const auto& file : keys) {
    if (!fs::exists(file)) {
      throw failure(secrets_dir == data_dir
                        ? fmt::format("{} is missing: is {} a Foyer data dir? (a cluster node's keys are in its "
                                      "secrets dir: give --secrets-dir)",
                                      file.string(), data_dir.string())
                        : fmt::format("{} is missing: is {} the cluster's secrets dir?", file.string(), secrets_dir.string()));
    }
  }
  if (fs::exists(incarnation_path(secrets_dir))) keys.push_back(incarnation_path(secrets_dir));
  make_private_dir(dest);
  auto scratch = dest / ".reading";
  make_private_dir(scratch);
  auto copied = store::copy_log(data_dir / log_dir, dest / log_dir, scratch);
  fs::remove_all(scratch);
  for (const auto& file : keys) write_private_file(dest / file.filename(), read_file(file));
  json_object files;
  for (const auto& name : files_of(dest, keys)) files.str(name, digest_of_file(dest / name));
  auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  auto body = json_object()
                  .str("format", backup_format)
                  .str("created_at", format_rfc3339_ms(now_ms.count()))
                  .num("last_seq", copied.last_seq)
                  .num("records", copied.records)
                  .raw("files", files.done())
                  .done();
  auto mac = manifest_mac(load_secret(dest), body);
  body.pop_back();  // the closing brace: the signature goes in last
  write_private_file(dest / manifest_file, fmt::format("{}{}{}\"}}\n", body, mac_member, mac));
  std::cout << fmt::format("foyer: backed up {} to {}: the log up to event {}, the pass keys and the secret\n",
                           data_dir.string(), dest.string(), copied.last_seq);
}

struct manifest {
  std::uint64_t last_seq = 0;
  std::map<std::string, std::string> files;  // name in the backup -> sha256 hex
};

// The manifest, once its signature is checked with the backup's secret: a manifest edited
// afterwards (a log cut short and last_seq changed to match, a digest replaced) is refused.
manifest read_manifest(const fs::path& from) {
  auto path = from / manifest_file;
  require_regular(path);
  if (fs::file_size(path) > max_manifest_bytes) throw failure(fmt::format("{} is too large to be a manifest", path.string()));
  auto text = read_file(path);
  auto not_manifest = [&] { return failure(fmt::format("{} is not a Foyer backup manifest ({})", path.string(), backup_format)); };
  if (text.size() < mac_tail + 2 || text.compare(text.size() - mac_tail, mac_member.size(), mac_member) != 0 ||
      !text.ends_with("\"}\n")) {
    throw not_manifest();
  }
  auto body = text.substr(0, text.size() - mac_tail) + "}";
  auto mac = text.substr(text.size() - mac_tail + mac_member.size(), 64);
  require_regular(secret_path(from));
  auto expected = manifest_mac(load_secret(from), body);
  if (!equal_constant_time(as_bytes(expected), as_bytes(mac))) {
    throw failure(fmt::format("{}: its signature does not match the backup's secret: the manifest or the secret "
                              "was changed after the backup was made",
                              path.string()));
  }
  simdjson::dom::parser parser;
  simdjson::dom::object object, files;
  std::string_view format;
  manifest m;
  if (parser.parse(body).get_object().get(object) || object["format"].get_string().get(format) ||
      format != backup_format || object["last_seq"].get_uint64().get(m.last_seq) ||
      object["files"].get_object().get(files)) {
    throw not_manifest();
  }
  for (auto [name, value] : files) {
    std::string_view hex;
    if (value.get_string().get(hex)) throw failure(fmt::format("{}: files.{} is not a digest", path.string(), name));
    m.files.emplace(std::string(name), std::string(hex));
  }
  return m;
}

// Whether foyer backup writes a file of this name: a key file, or one right under log/.
bool backup_name(std::string_view name) {
  if (name.starts_with(log_dir) && name.size() > log_dir.size() && name[log_dir.size()] == '/') {
    auto file = name.substr(log_dir.size() + 1);
    return !file.empty() && file != "." && file != ".." && file.find('/') == std::string_view::npos;
  }
  auto keys = key_files({});
  keys.push_back(incarnation_path({}));
  return std::any_of(keys.begin(), keys.end(), [&](const auto& key) { return key.string() == name; });
}

// The backup holds exactly the files its manifest lists, each a regular file: nothing
// planted beside them is copied, and none is missing.
void check_file_list(const fs::path& from, const manifest& m) {
  for (const auto& file : key_files({})) {
    if (!m.files.contains(file.string())) throw failure(fmt::format("the backup has no {}", file.string()));
  }
  for (const auto& listed : m.files) {
    if (!backup_name(listed.first)) {
      throw failure(fmt::format("{} lists {}, which foyer backup never writes", manifest_file, listed.first));
    }
  }
  std::error_code ec;
  auto status = fs::symlink_status(from / log_dir, ec);
  if (ec || fs::is_symlink(status) || !fs::is_directory(status)) {
    throw failure(fmt::format("{} is not a directory: refused", (from / log_dir).string()));
  }
  for (const auto& entry : fs::directory_iterator(from / log_dir)) {
    require_regular(entry.path());
    auto name = std::string(log_dir) + "/" + entry.path().filename().string();
    if (!m.files.contains(name)) throw failure(fmt::format("{} is not in {}: refused", entry.path().string(), manifest_file));
  }
}

// Checks the restored log as the server will read it: the store opens, and its log is
// whole up to the manifest's last event.
recovered_log check_restored_log(store::rocks_store& store, std::uint64_t last_seq) {
  auto log = store.recover();
  auto restored = log.snapshot_seq + log.events.size();
  if (restored != last_seq) {
    throw failure(fmt::format("the log holds events up to {}, the manifest says {}", restored, last_seq));
  }
  return log;
}

// What the restored log holds of each room: the tickets the backed-up server issued beyond
// it are refused by the restored one.
std::map<std::string, ticket_cut, std::less<>> restored_cuts(const fs::path& data_dir, std::uint64_t last_seq) {
  store::rocks_store store(data_dir / log_dir, [](std::function<void()>) {});
  auto log = check_restored_log(store, last_seq);
  journal rooms(store);
  rooms.recover(log);
  std::map<std::string, ticket_cut, std::less<>> cuts;
  for (const auto& [id, r] : rooms.rooms()) {
    // Each lane numbers its places and lobby indexes on its own.
    const auto& lanes = r.lanes();
    ticket_cut cut{lanes.at(0).joined, r.lobby_size(), {}};
    for (std::uint8_t lane = 1; lane < lanes.size(); ++lane) {
      cut.lanes.push_back({lanes.at(lane).joined, lane < r.draw_lanes() ? r.lobby_size(lane) : 0});
    }
    cuts.emplace(id, std::move(cut));
  }
  return cuts;
}

// The entries of the cluster's log the restored store holds: the node copies the rest
// from etcd. A backup of a node that ran alone cannot continue a cluster's log.
std::uint64_t restored_entries(const fs::path& data_dir, std::uint64_t last_seq) {
  store::rocks_store store(data_dir / log_dir, [](std::function<void()>) {});
  check_restored_log(store, last_seq);
  if (store.cluster_entries() == 0 && last_seq > 0) {
    throw failure("this backup is of a node that ran alone, not of a cluster's node: start the cluster from it "
                  "instead (README, \"Running two or three nodes\")");
  }
  return store.cluster_entries();
}

// A cluster node's backup restores only into the same cluster: one whose secret it carries.
void require_cluster_secret(const fs::path& from, const fs::path& secrets_dir) {
  require_regular(secret_path(secrets_dir));
  if (!equal_constant_time(load_secret(from), load_secret(secrets_dir))) {
    throw failure(fmt::format("the backup's secret is not the one in {}: it is a backup of another cluster or sale",
                              secrets_dir.string()));
  }
}

// Restores `from` into `data_dir`. Alone, the keys come too and the restore is a new
// incarnation. Into a cluster's node (`secrets_dir`), only the log comes: the keys are
// the cluster's already, and the node copies from etcd what came after the backup, so
// every ticket issued meanwhile stays good.
void restore(const fs::path& from, const fs::path& data_dir, const std::optional<fs::path>& secrets_dir) {
  auto m = read_manifest(from);
  check_file_list(from, m);
  if (secrets_dir) require_cluster_secret(from, *secrets_dir);
  require_clean(data_dir, "data dir");
  make_private_dir(data_dir);
  std::uint64_t entries = 0;
  try {
    make_private_dir(data_dir / log_dir);
    for (const auto& [name, expected] : m.files) {
      if (secrets_dir && !name.starts_with(std::string(log_dir) + "/")) continue;
      require_regular(from / name);
      fs::copy_file(from / name, data_dir / name);
      fs::permissions(data_dir / name, fs::perms::owner_read | fs::perms::owner_write);
      // The copy is what is checked: a file swapped after the checks above is caught too.
      if (digest_of_file(data_dir / name) != expected) {
        throw failure(fmt::format("{} does not match its digest in {}: the backup was changed or cut short",
                                  (from / name).string(), manifest_file));
      }
    }
    if (secrets_dir) {
      entries = restored_entries(data_dir, m.last_seq);
    } else {
      auto cuts = restored_cuts(data_dir, m.last_seq);
      // A new incarnation: tickets the backed-up server issued after the backup are refused.
      auto next = next_incarnation(load_incarnation(data_dir), std::move(cuts));
      write_private_file(incarnation_path(data_dir), encode_incarnation(next));
    }
  } catch (const std::exception&) {
    // Nothing half restored is left to be served from.
    for (const auto& entry : fs::directory_iterator(data_dir)) fs::remove_all(entry.path());
    throw;
  }
  if (secrets_dir) {
    std::cout << fmt::format("foyer: restored the log of {} into {}: up to event {}, entry {} of the cluster's log; "
                             "start the node with its [cluster] config and it copies the rest from etcd\n",
                             from.string(), data_dir.string(), m.last_seq, entries);
    return;
  }
  std::cout << fmt::format("foyer: restored {} into {}: the log up to event {}; serve it with --data-dir {}\n",
                           from.string(), data_dir.string(), m.last_seq, data_dir.string());
}

// A new incarnation for a log that was lost while the secret lives on (core/cluster/
// log_claim.hpp): the log must be empty and unmarked. Every earlier ticket is then refused
// as lost in restore, and the log is marked as the new incarnation's, so that a node leads it.
void new_incarnation(const config& c) {
  const fs::path keys_dir = c.cluster ? c.cluster->secrets_dir : c.data_dir;
  const auto secret = load_secret(keys_dir);
  const auto next = next_incarnation(load_incarnation(keys_dir), {});
  const auto mark = cluster::incarnation_mark(secret, next.id);
  if (!c.cluster) {
    store::rocks_store store(c.data_dir / log_dir, [](std::function<void()>) {});
    auto log = store.recover();
    if (log.snapshot || !log.events.empty() || store.incarnation_mark()) {
      throw failure(fmt::format("the log in {} is not empty: it is served as it is, or the server refuses it and "
                                "says why",
                                (c.data_dir / log_dir).string()));
    }
    write_private_file(incarnation_path(keys_dir), encode_incarnation(next));
    store.mark_incarnation(mark);
    std::cout << fmt::format("foyer: {} holds a new incarnation, and the empty log in {} is its own: tickets "
                             "issued before are refused (ticket_lost_in_restore)\n",
                             incarnation_path(keys_dir).string(), (c.data_dir / log_dir).string());
    return;
  }
  const auto& settings = c.cluster->settings;
  store::etcd::client etcd(settings.etcd, settings.access, std::chrono::milliseconds(2000));
  const auto key = cluster::incarnation_key(settings.prefix);
  auto entries = etcd.range(cluster::log_key(settings.prefix, 0), cluster::log_keys_end(settings.prefix), 1);
  if (!entries) {
    throw failure(fmt::format("etcd does not answer at {}: {}", fmt::join(settings.etcd, ", "), etcd.last_problem()));
  }
  const auto not_empty = fmt::format(
      "the cluster's log under '{}' is not empty: a node leads it as it is, or refuses and says why", settings.prefix);
  if (!entries->empty()) throw failure(not_empty);
  // The mark's guard is the check that the log is unmarked. The new incarnation is written
  // only once the log is marked as its own: secrets that no log is marked for would leave
  // the cluster with neither the old mark nor a way to make a new one.
  const std::vector<store::etcd::guard> unmarked{{store::etcd::guard::target::version, key, 0}};
  auto r = etcd.txn(unmarked, key, mark, 0, key);
  auto reply = r.answered ? store::etcd::client::parse_txn(r.body) : std::nullopt;
  if (reply && !reply->succeeded) throw failure(not_empty + " (another mark came first)");
  // A try whose answer was lost may have put the mark: it is read back.
  if (!reply) {
    auto found = etcd.range(key, key + '\0', 1);
    if (!found || found->empty() || found->front().value != mark) {
      throw failure(fmt::format("the cluster's log under '{}' could not be marked ({}): run the command again",
                                settings.prefix, r.problem));
    }
  }
  write_private_file(incarnation_path(keys_dir), encode_incarnation(next));
  std::cout << fmt::format("foyer: {} holds a new incarnation, and the empty cluster's log under '{}' is its own: "
                           "tickets issued before are refused (ticket_lost_in_restore). Copy {} to every node\n",
                           incarnation_path(keys_dir).string(), settings.prefix, keys_dir.string());
}

// Runs a command, printing its failure and exiting 1.
void run(const std::function<void()>& command, std::string_view name) {
  try {
    command();
  } catch (const std::exception& e) {
    std::cerr << fmt::format("foyer {}: {}\n", name, e.what());
    throw CLI::RuntimeError(1);
  }
}

}  // namespace

void add_backup_commands(CLI::App& app) {
  struct paths {
    std::string data_dir, other, secrets_dir;
  };
  auto backup_paths = std::make_shared<paths>();
  auto* b = app.add_subcommand("backup", "Copy a data dir, while its server runs, into a new directory.");
  b->add_option("--data-dir", backup_paths->data_dir, "The server's data dir")->required();
  b->add_option("--to", backup_paths->other, "A new or empty directory for the copy")->required();
  b->add_option("--secrets-dir", backup_paths->secrets_dir,
                "A cluster node's [cluster] secrets_dir, where its keys are (default: the data dir)");
  b->callback([backup_paths] {
    const fs::path data_dir = backup_paths->data_dir;
    const fs::path keys = backup_paths->secrets_dir.empty() ? data_dir : fs::path(backup_paths->secrets_dir);
    run([&] { backup(data_dir, keys, backup_paths->other); }, "backup");
  });

  auto incarnation_paths = std::make_shared<paths>();
  auto* n = app.add_subcommand("new-incarnation",
                               "After a log was lost (etcd wiped, a new prefix, a deleted log): refuse every earlier "
                               "ticket, and mark the empty log as this secret's new incarnation.");
  n->add_option("--config", incarnation_paths->other, "The server's TOML config file")->check(CLI::ExistingFile);
  n->add_option("--data-dir", incarnation_paths->data_dir, "The server's data dir (default: the config's)");
  n->callback([incarnation_paths] {
    run(
        [&] {
          auto c = incarnation_paths->other.empty() ? default_config() : load_config(incarnation_paths->other);
          if (!incarnation_paths->data_dir.empty()) c.data_dir = incarnation_paths->data_dir;
          new_incarnation(c);
        },
        "new-incarnation");
  });

  auto restore_paths = std::make_shared<paths>();
  auto* r = app.add_subcommand("restore", "Check a backup and restore it into a new data dir.");
  r->add_option("--from", restore_paths->other, "A directory written by foyer backup")->required();
  r->add_option("--data-dir", restore_paths->data_dir, "A new or empty data dir")->required();
  r->add_option("--secrets-dir", restore_paths->secrets_dir,
                "For a cluster's node: its [cluster] secrets_dir. Only the log is restored; the node copies the "
                "rest from etcd");
  r->callback([restore_paths] {
    std::optional<fs::path> keys;
    if (!restore_paths->secrets_dir.empty()) keys = restore_paths->secrets_dir;
    run([&] { restore(restore_paths->other, restore_paths->data_dir, keys); }, "restore");
  });
}

}  // namespace foyer::app
