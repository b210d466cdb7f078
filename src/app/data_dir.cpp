#include "app/data_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/core.h>

namespace foyer::app {
namespace {

constexpr std::string_view secret_file = "secret";

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what) {
  throw std::runtime_error(fmt::format("data dir: {}: {}", path.string(), what));
}

}  // namespace

void prepare_data_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  bool created = std::filesystem::create_directories(dir, ec);
  if (ec) fail(dir, fmt::format("cannot create it: {}", ec.message()));
  // Keys and the secret live here: only the owner may look inside.
  if (created) std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  if (ec) fail(dir, fmt::format("cannot restrict its permissions: {}", ec.message()));
  if (!std::filesystem::is_directory(dir)) fail(dir, "exists but is not a directory");
  if (::access(dir.c_str(), R_OK | W_OK | X_OK) != 0) fail(dir, fmt::format("not usable: {}", std::strerror(errno)));
}

std::filesystem::path secret_path(const std::filesystem::path& dir) { return dir / secret_file; }

digest load_or_create_secret(const std::filesystem::path& dir) {
  auto path = secret_path(dir);
  digest secret;
  if (std::filesystem::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) fail(path, "cannot be read");
    auto decoded = from_hex_fixed<32>(bytes.substr(0, bytes.find_last_not_of("\n") + 1));
    if (!decoded) fail(path, "is not a secret written by foyer (64 hex digits); restore it from a backup");
    return *decoded;
  }
  random_bytes(secret);
  auto temp = path;
  temp += ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail(temp, fmt::format("cannot be created: {}", std::strerror(errno)));
  std::string text = to_hex(secret) + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) fail(path, "cannot be written");
  return secret;
}

}  // namespace foyer::app
