#include <catch2/catch.hpp>

#include <vector>

#include "core/fairness/checkpoint.hpp"
#include "core/fairness/merkle.hpp"

using namespace foyer;
using namespace foyer::checkpoint;

namespace {

const std::string origin = "foyer.example/ledger";

note::signer log_key() {
  note::seed s{};
  s[0] = 7;
  return note::signer(origin, s);
}

tree_head five_leaves() {
  std::vector<digest> leaves;
  for (std::uint8_t i = 0; i < 5; ++i) leaves.push_back(merkle::leaf_hash(std::vector<std::uint8_t>{i}));
  return {origin, 5, merkle::root_of(leaves)};
}

}  // namespace

TEST_CASE("checkpoint: origin, size and base64 root on three lines, nothing else", "[checkpoint]") {
  tree_head head = five_leaves();
  CHECK(text(head) == origin + "\n5\n" + base64_encode(head.root) + "\n");
  CHECK(text({origin, 0, merkle::empty_root()}) == origin + "\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n");
  CHECK(parse(text(head)) == head);
  CHECK_THROWS_AS(text({"", 1, {}}), std::invalid_argument);
  CHECK_THROWS_AS(text({"has space", 1, {}}), std::invalid_argument);
  CHECK_THROWS_AS(text({origin, max_tree_size, {}}), std::invalid_argument);
}

TEST_CASE("checkpoint: only that exact shape parses; extension lines are read past", "[checkpoint]") {
  std::string root = base64_encode(five_leaves().root);
  CHECK(parse(origin + "\n5\n" + root + "\nextension one\nextension two\n"));
  CHECK(parse(origin + "\n9223372036854775807\n" + root + "\n"));
  CHECK_FALSE(parse(origin + "\n9223372036854775808\n" + root + "\n"));
  CHECK_FALSE(parse(origin + "\n05\n" + root + "\n"));
  CHECK_FALSE(parse(origin + "\n-5\n" + root + "\n"));
  CHECK_FALSE(parse(origin + "\n+5\n" + root + "\n"));
  CHECK_FALSE(parse(origin + "\n\n" + root + "\n"));
  CHECK_FALSE(parse("\n5\n" + root + "\n"));
  CHECK_FALSE(parse(origin + "\n5\n" + root));
  CHECK_FALSE(parse(origin + "\n5\n" + root + "\n\n"));
  CHECK_FALSE(parse(origin + "\n5\n" + root + "\next\nunterminated"));
  CHECK_FALSE(parse(origin + "\n5\n" + root.substr(4) + "\n"));
  CHECK_FALSE(parse(origin + "\n5\nnot base64\n"));
}

TEST_CASE("checkpoint: signed by the log's key, opened only with it", "[checkpoint]") {
  note::signer key = log_key();
  tree_head head = five_leaves();
  std::string signed_checkpoint = sign(head, key);
  CHECK(signed_checkpoint.starts_with(text(head) + "\n— " + origin + " "));

  const note::verifier known[] = {key.public_part()};
  auto opened = verify(signed_checkpoint, known);
  REQUIRE(std::holds_alternative<tree_head>(opened));
  CHECK(std::get<tree_head>(opened) == head);

  note::signer other(origin, note::seed{});
  const note::verifier others[] = {other.public_part()};
  CHECK(std::get<note::open_error>(verify(signed_checkpoint, others)) == note::open_error::no_verified_signature);

  // A signed note that is not a checkpoint.
  const note::signer signers[] = {key};
  CHECK(std::get<note::open_error>(verify(note::sign("hello\n", signers), known)) == note::open_error::malformed);

  std::string bigger = signed_checkpoint;
  bigger[origin.size() + 1] = '6';
  CHECK(std::get<note::open_error>(verify(bigger, known)) == note::open_error::invalid_signature);
}
