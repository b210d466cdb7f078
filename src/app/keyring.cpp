#include "app/keyring.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/chrono.h>
#include <fmt/core.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "app/config.hpp"
#include "app/data_dir.hpp"

namespace foyer::app {
namespace {

constexpr std::string_view keyring_file = "pass-keys.json";
// Far above any real ring (a key is about 150 bytes); refuses to slurp a wrong file.
constexpr off_t max_keyring_bytes = 1 << 20;

[[noreturn]] void bad_file(const std::filesystem::path& path, std::string_view what) {
  throw std::runtime_error(fmt::format("{}: {}", path.string(), what));
}

std::string errno_text() { return std::strerror(errno); }

class file_descriptor {
 public:
  explicit file_descriptor(int fd) : fd_(fd) {}
  file_descriptor(const file_descriptor&) = delete;
  file_descriptor& operator=(const file_descriptor&) = delete;
  ~file_descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Nullopt if there is no file yet.
std::optional<pass::keyring> load_keyring(const std::filesystem::path& data_dir) {
  auto path = keyring_path(data_dir);
  int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw < 0 && errno == ENOENT) return std::nullopt;
  if (raw < 0) bad_file(path, "cannot be opened: " + errno_text());
  file_descriptor fd(raw);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) bad_file(path, "cannot be examined: " + errno_text());
  if (!S_ISREG(st.st_mode)) bad_file(path, "is not a regular file");
  if ((st.st_mode & 077) != 0) {
    bad_file(path, fmt::format("holds secret keys but its mode is {:04o}; if no one else could have read it, "
                               "run chmod 600 on it, otherwise generate new keys",
                               st.st_mode & 07777));
  }
  if (st.st_size > max_keyring_bytes) bad_file(path, "is too large to be a key file");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    auto n = ::read(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) bad_file(path, "cannot be read: " + errno_text());
    if (n == 0) bad_file(path, "shrank while being read");
    done += static_cast<std::size_t>(n);
  }
  try {
    return pass::keyring::decode(text);
  } catch (const std::runtime_error& e) {
    bad_file(path, fmt::format("{}; restore it from a backup", e.what()));
  }
}

void write_all(int fd, const std::string& text, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) bad_file(path, "cannot be written: " + errno_text());
    done += static_cast<std::size_t>(n);
  }
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct keygen_options {
  std::string config_file;
  std::string data_dir;
  std::string retire;
  std::string alg = "EdDSA";
  bool list = false;
};

std::string key_state(const pass::keyring& ring, const pass::signing_key& k) {
  if (k.retired) return "retired";
  bool passes = &k == &ring.pass_signer();
  bool receipts = &k == &ring.active();
  if (passes && receipts) return "published, signs new passes and receipts";
  if (passes) return "published, signs new passes";
  if (receipts) return "published, signs receipts";
  return "published";
}

void list_keys(const pass::keyring& ring) {
  auto row = [](const pass::signing_key& k, std::string_view state) {
    auto created = fmt::format("{:%Y-%m-%d %H:%M:%S}", fmt::gmtime(static_cast<std::time_t>(k.created_at)));
    fmt::print("{:<18}{:<7}{:<21}{}\n", k.kid, pass::jws_alg(k.type), created, state);
  };
  fmt::print("{:<18}{:<7}{:<21}{}\n", "KID", "ALG", "CREATED (UTC)", "STATE");
  for (const auto& k : ring.keys()) row(k, key_state(ring, k));
  if (const auto* vapid = ring.vapid()) row(*vapid, "VAPID, signs Web Push requests");
}

void keygen(const keygen_options& options) {
  auto data_dir = options.data_dir.empty()
                      ? (options.config_file.empty() ? default_config() : load_config(options.config_file)).data_dir
                      : std::filesystem::path(options.data_dir);
  auto path = keyring_path(data_dir);
  if (options.list || !options.retire.empty()) {
    auto ring = load_keyring(data_dir);
    if (!ring) bad_file(path, "does not exist; run foyer keygen to create it");
    if (options.list) {
      list_keys(*ring);
    } else {
      ring->retire(options.retire);
      save_keyring(data_dir, *ring);
      fmt::print("retired key {}: the server stops publishing it at its next start\n", options.retire);
    }
    return;
  }
  auto type = pass::key_type_of(options.alg);
  prepare_data_dir(data_dir);
  bool existed = std::filesystem::exists(path);
  auto ring = load_or_create_keyring(data_dir, unix_now());
  if (!existed) {
    // A ring starts with an Ed25519 key: lobby receipts are always Ed25519.
    fmt::print("created {} with EdDSA key {}\n", path.string(), ring.active().kid);
    if (type == pass::key_type::ed25519) return;
  }
  ring.add(pass::generate_key(unix_now(), type));
  save_keyring(data_dir, ring);
  fmt::print("added {} key {}: the server signs new passes with it from its next start; older keys stay "
             "published until retired with foyer keygen --retire KID\n",
             options.alg, ring.pass_signer().kid);
}

}  // namespace

std::filesystem::path keyring_path(const std::filesystem::path& data_dir) { return data_dir / keyring_file; }

pass::keyring load_or_create_keyring(const std::filesystem::path& data_dir, std::int64_t now) {
  auto ring = load_keyring(data_dir);
  if (ring && ring->vapid()) return std::move(*ring);
  if (!ring) ring.emplace(pass::generate_key(now));
  // A ring from before Web Push gets its VAPID key at the next start.
  ring->set_vapid(pass::generate_key(now, pass::key_type::es256));
  save_keyring(data_dir, *ring);
  return std::move(*ring);
}

void save_keyring(const std::filesystem::path& data_dir, const pass::keyring& ring) {
  auto path = keyring_path(data_dir);
  auto temp = path;
  temp += ".tmp";
  // A temp file left by a crash may have any mode; start from a fresh one. O_EXCL also
  // refuses to follow a symlink planted under the temp name.
  if (::unlink(temp.c_str()) != 0 && errno != ENOENT) bad_file(temp, "cannot be removed: " + errno_text());
  {
    file_descriptor fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (fd.get() < 0) bad_file(temp, "cannot be created: " + errno_text());
    write_all(fd.get(), ring.encode(), temp);
    if (::fsync(fd.get()) != 0) bad_file(temp, "cannot be synced: " + errno_text());
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) bad_file(path, "cannot be replaced: " + errno_text());
  // The rename is durable only once the directory is.
  file_descriptor dir(::open(data_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0 || ::fsync(dir.get()) != 0) bad_file(data_dir, "cannot be synced: " + errno_text());
}

void add_keygen_command(CLI::App& app) {
  auto options = std::make_shared<keygen_options>();
  auto* cmd = app.add_subcommand("keygen", "Add a pass signing key (rotation), retire one, or list them.");
  auto* alg = cmd->add_option("--alg", options->alg,
                              "Type of the new key: EdDSA (Ed25519, the default) or ES256 (P-256, for "
                              "verifiers without EdDSA)")
                  ->check(CLI::IsMember({"EdDSA", "ES256"}));
  cmd->add_option("--config", options->config_file, "TOML config file whose data_dir holds the keys")
      ->check(CLI::ExistingFile);
  cmd->add_option("--data-dir", options->data_dir, "Data directory (default: the config's, ./foyer-data)");
  auto* retire = cmd->add_option("--retire", options->retire, "Stop publishing the key with this kid");
  auto* list = cmd->add_flag("--list", options->list, "List the keys: kid, creation time, state");
  retire->excludes(list);
  alg->excludes(retire);
  alg->excludes(list);
  cmd->callback([options] {
    try {
      keygen(*options);
    } catch (const std::exception& e) {
      fmt::print(stderr, "foyer keygen: {}\n", e.what());
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace foyer::app
