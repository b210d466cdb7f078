#pragma once
// The config's reader of one TOML table (app/config.cpp and the tables kept in their own
// files, e.g. app/smtp_config.cpp): typed, range-checked keys, and errors that name the key.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "app/config.hpp"

namespace foyer::app {

// Reads one TOML table, remembering which keys were used, so that a misspelt key is
// refused instead of silently ignored.
class table_reader {
 public:
  table_reader(const toml::table& table, std::string where) : table_(table), where_(std::move(where)) {}

  std::string name(std::string_view key) const {
    return where_.empty() ? std::string(key) : fmt::format("{}.{}", where_, key);
  }

  [[noreturn]] void fail(std::string_view key, std::string_view problem) const {
    throw config_error(fmt::format("config: {}: {}", name(key), problem));
  }

  template <class T>
  void integer(std::string_view key, T& out, std::int64_t min, std::int64_t max) {
    const toml::node* node = take(key);
    if (!node) return;
    // Only an integer node is read as one: toml++ 3.3 converts a float to an integer
    // before it checks the range (undefined for 1e100; found by the config fuzz target).
    auto v = node->is_integer() ? node->value<std::int64_t>() : std::nullopt;
    if (!v || *v < min || *v > max) {
      fail(key, fmt::format("must be a whole number from {} to {}", min, max));
    }
    out = static_cast<T>(*v);
  }

  void string(std::string_view key, std::string& out) {
    const toml::node* node = take(key);
    if (!node) return;
    if (!node->is_string()) fail(key, "must be a string");
    out = *node->value<std::string>();
  }

  void boolean(std::string_view key, bool& out) {
    const toml::node* node = take(key);
    if (!node) return;
    if (!node->is_boolean()) fail(key, "must be true or false");
    out = *node->value<bool>();
  }

  const toml::node* take(std::string_view key) {
    used_.insert(std::string(key));
    return table_.get(key);
  }

  void refuse_unknown() const {
    for (const auto& [key, node] : table_) {
      if (!used_.contains(std::string(key.str()))) fail(key.str(), "unknown setting");
    }
  }

 private:
  const toml::table& table_;
  std::string where_;
  std::set<std::string> used_;
};

}  // namespace foyer::app
