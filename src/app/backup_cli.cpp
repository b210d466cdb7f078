#include "app/backup_cli.hpp"

#include <fmt/core.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/data_dir.hpp"
#include "app/keyring.hpp"
#include "core/base/crypto.hpp"
#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "store/log_copy.hpp"
#include "store/rocks_store.hpp"

namespace foyer::app {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view manifest_file = "backup.json";
constexpr std::string_view backup_format = "foyer-backup/1";
constexpr std::string_view log_dir = "log";

struct failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The files beside the log that a server needs to honour what it handed out.
std::vector<fs::path> key_files(const fs::path& data_dir) { return {secret_path(data_dir), keyring_path(data_dir)}; }

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

std::string digest_of(std::string_view bytes) { return to_hex(sha256(as_bytes(bytes))); }

void backup(const fs::path& data_dir, const fs::path& dest) {
  require_clean(dest, "backup target");
  for (const auto& file : key_files(data_dir)) {
    if (!fs::exists(file)) throw failure(fmt::format("{} is missing: is {} a Foyer data dir?", file.string(), data_dir.string()));
  }
  make_private_dir(dest);
  auto scratch = dest / ".reading";
  make_private_dir(scratch);
  auto copied = store::copy_log(data_dir / log_dir, dest / log_dir, scratch);
  fs::remove_all(scratch);
  json_object files;
  for (const auto& file : key_files(data_dir)) {
    auto bytes = read_file(file);
    write_private_file(dest / file.filename(), bytes);
    files.str(file.filename().string(), digest_of(bytes));
  }
  auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  write_private_file(dest / manifest_file, json_object()
                                               .str("format", backup_format)
                                               .str("created_at", format_rfc3339_ms(now_ms.count()))
                                               .num("last_seq", copied.last_seq)
                                               .num("records", copied.records)
                                               .raw("files", files.done())
                                               .done() +
                                               "\n");
  std::cout << fmt::format("foyer: backed up {} to {}: the log up to event {}, the pass keys and the secret\n",
                           data_dir.string(), dest.string(), copied.last_seq);
}

struct manifest {
  std::uint64_t last_seq = 0;
  std::vector<std::pair<std::string, std::string>> files;  // (name, sha256 hex)
};

manifest read_manifest(const fs::path& from) {
  auto path = from / manifest_file;
  auto text = read_file(path);
  simdjson::dom::parser parser;
  simdjson::dom::object object, files;
  std::string_view format;
  manifest m;
  if (parser.parse(text).get_object().get(object) || object["format"].get_string().get(format) ||
      format != backup_format || object["last_seq"].get_uint64().get(m.last_seq) ||
      object["files"].get_object().get(files)) {
    throw failure(fmt::format("{} is not a Foyer backup manifest ({})", path.string(), backup_format));
  }
  for (auto [name, value] : files) {
    std::string_view hex;
    if (value.get_string().get(hex)) throw failure(fmt::format("{}: files.{} is not a digest", path.string(), name));
    m.files.emplace_back(std::string(name), std::string(hex));
  }
  return m;
}

// Checks the copy in `data_dir` as the server will read it: the store opens, its log is
// whole up to the manifest's last event.
void check_restored_log(const fs::path& data_dir, std::uint64_t last_seq) {
  store::rocks_store store(data_dir / log_dir, [](std::function<void()>) {});
  auto log = store.recover();
  auto restored = log.snapshot_seq + log.events.size();
  if (restored != last_seq) {
    throw failure(fmt::format("the log holds events up to {}, the manifest says {}", restored, last_seq));
  }
}

void restore(const fs::path& from, const fs::path& data_dir) {
  auto m = read_manifest(from);
  for (const auto& file : key_files(data_dir)) {
    auto name = file.filename().string();
    auto listed = std::find_if(m.files.begin(), m.files.end(), [&](const auto& f) { return f.first == name; });
    if (listed == m.files.end()) throw failure(fmt::format("the backup has no {}", name));
    if (digest_of(read_file(from / name)) != listed->second) {
      throw failure(fmt::format("{} does not match its digest in {}", (from / name).string(), manifest_file));
    }
  }
  require_clean(data_dir, "data dir");
  make_private_dir(data_dir);
  try {
    fs::copy(from / log_dir, data_dir / log_dir, fs::copy_options::recursive);
    for (const auto& file : key_files(data_dir)) write_private_file(file, read_file(from / file.filename()));
    check_restored_log(data_dir, m.last_seq);
  } catch (const std::exception&) {
    // Nothing half restored is left to be served from.
    for (const auto& entry : fs::directory_iterator(data_dir)) fs::remove_all(entry.path());
    throw;
  }
  std::cout << fmt::format("foyer: restored {} into {}: the log up to event {}; serve it with --data-dir {}\n",
                           from.string(), data_dir.string(), m.last_seq, data_dir.string());
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
    std::string data_dir, other;
  };
  auto backup_paths = std::make_shared<paths>();
  auto* b = app.add_subcommand("backup", "Copy a data dir, while its server runs, into a new directory.");
  b->add_option("--data-dir", backup_paths->data_dir, "The server's data dir")->required();
  b->add_option("--to", backup_paths->other, "A new or empty directory for the copy")->required();
  b->callback([backup_paths] { run([&] { backup(backup_paths->data_dir, backup_paths->other); }, "backup"); });

  auto restore_paths = std::make_shared<paths>();
  auto* r = app.add_subcommand("restore", "Check a backup and restore it into a new data dir.");
  r->add_option("--from", restore_paths->other, "A directory written by foyer backup")->required();
  r->add_option("--data-dir", restore_paths->data_dir, "A new or empty data dir")->required();
  r->callback([restore_paths] { run([&] { restore(restore_paths->other, restore_paths->data_dir); }, "restore"); });
}

}  // namespace foyer::app
