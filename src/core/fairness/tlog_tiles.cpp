#include "core/fairness/tlog_tiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace foyer::tiles {
namespace {

constexpr std::size_t hash_size = std::tuple_size_v<digest>;
constexpr std::size_t full_tile_bytes = tile_width * hash_size;
constexpr std::size_t length_prefix = 2;

std::string width_suffix(std::size_t width) {
  if (width == 0 || width > tile_width) throw std::invalid_argument("tiles: width out of range");
  return width == tile_width ? std::string() : fmt::format(".p/{}", width);
}

// The entries of one bundle, which must hold exactly `count`; nullopt otherwise.
std::optional<std::vector<byte_view>> split_bundle(std::string_view bundle, std::size_t count) {
  std::vector<byte_view> entries;
  auto bytes = as_bytes(bundle);
  while (!bytes.empty() && entries.size() < count) {
    if (bytes.size() < length_prefix) return std::nullopt;
    std::size_t length = std::size_t{bytes[0]} << 8 | bytes[1];
    bytes = bytes.subspan(length_prefix);
    if (bytes.size() < length) return std::nullopt;
    entries.push_back(bytes.first(length));
    bytes = bytes.subspan(length);
  }
  if (!bytes.empty() || entries.size() != count) return std::nullopt;
  return entries;
}

std::optional<problem> compare(const tile_file& expected, const file_reader& read) {
  auto actual = read(expected.path);
  if (!actual) return problem{expected.path, "missing"};
  if (*actual != expected.bytes) return problem{expected.path, "differs from what the entries give"};
  return std::nullopt;
}

}  // namespace

std::string index_path(std::uint64_t n) {
  std::string out = fmt::format("{:03}", n % 1000);
  for (n /= 1000; n > 0; n /= 1000) out = fmt::format("x{:03}/", n % 1000) + out;
  return out;
}

std::string tile_path(std::uint32_t level, std::uint64_t n, std::size_t width) {
  return fmt::format("tile/{}/{}{}", level, index_path(n), width_suffix(width));
}

std::string entries_path(std::uint64_t n, std::size_t width) {
  return fmt::format("tile/entries/{}{}", index_path(n), width_suffix(width));
}

namespace {

// Digits of one path element: three, or fewer with no leading zero for a plain number.
std::optional<std::uint64_t> read_number(std::string_view text) {
  if (text.empty() || text.size() > 20 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

// "x001/x234/067" back to 1234067, as index_path writes it (no group may be left out).
std::optional<std::uint64_t> read_index(std::string_view text) {
  std::uint64_t v = 0;
  while (true) {
    bool more = !text.empty() && text[0] == 'x';
    if (more) text.remove_prefix(1);
    if (text.size() < 3 || text.substr(0, 3).find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    if (v > UINT64_MAX / 1000) return std::nullopt;
    v = v * 1000 + static_cast<std::uint64_t>(std::stoul(std::string(text.substr(0, 3))));
    text.remove_prefix(3);
    if (!more) break;
    if (text.empty() || text[0] != '/') return std::nullopt;
    text.remove_prefix(1);
  }
  if (!text.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<tile_ref> parse_path(std::string_view path) {
  if (!path.starts_with("tile/")) return std::nullopt;
  path.remove_prefix(5);
  tile_ref ref;
  auto slash = path.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto head = path.substr(0, slash);
  if (head == "entries") {
    ref.entries = true;
  } else {
    auto level = read_number(head);
    if (!level || *level > 63) return std::nullopt;
    ref.level = static_cast<std::uint32_t>(*level);
  }
  path.remove_prefix(slash + 1);
  if (auto partial = path.find(".p/"); partial != std::string_view::npos) {
    auto width = read_number(path.substr(partial + 3));
    if (!width || *width == 0 || *width >= tile_width) return std::nullopt;
    ref.width = static_cast<std::size_t>(*width);
    path = path.substr(0, partial);
  }
  auto n = read_index(path);
  // Only the one spelling index_path writes ("x000/005" is not 5's).
  if (!n || index_path(*n) != path) return std::nullopt;
  ref.n = *n;
  return ref;
}

bool has_file(const tile_ref& ref, std::uint64_t size) {
  unsigned shift = tile_height * ref.level;
  if (shift >= 64) return false;
  std::uint64_t nodes = size >> shift;  // the level's complete nodes
  std::uint64_t full = nodes / tile_width;
  if (ref.width == tile_width) return ref.n < full;
  return ref.n == full && nodes % tile_width == ref.width;
}

merkle::node_id first_node(const tile_ref& ref) {
  return {tile_height * ref.level, ref.n * tile_width};
}

void writer::append(byte_view entry) {
  if (entry.size() > max_entry_size) throw std::invalid_argument("tiles: entry longer than 65535 bytes");
  bundle_ += static_cast<char>(entry.size() >> 8);
  bundle_ += static_cast<char>(entry.size() & 0xFF);
  bundle_ += as_chars(entry);
  if (++bundle_count_ == tile_width) {
    full_.push_back({entries_path(tree_.size() / tile_width, tile_width), std::move(bundle_)});
    bundle_.clear();
    bundle_count_ = 0;
  }
  // Each subtree of height 8k the append completes is the next hash of level k.
  for (const auto& node : tree_.append(merkle::leaf_hash(entry))) {
    if (node.level % tile_height != 0) continue;
    std::size_t level = node.level / tile_height;
    if (levels_.size() <= level) levels_.resize(level + 1);
    levels_[level] += as_chars(node.hash);
    if (levels_[level].size() == full_tile_bytes) {
      full_.push_back({tile_path(static_cast<std::uint32_t>(level), node.index / tile_width, tile_width),
                       std::move(levels_[level])});
      levels_[level].clear();
    }
  }
}

std::vector<tile_file> writer::take_full() { return std::exchange(full_, {}); }

std::vector<tile_file> writer::partials() const {
  std::vector<tile_file> out;
  for (std::size_t level = 0; level < levels_.size(); ++level) {
    if (levels_[level].empty()) continue;
    std::uint64_t index = size() >> (tile_height * (level + 1));
    out.push_back({tile_path(static_cast<std::uint32_t>(level), index, levels_[level].size() / hash_size),
                   levels_[level]});
  }
  if (bundle_count_ > 0) out.push_back({entries_path(size() / tile_width, bundle_count_), bundle_});
  return out;
}

std::optional<problem> check(std::uint64_t size, const digest& root, const file_reader& read,
                             const entry_visitor& visit) {
  writer rebuilt;
  for (std::uint64_t n = 0; n * tile_width < size; ++n) {
    std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(tile_width, size - n * tile_width));
    std::string path = entries_path(n, count);
    auto bundle = read(path);
    if (!bundle) return problem{path, "missing"};
    auto entries = split_bundle(*bundle, count);
    if (!entries) return problem{path, fmt::format("does not hold exactly {} entries", count)};
    for (auto entry : *entries) {
      if (visit) visit(rebuilt.size(), entry);
      rebuilt.append(entry);
    }
    for (const auto& file : rebuilt.take_full()) {
      if (auto p = compare(file, read)) return p;
    }
  }
  for (const auto& file : rebuilt.partials()) {
    if (auto p = compare(file, read)) return p;
  }
  if (rebuilt.root() != root) return problem{"checkpoint", "the entries give another root"};
  return std::nullopt;
}

}  // namespace foyer::tiles
