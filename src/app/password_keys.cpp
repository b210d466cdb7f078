#include "app/password_keys.hpp"

#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

namespace foyer::app {
namespace {

// A password is a line, not a document: a larger file is the wrong file.
constexpr std::size_t max_password_bytes = 1024;

std::string read_password_file(table_reader& t, std::string_view key, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) t.fail(key, fmt::format("cannot read {}", path));
  std::string text(max_password_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_password_bytes) t.fail(key, fmt::format("{} is larger than a password", path));
  if (text.ends_with('\n')) text.pop_back();
  if (text.ends_with('\r')) text.pop_back();
  return text;
}

}  // namespace

std::string read_password(table_reader& t, const toml::table& table, std::string_view prefix) {
  const auto inline_key = fmt::format("{}password", prefix);
  const auto file_key = inline_key + "_file";
  const auto env_key = inline_key + "_env";
  int sources = table.contains(inline_key) + table.contains(file_key) + table.contains(env_key);
  if (sources > 1) t.fail(inline_key, fmt::format("give it once: {}, {} or {}", inline_key, file_key, env_key));
  std::string password, file, variable;
  t.string(inline_key, password);
  t.string(file_key, file);
  t.string(env_key, variable);
  std::string_view key = inline_key;
  if (table.contains(file_key)) {
    key = file_key;
    password = read_password_file(t, key, file);
  } else if (table.contains(env_key)) {
    key = env_key;
    const char* value = variable.empty() ? nullptr : std::getenv(variable.c_str());
    if (!value) t.fail(key, fmt::format("names no variable of the environment ('{}')", variable));
    password = value;
  }
  if (sources > 0 && password.empty()) t.fail(key, "gives an empty password");
  if (password.find_first_of(std::string_view("\0\r\n", 3)) != std::string::npos) {
    t.fail(key, "gives a password with a NUL or a line break");
  }
  return password;
}

}  // namespace foyer::app
