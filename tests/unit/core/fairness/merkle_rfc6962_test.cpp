#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "core/fairness/merkle.hpp"

using namespace foyer;
using namespace foyer::merkle;

namespace {

// The RFC 6962 reference leaves and roots, as Certificate Transparency's and
// transparency-dev/merkle's tests publish them (roots[n] is the root of the first n).
const std::vector<std::string> reference_leaves = {
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"};
const std::vector<std::string> reference_roots = {
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
};

struct consistency_vector {
  std::uint64_t old_size;
  std::uint64_t new_size;
  std::vector<std::string> proof;
};
const std::vector<consistency_vector> reference_consistency = {
    {1, 1, {}},
    {1, 8,
     {"96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"}},
    {6, 8,
     {"0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}},
    {2, 5,
     {"5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"}},
};

std::vector<digest> reference_leaf_hashes() {
  std::vector<digest> out;
  for (const auto& hex : reference_leaves) out.push_back(leaf_hash(*from_hex(hex)));
  return out;
}

std::vector<std::string> hexes(const std::vector<digest>& hashes) {
  std::vector<std::string> out;
  for (const auto& h : hashes) out.push_back(to_hex(h));
  return out;
}

std::vector<digest> numbered_leaves(std::uint64_t n) {
  std::vector<digest> out;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint8_t buf[8];
    put_be64(buf, i * 7919);
    out.push_back(leaf_hash(buf));
  }
  return out;
}

}  // namespace

TEST_CASE("merkle: roots of the RFC 6962 reference leaves, sizes 0 to 8", "[merkle][rfc6962]") {
  auto leaves = reference_leaf_hashes();
  frontier grown;
  CHECK(to_hex(grown.root()) == reference_roots[0]);
  for (std::size_t n = 0; n <= leaves.size(); ++n) {
    CAPTURE(n);
    CHECK(to_hex(root_of(std::span(leaves).first(n))) == reference_roots[n]);
    if (n > 0) {
      grown.append(leaves[n - 1]);
      CHECK(to_hex(grown.root()) == reference_roots[n]);
    }
  }
}

TEST_CASE("merkle: consistency proofs of the RFC 6962 reference tree", "[merkle][rfc6962]") {
  auto leaves = reference_leaf_hashes();
  for (const auto& v : reference_consistency) {
    CAPTURE(v.old_size, v.new_size);
    auto proof = consistency_in(std::span(leaves).first(v.new_size), v.old_size);
    CHECK(hexes(proof) == v.proof);
    CHECK(verify_consistency(v.old_size, v.new_size, proof, *from_hex_fixed<32>(reference_roots[v.old_size]),
                             *from_hex_fixed<32>(reference_roots[v.new_size])));
  }
}

TEST_CASE("merkle: every consistency proof up to 40 leaves verifies, from stored nodes too", "[merkle]") {
  auto leaves = numbered_leaves(40);
  // Every perfect subtree, as a frontier reports them.
  std::map<std::pair<std::uint32_t, std::uint64_t>, digest> stored;
  frontier grown;
  for (const auto& leaf : leaves) {
    for (const auto& node : grown.append(leaf)) stored[{node.level, node.index}] = node.hash;
  }
  for (std::uint64_t n = 0; n <= leaves.size(); ++n) {
    auto tree = std::span(leaves).first(n);
    digest new_root = root_of(tree);
    for (std::uint64_t m = 0; m <= n; ++m) {
      CAPTURE(m, n);
      auto proof = consistency_in(tree, m);
      digest old_root = root_of(tree.first(m));
      REQUIRE(verify_consistency(m, n, proof, old_root, new_root));

      std::vector<digest> node_hashes;
      for (auto id : consistency_proof_nodes(m, n)) {
        REQUIRE(id.index << id.level < n);
        node_hashes.push_back(stored.at({id.level, id.index}));
      }
      CHECK(consistency_proof(m, n, node_hashes) == proof);

      if (m == 0 || m == n) {
        CHECK(proof.empty());
        continue;
      }
      CHECK_FALSE(verify_consistency(m, n, proof, new_root, new_root));
      auto flipped = proof;
      flipped.back()[0] ^= 1;
      CHECK_FALSE(verify_consistency(m, n, flipped, old_root, new_root));
      auto shorter = std::span(proof).first(proof.size() - 1);
      CHECK_FALSE(verify_consistency(m, n, shorter, old_root, new_root));
      auto longer = proof;
      longer.push_back(proof.front());
      CHECK_FALSE(verify_consistency(m, n, longer, old_root, new_root));
    }
  }
}

TEST_CASE("merkle: consistency refuses a shrinking tree and an empty tree's wrong root", "[merkle]") {
  auto leaves = numbered_leaves(5);
  CHECK_THROWS_AS(consistency_proof_nodes(6, 5), std::invalid_argument);
  CHECK_THROWS_AS(consistency_in(leaves, 6), std::invalid_argument);
  CHECK_THROWS_AS(consistency_proof(2, 5, {}), std::invalid_argument);
  CHECK_FALSE(verify_consistency(5, 4, {}, root_of(leaves), root_of(leaves)));
  CHECK(verify_consistency(0, 5, {}, empty_root(), root_of(leaves)));
  CHECK_FALSE(verify_consistency(0, 5, {}, root_of(leaves), root_of(leaves)));
  CHECK_FALSE(verify_consistency(5, 5, {}, empty_root(), root_of(leaves)));
}
