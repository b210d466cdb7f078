#include <catch2/catch.hpp>
#include <simdjson.h>

#include <map>
#include <utility>
#include <vector>

#include "core/base/crypto.hpp"
#include "core/fairness/merkle.hpp"

using namespace foyer;
using namespace foyer::merkle;

namespace {

simdjson::dom::element vectors() {
  static simdjson::dom::parser parser;
  static simdjson::dom::element root = parser.load(FOYER_VECTORS);
  return root;
}

std::vector<digest> entrant_leaves(simdjson::dom::array entrants) {
  std::vector<digest> leaves;
  for (auto e : entrants) {
    auto id = from_hex_fixed<16>(e.get_string().value());
    REQUIRE(id);
    leaves.push_back(leaf_hash(*id));
  }
  return leaves;
}

digest numbered_leaf(std::uint64_t i) {
  std::uint8_t buf[8];
  put_be64(buf, i);
  return leaf_hash(buf);
}

// A frontier grown to `size` leaves, with every subtree it reported stored by id.
struct grown_tree {
  explicit grown_tree(std::uint64_t size) {
    for (std::uint64_t i = 0; i < size; ++i) {
      leaves.push_back(numbered_leaf(i));
      for (const auto& node : tree.append(leaves.back())) {
        stored[{node.level, node.index}] = node.hash;
      }
    }
  }
  std::vector<digest> lookup(const std::vector<node_id>& ids) const {
    std::vector<digest> hashes;
    for (auto id : ids) hashes.push_back(stored.at({id.level, id.index}));
    return hashes;
  }
  frontier tree;
  std::vector<digest> leaves;
  std::map<std::pair<std::uint32_t, std::uint64_t>, digest> stored;
};

}  // namespace

TEST_CASE("merkle hashing follows RFC 6962") {
  CHECK(to_hex(empty_root()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(root_of({}) == empty_root());
  CHECK(frontier{}.root() == empty_root());
  std::uint8_t zero[1] = {0x00};
  CHECK(leaf_hash(as_bytes("abc")) == sha256({zero, as_bytes("abc")}));
  digest a = numbered_leaf(1), b = numbered_leaf(2);
  std::uint8_t one[1] = {0x01};
  CHECK(node_hash(a, b) == sha256({one, a, b}));
}

TEST_CASE("merkle roots and inclusion reproduce the vectors") {
  for (auto v : vectors()["merkle"].get_array()) {
    auto leaves = entrant_leaves(v["entrants"].get_array());
    std::string root(v["root"].get_string().value());
    CHECK(to_hex(root_of(leaves)) == root);
    frontier tree;
    for (const auto& leaf : leaves) tree.append(leaf);
    CHECK(to_hex(tree.root()) == root);
  }
  auto v = vectors()["inclusion"];
  auto leaves = entrant_leaves(v["entrants"].get_array());
  std::uint64_t index = v["index"].get_uint64().value();
  std::vector<std::string> expected;
  for (auto p : v["path"].get_array()) expected.emplace_back(p.get_string().value());
  std::vector<std::string> path;
  for (const auto& p : path_in(leaves, index)) path.push_back(to_hex(p));
  CHECK(path == expected);
  auto root = from_hex_fixed<32>(v["root"].get_string().value());
  REQUIRE(root);
  CHECK(verify_inclusion(leaves[index], index, leaves.size(), path_in(leaves, index), *root));
}

TEST_CASE("merkle frontier root equals the tree root for every size from 1 to 300") {
  frontier tree;
  std::vector<digest> leaves;
  std::uint64_t first_bad = 0;
  for (std::uint64_t size = 1; size <= 300; ++size) {
    leaves.push_back(numbered_leaf(size));
    tree.append(leaves.back());
    if (tree.size() != size || tree.root() != root_of(leaves)) {
      first_bad = size;
      break;
    }
  }
  CHECK(first_bad == 0);
}

TEST_CASE("merkle append reports every perfect subtree it completes") {
  frontier tree;
  for (std::uint64_t i = 0; i < 7; ++i) tree.append(numbered_leaf(i));
  auto completed = tree.append(numbered_leaf(7));
  REQUIRE(completed.size() == 4);
  std::vector<digest> leaves;
  for (std::uint64_t i = 0; i < 8; ++i) leaves.push_back(numbered_leaf(i));
  for (std::uint32_t level = 0; level < 4; ++level) {
    CHECK(completed[level].id() == node_id{level, 7u >> level});
    std::uint64_t width = std::uint64_t{1} << level;
    CHECK(completed[level].hash ==
          root_of(std::span<const digest>(leaves).subspan(8 - width, width)));
  }
  auto single = tree.append(numbered_leaf(8));
  REQUIRE(single.size() == 1);
  CHECK(single[0].id() == node_id{0, 8});
}

TEST_CASE("merkle audit paths from stored subtrees equal in-memory paths and verify") {
  grown_tree grown(300);
  for (std::uint64_t size : {1, 2, 3, 5, 7, 8, 9, 16, 31, 33, 100, 255, 256, 257, 300}) {
    std::span<const digest> leaves(grown.leaves.data(), size);
    digest root = root_of(leaves);
    for (std::uint64_t index = 0; index < size; ++index) {
      INFO("size " << size << ", index " << index);
      auto path = audit_path(index, size, grown.lookup(audit_path_nodes(index, size)));
      REQUIRE(path == path_in(leaves, index));
      REQUIRE(verify_inclusion(leaves[index], index, size, path, root));
    }
  }
}

TEST_CASE("merkle inclusion fails for a wrong leaf, index, size, path or root") {
  grown_tree grown(13);
  digest root = grown.tree.root();
  auto path = path_in(grown.leaves, 6);
  REQUIRE(verify_inclusion(grown.leaves[6], 6, 13, path, root));
  CHECK_FALSE(verify_inclusion(grown.leaves[5], 6, 13, path, root));
  CHECK_FALSE(verify_inclusion(grown.leaves[6], 7, 13, path, root));
  // Sizes 9 to 16 give leaf 6 the same path shape; 8 has one level fewer.
  CHECK_FALSE(verify_inclusion(grown.leaves[6], 6, 8, path, root));
  CHECK_FALSE(verify_inclusion(grown.leaves[6], 6, 5, path, root));
  CHECK_FALSE(verify_inclusion(grown.leaves[6], 13, 13, path, root));
  auto tampered = path;
  tampered[1][0] ^= 1;
  CHECK_FALSE(verify_inclusion(grown.leaves[6], 6, 13, tampered, root));
  auto longer = path;
  longer.push_back(root);
  CHECK_FALSE(root_from_path(grown.leaves[6], 6, 13, longer));
  auto shorter = path;
  shorter.pop_back();
  CHECK_FALSE(root_from_path(grown.leaves[6], 6, 13, shorter));
  CHECK_FALSE(verify_inclusion(grown.leaves[6], 6, 13, path, grown.leaves[0]));
}

TEST_CASE("merkle audit_path refuses a wrong number of hashes or an index outside the tree") {
  grown_tree grown(10);
  auto hashes = grown.lookup(audit_path_nodes(9, 10));
  CHECK_NOTHROW(audit_path(9, 10, hashes));
  auto fewer = hashes;
  fewer.pop_back();
  CHECK_THROWS_AS(audit_path(9, 10, fewer), std::invalid_argument);
  auto more = hashes;
  more.push_back(hashes.front());
  CHECK_THROWS_AS(audit_path(9, 10, more), std::invalid_argument);
  CHECK_THROWS_AS(audit_path_nodes(10, 10), std::invalid_argument);
  CHECK_THROWS_AS(path_in(grown.leaves, 10), std::invalid_argument);
}

TEST_CASE("merkle frontier survives encode and decode") {
  grown_tree grown(45);
  auto decoded = frontier::decode(grown.tree.encode());
  REQUIRE(decoded);
  CHECK(decoded->size() == 45);
  CHECK(decoded->root() == grown.tree.root());
  decoded->append(numbered_leaf(45));
  grown.tree.append(numbered_leaf(45));
  CHECK(decoded->root() == grown.tree.root());

  auto bytes = grown.tree.encode();
  CHECK(bytes.size() == 8 + 32 * 4);  // 46 = 32 + 8 + 4 + 2
  CHECK_FALSE(frontier::decode(bytes.substr(0, bytes.size() - 1)));
  CHECK_FALSE(frontier::decode(bytes + "x"));
  auto empty = frontier::decode(frontier{}.encode());
  REQUIRE(empty);
  CHECK(empty->size() == 0);
  CHECK(empty->root() == empty_root());
}

TEST_CASE("all_paths gives every leaf the path path_in gives it") {
  for (std::size_t n = 1; n <= 70; ++n) {
    std::vector<foyer::digest> leaves;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint8_t b = static_cast<std::uint8_t>(i);
      leaves.push_back(foyer::merkle::leaf_hash(foyer::byte_view(&b, 1)));
    }
    auto paths = foyer::merkle::all_paths(leaves);
    REQUIRE(paths.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("n " << n << " index " << i);
      REQUIRE(paths[i] == foyer::merkle::path_in(leaves, i));
    }
  }
}
