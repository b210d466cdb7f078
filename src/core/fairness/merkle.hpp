#pragma once
// RFC 6962 Merkle trees (the lobby of the lottery, receipt batches, the public logs):
// hashing, an incremental frontier with O(log N) state, and audit paths and consistency
// proofs built from stored perfect subtrees, checked as in RFC 9162 §2.1.3.2 and §2.1.4.2.
//
//   leaf hash = SHA-256(0x00 ‖ data)       node hash = SHA-256(0x01 ‖ left ‖ right)
//   MTH of n > 1 leaves splits at the largest power of two smaller than n;
//   MTH of no leaves is SHA-256 of the empty string.
//
// A perfect subtree is named by (level, index): it covers the leaves
// [index × 2^level, (index + 1) × 2^level). Level 0 is a leaf hash.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/bytes.hpp"

namespace foyer::merkle {

// An audit path has at most one entry per level of a 64-bit tree.
inline constexpr std::size_t max_path_length = 64;

digest leaf_hash(byte_view data);
digest node_hash(const digest& left, const digest& right);
digest empty_root();

struct node_id {
  std::uint32_t level;
  std::uint64_t index;
  friend bool operator==(const node_id&, const node_id&) = default;
};

struct stored_node {
  std::uint32_t level;
  std::uint64_t index;
  digest hash;
  node_id id() const { return {level, index}; }
};

// The right edge of a growing tree: one hash per set bit of size(), the largest
// subtree first. Enough to append and to compute the root.
class frontier {
 public:
  // Adds a leaf hash; returns every perfect subtree this append completed, the
  // leaf itself first, so the caller can store them for audit paths later.
  std::vector<stored_node> append(const digest& leaf);
  std::uint64_t size() const { return size_; }
  digest root() const;

  // u64be size ‖ the subtree hashes, largest first.
  std::string encode() const;
  static std::optional<frontier> decode(std::string_view bytes);

 private:
  std::uint64_t size_ = 0;
  std::vector<digest> peaks_;
};

// The perfect subtrees whose hashes make up the audit path of leaf `index` in a
// tree of `size` leaves, in the order audit_path() takes them. All of them lie
// inside [0, size), so a frontier's append() has returned each of them.
// Throws std::invalid_argument unless index < size.
std::vector<node_id> audit_path_nodes(std::uint64_t index, std::uint64_t size);

// The RFC 6962 audit path (nearest sibling first) from the hashes of
// audit_path_nodes(index, size), in that order. Throws std::invalid_argument if
// index >= size or the number of hashes is wrong.
std::vector<digest> audit_path(std::uint64_t index, std::uint64_t size,
                               const std::vector<digest>& node_hashes);

// The root an audit path leads to (RFC 9162 §2.1.3.2), or nullopt if the path
// cannot belong to leaf `index` of a tree of `size` leaves.
std::optional<digest> root_from_path(const digest& leaf, std::uint64_t index, std::uint64_t size,
                                     std::span<const digest> path);
bool verify_inclusion(const digest& leaf, std::uint64_t index, std::uint64_t size,
                      std::span<const digest> path, const digest& root);

// Consistency proofs (RFC 9162 §2.1.4) between a tree of old_size leaves and one of
// new_size, the same way: the perfect subtrees whose hashes make up the proof, then the
// proof from their hashes. Empty when old_size is 0 or equal to new_size. Both throw
// std::invalid_argument if old_size > new_size; the second if the number of hashes is wrong.
std::vector<node_id> consistency_proof_nodes(std::uint64_t old_size, std::uint64_t new_size);
std::vector<digest> consistency_proof(std::uint64_t old_size, std::uint64_t new_size,
                                      const std::vector<digest>& node_hashes);
// RFC 9162 §2.1.4.2; a tree of 0 leaves (root empty_root()) is consistent with any tree,
// by an empty proof.
bool verify_consistency(std::uint64_t old_size, std::uint64_t new_size, std::span<const digest> proof,
                        const digest& old_root, const digest& new_root);

// In-memory trees over leaf hashes, for small trees (receipt batches) and tests.
digest root_of(std::span<const digest> leaves);
// Throws std::invalid_argument unless index < leaves.size().
std::vector<digest> path_in(std::span<const digest> leaves, std::uint64_t index);
// Throws std::invalid_argument unless old_size <= leaves.size().
std::vector<digest> consistency_in(std::span<const digest> leaves, std::uint64_t old_size);
// Every leaf's audit path at once, with O(n) hashes where path_in for each leaf takes
// O(n) each: a receipt batch needs them all.
std::vector<std::vector<digest>> all_paths(std::span<const digest> leaves);

}  // namespace foyer::merkle
