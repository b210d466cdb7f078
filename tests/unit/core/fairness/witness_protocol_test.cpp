#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "core/fairness/cosignature.hpp"
#include "core/fairness/witness_protocol.hpp"

using namespace foyer;
using namespace foyer::witness;

namespace {

// c2sp.org/tlog-witness's example request body (tlog-witness.md, add-checkpoint).
const std::string spec_body =
    "old 20852014\n"
    "PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n"
    "jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=\n"
    "5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=\n"
    "/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=\n"
    "\n"
    "example.com/behind-the-sofa\n"
    "20852163\n"
    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    "\n"
    "— example.com/behind-the-sofa "
    "Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
    "— example.com/behind-the-sofa "
    "opLqBQsREYCgu6xQkYQwJr9fo45a62DN9EdmHXnZdXNqlcVGlCum2Wks+49/V6267UEjw6QUXTS5Rovnzv++qbSzm9Q=\n";

const std::string origin = "foyer.example/ledger";

note::seed seed_of(std::uint8_t b) {
  note::seed s;
  s.fill(b);
  return s;
}

// A log of n leaves, its checkpoint signed by the log key.
std::vector<digest> leaves(std::uint64_t n) {
  std::vector<digest> out;
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(merkle::leaf_hash(as_bytes(std::to_string(i))));
  return out;
}
std::string checkpoint_of(std::uint64_t n) {
  auto l = leaves(n);
  return checkpoint::sign({origin, n, merkle::root_of(l)}, note::signer(origin, seed_of(1)));
}
std::string text_of(const std::string& note) { return note.substr(0, note.rfind("\n\n") + 1); }

failure failed(const answer& a) {
  REQUIRE(std::holds_alternative<failure>(a));
  return std::get<failure>(a);
}

}  // namespace

TEST_CASE("witness protocol: the spec's add-checkpoint body, byte for byte", "[witness]") {
  std::vector<digest> proof;
  std::string lines = spec_body.substr(spec_body.find('\n') + 1);
  for (int i = 0; i < 4; ++i) {
    auto hash = base64_decode(lines.substr(0, lines.find('\n')));
    REQUIRE(hash);
    REQUIRE(hash->size() == 32);
    digest d;
    std::copy(hash->begin(), hash->end(), d.begin());
    proof.push_back(d);
    lines = lines.substr(lines.find('\n') + 1);
  }
  std::string note = spec_body.substr(spec_body.find("\n\n") + 2);
  CHECK(add_checkpoint_body(20852014, proof, note) == spec_body);
  CHECK(add_checkpoint_body(0, {}, note) == "old 0\n\n" + note);
  std::vector<digest> too_long(max_proof_lines + 1);
  CHECK_THROWS_AS(add_checkpoint_body(1, too_long, note), std::invalid_argument);
}

TEST_CASE("witness protocol: proofs from stored nodes are the tree's consistency proofs", "[witness]") {
  auto l = leaves(300);
  merkle::frontier tree;
  std::map<std::pair<std::uint32_t, std::uint64_t>, digest> stored;
  for (const auto& leaf : l) {
    for (const auto& node : tree.append(leaf)) stored[{node.level, node.index}] = node.hash;
  }
  auto proofs = proofs_from([&](const std::vector<merkle::node_id>& ids) {
    std::vector<digest> out;
    for (const auto& id : ids) out.push_back(stored.at({id.level, id.index}));
    return out;
  });
  for (std::uint64_t old_size : {0, 1, 7, 128, 299, 300}) {
    CHECK(proofs(old_size, 300) == merkle::consistency_in(l, old_size));
  }
}

TEST_CASE("witness protocol: answers", "[witness]") {
  auto w = cosignature::make_signer("witness.example/w1", seed_of(2));
  std::string text = text_of(checkpoint_of(5));
  std::string line = cosignature::sign(w, text, 1700000000);
  auto other = cosignature::make_signer("other.example/w", seed_of(3));
  auto read = [&](unsigned status, std::string_view type, std::string_view body) {
    return read_answer(status, type, body, text, w.public_part());
  };

  auto ok = read(200, "text/plain", cosignature::sign(other, text, 1) + line);
  REQUIRE(std::holds_alternative<cosigned>(ok));
  CHECK(std::get<cosigned>(ok).line == line);
  CHECK(std::get<cosigned>(ok).timestamp == 1700000000);

  CHECK(failed(read(200, "", cosignature::sign(other, text, 1))).why == refusal::bad_answer);
  CHECK(failed(read(200, "", "")).why == refusal::bad_answer);
  CHECK(failed(read(200, "", "hello\n")).why == refusal::bad_answer);
  CHECK(failed(read(200, "", cosignature::sign(w, text_of(checkpoint_of(6)), 1))).why == refusal::bad_answer);

  auto conflicted = read(409, "text/x.tlog.size", "12\n");
  REQUIRE(std::holds_alternative<conflict>(conflicted));
  CHECK(std::get<conflict>(conflicted).size == 12);
  CHECK(std::holds_alternative<conflict>(read(409, "Text/X.Tlog.Size; charset=utf-8", "0\n")));
  CHECK(failed(read(409, "text/plain", "12\n")).why == refusal::bad_answer);
  CHECK(failed(read(409, "text/x.tlog.size", "012\n")).why == refusal::bad_answer);
  CHECK(failed(read(409, "text/x.tlog.size", "12")).why == refusal::bad_answer);
  CHECK(failed(read(409, "text/x.tlog.size", "-1\n")).why == refusal::bad_answer);

  CHECK(failed(read(400, "", "")).why == refusal::bad_request);
  CHECK(failed(read(403, "", "")).why == refusal::forbidden);
  CHECK(failed(read(404, "", "")).why == refusal::unknown_log);
  CHECK(failed(read(422, "", "")).why == refusal::inconsistent);
  CHECK(failed(read(500, "", "")).why == refusal::bad_answer);
}

TEST_CASE("witness book: sizes, resyncs and the quorum", "[witness]") {
  auto w1 = cosignature::make_signer("w1.example", seed_of(11));
  auto w2 = cosignature::make_signer("w2.example", seed_of(12));
  witness_book book({w1.public_part(), w2.public_part()}, 2);
  auto cosign = [&](const note::signer& w, std::uint64_t ts) -> answer {
    return cosigned{cosignature::sign(w, book.checkpoint_text(), ts), ts};
  };
  CHECK(book.submissions().empty());
  CHECK_THROWS_AS(witness_book({w1.public_part()}, 2), std::invalid_argument);

  REQUIRE(book.set_checkpoint(checkpoint_of(5)));
  CHECK(book.submissions() == std::vector<submission>{{0, 0, 5, 0}, {1, 0, 5, 0}});

  // w1 cosigns; w2 knew 3 already, then cosigns from there.
  CHECK_FALSE(book.record({0, 0, 5, 0}, cosign(w1, 100)));
  auto resync = book.record({1, 0, 5, 0}, conflict{3});
  REQUIRE(resync);
  CHECK(*resync == submission{1, 3, 5, 1});
  CHECK(book.cosigned_count() == 1);
  CHECK_FALSE(book.quorum_at_least(5));
  CHECK_FALSE(book.record(*resync, cosign(w2, 101)));
  CHECK(book.submissions().empty());
  CHECK(book.cosigned_count() == 2);
  CHECK(book.quorum_at_least(5));
  CHECK_FALSE(book.quorum_at_least(6));
  CHECK(book.cosigned_note() == checkpoint_of(5) + cosignature::sign(w1, book.checkpoint_text(), 100) +
                                    cosignature::sign(w2, book.checkpoint_text(), 101));

  SECTION("the next checkpoint goes from the sizes cosigned") {
    REQUIRE(book.set_checkpoint(checkpoint_of(9)));
    CHECK(book.cosigned_note() == checkpoint_of(9));
    CHECK(book.submissions() == std::vector<submission>{{0, 5, 9, 0}, {1, 5, 9, 0}});
    CHECK(book.quorum_at_least(5));  // what was cosigned stays cosigned
    CHECK_FALSE(book.quorum_at_least(9));
  }
  SECTION("no going back, and no other tree of the same size") {
    CHECK(book.set_checkpoint(checkpoint_of(5)));  // the same one again
    CHECK_FALSE(book.set_checkpoint(checkpoint_of(4)));
    digest other{};
    CHECK_FALSE(book.set_checkpoint(checkpoint::sign({origin, 5, other}, note::signer(origin, seed_of(1)))));
    CHECK_FALSE(book.set_checkpoint("not a note"));
    CHECK(book.checkpoint_size() == 5);
  }
  SECTION("409s are followed a bounded number of times") {
    REQUIRE(book.set_checkpoint(checkpoint_of(9)));
    submission s{0, 5, 9, 0};
    unsigned followed = 0;
    while (auto next = book.record(s, conflict{7})) {
      s = *next;
      ++followed;
      REQUIRE(followed <= max_resyncs);
    }
    CHECK(followed == max_resyncs);
    CHECK(book.witness_size(0) == 7);
    CHECK(book.submissions().front() == submission{0, 7, 9, 0});
  }
  SECTION("a witness ahead of the log gets no proof") {
    REQUIRE(book.set_checkpoint(checkpoint_of(9)));
    CHECK_FALSE(book.record({0, 5, 9, 0}, conflict{10}));
    CHECK(book.witness_size(0) == 5);
  }
  SECTION("an answer about an older checkpoint leads on to the newer one") {
    REQUIRE(book.set_checkpoint(checkpoint_of(9)));
    REQUIRE(book.set_checkpoint(checkpoint_of(12)));
    auto next = book.record({0, 5, 9, 0}, cosign(w1, 102));  // the line is for 12 here: not kept either way
    REQUIRE(next);
    CHECK(*next == submission{0, 9, 12, 0});
    CHECK(book.cosigned_count() == 0);
  }
  SECTION("a failure waits for the next round") {
    REQUIRE(book.set_checkpoint(checkpoint_of(9)));
    CHECK_FALSE(book.record({0, 5, 9, 0}, failure{refusal::unreachable, "down"}));
    CHECK(book.submissions().front() == submission{0, 5, 9, 0});
  }
}
