#include "core/fairness/merkle.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "core/base/codec.hpp"
#include "core/base/crypto.hpp"

namespace foyer::merkle {
namespace {

constexpr std::uint8_t leaf_prefix[1] = {0x00};
constexpr std::uint8_t node_prefix[1] = {0x01};

struct leaf_range {
  std::uint64_t start;
  std::uint64_t length;
};

// The subtrees beside the path from leaf `index` to the root, nearest first
// (RFC 6962 §2.1.1 PATH). Each may be imperfect when it touches the right edge.
std::vector<leaf_range> sibling_ranges(std::uint64_t index, std::uint64_t size) {
  if (index >= size) throw std::invalid_argument("merkle: leaf index outside the tree");
  std::vector<leaf_range> out;
  std::uint64_t start = 0;
  while (size > 1) {
    std::uint64_t split = std::bit_floor(size - 1);
    if (index < split) {
      out.push_back({start + split, size - split});
      size = split;
    } else {
      out.push_back({start, split});
      start += split;
      index -= split;
      size -= split;
    }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// A range of a path never straddles a power-of-two boundary of its own length,
// so its binary decomposition, largest first, consists of aligned perfect subtrees.
void append_parts(std::vector<node_id>& out, leaf_range range) {
  for (int level = 63; level >= 0; --level) {
    std::uint64_t width = std::uint64_t{1} << level;
    if (range.length & width) {
      out.push_back({static_cast<std::uint32_t>(level), range.start >> level});
      range.start += width;
    }
  }
}

// MTH of perfect subtrees laid side by side, largest first.
digest fold_right(std::span<const digest> parts) {
  digest hash = parts.back();
  for (auto it = parts.rbegin() + 1; it != parts.rend(); ++it) hash = node_hash(*it, hash);
  return hash;
}

std::vector<node_id> range_parts(const std::vector<leaf_range>& ranges) {
  std::vector<node_id> out;
  for (auto range : ranges) append_parts(out, range);
  return out;
}

// One hash per range, each folded from the hashes of its range_parts().
std::vector<digest> fold_ranges(const std::vector<leaf_range>& ranges, std::span<const digest> node_hashes) {
  std::vector<digest> out;
  for (auto range : ranges) {
    auto parts = static_cast<std::size_t>(std::popcount(range.length));
    if (node_hashes.size() < parts) throw std::invalid_argument("merkle: too few node hashes");
    out.push_back(fold_right(node_hashes.first(parts)));
    node_hashes = node_hashes.subspan(parts);
  }
  if (!node_hashes.empty()) throw std::invalid_argument("merkle: too many node hashes");
  return out;
}

// RFC 9162 §2.1.4.1 SUBPROOF(m, D[start:start + n], b), as the subtrees whose hashes it
// lists, in its order.
void subproof_ranges(std::uint64_t m, std::uint64_t start, std::uint64_t n, bool whole_old_tree,
                     std::vector<leaf_range>& out) {
  if (m == n) {
    if (!whole_old_tree) out.push_back({start, n});
    return;
  }
  std::uint64_t k = std::bit_floor(n - 1);
  if (m <= k) {
    subproof_ranges(m, start, k, whole_old_tree, out);
    out.push_back({start + k, n - k});
  } else {
    subproof_ranges(m - k, start + k, n - k, false, out);
    out.push_back({start, k});
  }
}

std::vector<leaf_range> consistency_ranges(std::uint64_t old_size, std::uint64_t new_size) {
  if (old_size > new_size) throw std::invalid_argument("merkle: old tree larger than new tree");
  std::vector<leaf_range> out;
  if (old_size != 0 && old_size != new_size) subproof_ranges(old_size, 0, new_size, true, out);
  return out;
}

}  // namespace

digest leaf_hash(byte_view data) { return sha256({leaf_prefix, data}); }

digest node_hash(const digest& left, const digest& right) {
  return sha256({node_prefix, left, right});
}

digest empty_root() { return sha256(byte_view{}); }

std::vector<stored_node> frontier::append(const digest& leaf) {
  std::vector<stored_node> completed{{0, size_, leaf}};
  digest hash = leaf;
  for (std::uint32_t level = 0; size_ >> level & 1; ++level) {
    hash = node_hash(peaks_.back(), hash);
    peaks_.pop_back();
    completed.push_back({level + 1, size_ >> (level + 1), hash});
  }
  peaks_.push_back(hash);
  ++size_;
  return completed;
}

digest frontier::root() const { return peaks_.empty() ? empty_root() : fold_right(peaks_); }

std::string frontier::encode() const {
  writer out;
  out.u64(size_);
  for (const auto& peak : peaks_) out.raw(peak);
  return out.take();
}

std::optional<frontier> frontier::decode(std::string_view bytes) {
  reader in(bytes);
  frontier result;
  result.size_ = in.u64();
  for (int i = 0; i < std::popcount(result.size_); ++i) result.peaks_.push_back(in.raw<32>());
  if (!in.done()) return std::nullopt;
  return result;
}

std::vector<node_id> audit_path_nodes(std::uint64_t index, std::uint64_t size) {
  return range_parts(sibling_ranges(index, size));
}

std::vector<digest> audit_path(std::uint64_t index, std::uint64_t size,
                               const std::vector<digest>& node_hashes) {
  return fold_ranges(sibling_ranges(index, size), node_hashes);
}

std::optional<digest> root_from_path(const digest& leaf, std::uint64_t index, std::uint64_t size,
                                     std::span<const digest> path) {
  if (index >= size) return std::nullopt;
  std::uint64_t fn = index;
  std::uint64_t sn = size - 1;
  digest hash = leaf;
  for (const auto& sibling : path) {
    if (sn == 0) return std::nullopt;
    if ((fn & 1) || fn == sn) {
      hash = node_hash(sibling, hash);
      while (!(fn & 1) && fn != 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      hash = node_hash(hash, sibling);
    }
    fn >>= 1;
    sn >>= 1;
  }
  if (sn != 0) return std::nullopt;
  return hash;
}

bool verify_inclusion(const digest& leaf, std::uint64_t index, std::uint64_t size,
                      std::span<const digest> path, const digest& root) {
  auto computed = root_from_path(leaf, index, size, path);
  return computed && *computed == root;
}

std::vector<node_id> consistency_proof_nodes(std::uint64_t old_size, std::uint64_t new_size) {
  return range_parts(consistency_ranges(old_size, new_size));
}

std::vector<digest> consistency_proof(std::uint64_t old_size, std::uint64_t new_size,
                                      const std::vector<digest>& node_hashes) {
  return fold_ranges(consistency_ranges(old_size, new_size), node_hashes);
}

bool verify_consistency(std::uint64_t old_size, std::uint64_t new_size, std::span<const digest> proof,
                        const digest& old_root, const digest& new_root) {
  if (old_size > new_size) return false;
  if (old_size == 0) return proof.empty() && old_root == empty_root();
  if (old_size == new_size) return proof.empty() && old_root == new_root;
  if (proof.empty() || proof.size() > max_path_length) return false;
  // When the old tree is a perfect subtree of the new one, its root starts the walk.
  std::vector<digest> path;
  if (std::has_single_bit(old_size)) path.push_back(old_root);
  path.insert(path.end(), proof.begin(), proof.end());
  std::uint64_t fn = old_size - 1;
  std::uint64_t sn = new_size - 1;
  while (fn & 1) {
    fn >>= 1;
    sn >>= 1;
  }
  digest fr = path.front();
  digest sr = path.front();
  for (auto it = path.begin() + 1; it != path.end(); ++it) {
    if (sn == 0) return false;
    if ((fn & 1) || fn == sn) {
      fr = node_hash(*it, fr);
      sr = node_hash(*it, sr);
      while (!(fn & 1) && fn != 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      sr = node_hash(sr, *it);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && fr == old_root && sr == new_root;
}

digest root_of(std::span<const digest> leaves) {
  if (leaves.empty()) return empty_root();
  if (leaves.size() == 1) return leaves.front();
  std::size_t split = std::bit_floor(leaves.size() - 1);
  return node_hash(root_of(leaves.first(split)), root_of(leaves.subspan(split)));
}

std::vector<digest> path_in(std::span<const digest> leaves, std::uint64_t index) {
  std::vector<digest> path;
  for (auto range : sibling_ranges(index, leaves.size())) {
    path.push_back(root_of(leaves.subspan(range.start, range.length)));
  }
  return path;
}

std::vector<digest> consistency_in(std::span<const digest> leaves, std::uint64_t old_size) {
  std::vector<digest> proof;
  for (auto range : consistency_ranges(old_size, leaves.size())) {
    proof.push_back(root_of(leaves.subspan(range.start, range.length)));
  }
  return proof;
}

namespace {

// The MTH of leaves[offset, offset + n); on the way, appends to each leaf's path the
// sibling it meets at this level, so paths come out nearest sibling first.
digest build_paths(std::span<const digest> leaves, std::size_t offset, std::size_t n,
                   std::vector<std::vector<digest>>& paths) {
  if (n == 1) return leaves[offset];
  std::size_t k = std::bit_floor(n - 1);
  digest left = build_paths(leaves, offset, k, paths);
  digest right = build_paths(leaves, offset + k, n - k, paths);
  for (std::size_t i = offset; i < offset + k; ++i) paths[i].push_back(right);
  for (std::size_t i = offset + k; i < offset + n; ++i) paths[i].push_back(left);
  return node_hash(left, right);
}

}  // namespace

std::vector<std::vector<digest>> all_paths(std::span<const digest> leaves) {
  std::vector<std::vector<digest>> paths(leaves.size());
  if (!leaves.empty()) build_paths(leaves, 0, leaves.size(), paths);
  return paths;
}

}  // namespace foyer::merkle
