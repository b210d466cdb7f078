#pragma once
// C2SP tlog-tiles (c2sp.org/tlog-tiles): a log's entries and Merkle tree as static files.
//
//   tile/<L>/<N>[.p/<W>]       level L, index N: 256 (or, partial, W < 256) hashes of 32
//                              bytes; level 0 holds leaf hashes, level L+1 the MTH of
//                              each full tile of level L
//   tile/entries/<N>[.p/<W>]   the entries of level-0 tile N, each as u16be length ‖ bytes
//   <N>                        zero-padded 3-digit groups, all but the last prefixed "x":
//                              1234067 is x001/x234/067, 5 is 005
//
// The writer takes entries one at a time and holds one partial tile per level; the
// checker rebuilds the same files from the entry bundles and compares them byte for byte.
// Pure: the caller stores and reads the files.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/fairness/merkle.hpp"

namespace foyer::tiles {

inline constexpr std::size_t tile_width = 256;
inline constexpr std::uint32_t tile_height = 8;  // log2(tile_width)
inline constexpr std::size_t max_entry_size = 0xFFFF;  // the u16be length prefix

// "x001/x234/067" for 1234067.
std::string index_path(std::uint64_t n);
// "tile/<level>/<N>", with ".p/<width>" when width < tile_width. Throws
// std::invalid_argument unless 0 < width <= tile_width.
std::string tile_path(std::uint32_t level, std::uint64_t n, std::size_t width);
std::string entries_path(std::uint64_t n, std::size_t width);

// A tile or bundle named by its path.
struct tile_ref {
  bool entries = false;     // tile/entries/…; else a hash tile at `level`
  std::uint32_t level = 0;
  std::uint64_t n = 0;
  std::size_t width = tile_width;
  friend bool operator==(const tile_ref&, const tile_ref&) = default;
};
// nullopt unless `path` is exactly a tile or bundle path as tile_path/entries_path write it.
std::optional<tile_ref> parse_path(std::string_view path);
// Whether a tree of `size` entries has this file: a full tile it completed, or its
// partial tile at that level with exactly that width.
bool has_file(const tile_ref& ref, std::uint64_t size);
// The level and first index of the tree nodes the file holds (level 0: leaf hashes,
// for bundles the entries), each tile `width` of them.
merkle::node_id first_node(const tile_ref& ref);

struct tile_file {
  std::string path;
  std::string bytes;
  friend bool operator==(const tile_file&, const tile_file&) = default;
};

class writer {
 public:
  // Throws std::invalid_argument for an entry longer than max_entry_size.
  void append(byte_view entry);
  // The full tiles and bundles completed since the last call, in the order completed.
  // They never change again.
  std::vector<tile_file> take_full();
  // The partial tiles and bundle of the tree as it stands (none for a size that is a
  // multiple of 256 at a level); they are replaced as the tree grows.
  std::vector<tile_file> partials() const;

  std::uint64_t size() const { return tree_.size(); }
  digest root() const { return tree_.root(); }

 private:
  merkle::frontier tree_;
  std::vector<std::string> levels_;  // per level: the concatenated hashes of its partial tile
  std::string bundle_;
  std::size_t bundle_count_ = 0;
  std::vector<tile_file> full_;
};

struct problem {
  std::string path;
  std::string what;
};

// Reads a published file by its path; nullopt if there is none.
using file_reader = std::function<std::optional<std::string>(const std::string& path)>;
// Called with each entry of the log, in order, once its bundle has been read.
using entry_visitor = std::function<void(std::uint64_t index, byte_view entry)>;

// Checks the log of `size` entries whose RFC 6962 root is `root` (from a verified
// checkpoint): every bundle and tile such a tree has must be there, each bundle must hold
// exactly its entries, each tile must be exactly what the entries give, and the entries
// must give `root`. Returns the first problem found, or nullopt if there is none.
std::optional<problem> check(std::uint64_t size, const digest& root, const file_reader& read,
                             const entry_visitor& visit = {});

}  // namespace foyer::tiles
