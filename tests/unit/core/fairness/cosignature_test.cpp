#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "core/base/crypto.hpp"
#include "core/fairness/cosignature.hpp"

using namespace foyer;

namespace {

// c2sp.org/tlog-cosignature's example (tlog-cosignature.md): a checkpoint cosigned by
// witness.example.com/w1, and the message such a cosignature signs. No key is published.
const std::string spec_text =
    "example.com/behind-the-sofa\n"
    "20852163\n"
    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
const std::string spec_note = spec_text +
                              "\n"
                              "— example.com/behind-the-sofa "
                              "Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
                              "— witness.example.com/w1 "
                              "jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+"
                              "mbIUBkBIfZ+qnA==\n";
const std::string spec_message =
    "cosignature/v1\n"
    "time 1679315147\n"
    "example.com/behind-the-sofa\n"
    "20852163\n"
    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";

const std::string origin = "foyer.example/ledger";

note::seed seed_of(std::uint8_t b) {
  note::seed s;
  s.fill(b);
  return s;
}

note::signer log_key() { return note::signer(origin, seed_of(1)); }
note::signer witness_key(const std::string& name, std::uint8_t b) { return cosignature::make_signer(name, seed_of(b)); }

std::string checkpoint_note(std::uint64_t size, std::uint8_t root_byte = 7) {
  digest root;
  root.fill(root_byte);
  return checkpoint::sign({origin, size, root}, log_key());
}
std::string text_of(const std::string& note) { return note.substr(0, note.rfind("\n\n") + 1); }

cosignature::error refused(const std::variant<std::uint64_t, cosignature::error>& result) {
  REQUIRE(std::holds_alternative<cosignature::error>(result));
  return std::get<cosignature::error>(result);
}

// The line with its payload changed by `change`.
std::string altered(const std::string& line, const std::function<void(byte_vector&)>& change) {
  auto space = line.rfind(' ');
  auto payload = base64_decode(std::string_view(line).substr(space + 1, line.size() - space - 2));
  REQUIRE(payload);
  change(*payload);
  return line.substr(0, space + 1) + base64_encode(*payload) + "\n";
}

}  // namespace

TEST_CASE("cosignature: the spec's example message and line, byte for byte", "[cosignature]") {
  CHECK(cosignature::message(spec_text, 1679315147) == spec_message);
  auto parts = note::split(spec_note);
  REQUIRE(parts);
  CHECK(parts->text == spec_text);
  REQUIRE(parts->lines.size() == 2);
  const auto& line = parts->lines[1];
  CHECK(line.name == "witness.example.com/w1");
  CHECK(line.key_id == 0x8d66cf3f);
  auto payload = base64_decode(line.base64);
  REQUIRE(payload);
  REQUIRE(payload->size() == 4 + 8 + 64);
  CHECK(get_be64(payload->data() + 4) == 1679315147);  // the time of the spec's message
  // Read as one line it is well formed; with no key published, it can only fail to verify.
  note::verifier unknown{"witness.example.com/w1", 0x8d66cf3f, {}};
  CHECK(refused(cosignature::verify_line(note::signature_line(line.name, *payload), spec_text, unknown)) ==
        cosignature::error::invalid_signature);
}

TEST_CASE("cosignature: key id and vkey of type 0x04", "[cosignature]") {
  auto w = witness_key("witness.example/w1", 2);
  const auto& v = w.public_part();
  const std::uint8_t separator[2] = {'\n', 0x04};
  auto hash = sha256({as_bytes(v.name), separator, v.key});
  CHECK(v.key_id == (std::uint32_t{hash[0]} << 24 | std::uint32_t{hash[1]} << 16 | std::uint32_t{hash[2]} << 8 | hash[3]));
  CHECK(v.key_id != note::ed25519_key_id(v.name, v.key));

  auto vkey = cosignature::encode_vkey(v);
  CHECK(vkey.starts_with("witness.example/w1+"));
  auto parsed = cosignature::parse_vkey(vkey);
  REQUIRE(parsed);
  CHECK(parsed->key_id == v.key_id);
  CHECK(parsed->key == v.key);
  // The same key as a note key is another vkey, and neither parser takes the other's.
  note::verifier as_note{v.name, note::ed25519_key_id(v.name, v.key), v.key};
  CHECK_FALSE(note::parse_vkey(vkey));
  CHECK_FALSE(cosignature::parse_vkey(note::encode_vkey(as_note)));
}

TEST_CASE("cosignature: a line verifies for its witness, text and time only", "[cosignature]") {
  auto w = witness_key("witness.example/w1", 2);
  std::string text = text_of(checkpoint_note(5));
  std::string line = cosignature::sign(w, text, 1700000000);
  CHECK(line.starts_with("— witness.example/w1 "));
  CHECK(line.ends_with("\n"));

  auto ok = cosignature::verify_line(line, text, w.public_part());
  REQUIRE(std::holds_alternative<std::uint64_t>(ok));
  CHECK(std::get<std::uint64_t>(ok) == 1700000000);
  auto without_newline = cosignature::verify_line(line.substr(0, line.size() - 1), text, w.public_part());
  CHECK(std::holds_alternative<std::uint64_t>(without_newline));

  SECTION("another checkpoint") {
    CHECK(refused(cosignature::verify_line(line, text_of(checkpoint_note(6)), w.public_part())) ==
          cosignature::error::invalid_signature);
  }
  SECTION("another time than the one signed") {
    auto later = altered(line, [](byte_vector& p) { put_be64(p.data() + 4, 1700000001); });
    CHECK(refused(cosignature::verify_line(later, text, w.public_part())) == cosignature::error::invalid_signature);
  }
  SECTION("a forged signature") {
    auto forged = altered(line, [](byte_vector& p) { p.back() ^= 1; });
    CHECK(refused(cosignature::verify_line(forged, text, w.public_part())) == cosignature::error::invalid_signature);
  }
  SECTION("another key of the same name") {
    auto other = witness_key("witness.example/w1", 3);
    CHECK(refused(cosignature::verify_line(cosignature::sign(other, text, 1700000000), text, w.public_part())) ==
          cosignature::error::other_key);
  }
  SECTION("the same key signing as a note key is not a cosignature") {
    note::signer plain("witness.example/w1", seed_of(2));
    std::string note_line = note::signature_line(plain.public_part().name,
                                                 *base64_decode(plain.sign_line(text)));
    CHECK(refused(cosignature::verify_line(note_line, text, w.public_part())) == cosignature::error::other_key);
  }
  SECTION("a payload without a timestamp, or not a line") {
    auto short_payload = altered(line, [](byte_vector& p) { p.resize(4 + 64); });
    CHECK(refused(cosignature::verify_line(short_payload, text, w.public_part())) == cosignature::error::malformed);
    CHECK(refused(cosignature::verify_line("witness.example/w1 AAAA", text, w.public_part())) ==
          cosignature::error::malformed);
    CHECK(refused(cosignature::verify_line(line + line, text, w.public_part())) == cosignature::error::malformed);
  }
  SECTION("a time at or past 2^63 is not signed") {
    CHECK_THROWS_AS(cosignature::sign(w, text, cosignature::max_timestamp + 1), std::invalid_argument);
    auto past = altered(line, [](byte_vector& p) { put_be64(p.data() + 4, cosignature::max_timestamp + 1); });
    CHECK(refused(cosignature::verify_line(past, text, w.public_part())) == cosignature::error::invalid_signature);
  }
}

TEST_CASE("cosignature: a quorum of listed witnesses, each once, over the log's checkpoint", "[cosignature]") {
  std::vector<note::signer> signers = {witness_key("w1.example", 11), witness_key("w2.example", 12),
                                       witness_key("w3.example", 13)};
  std::vector<note::verifier> listed;
  for (const auto& s : signers) listed.push_back(s.public_part());
  std::string note = checkpoint_note(42);
  std::string text = text_of(note);
  auto stranger = witness_key("stranger.example", 14);
  std::string cosigned = note + cosignature::sign(signers[2], text, 300) + cosignature::sign(stranger, text, 1) +
                         cosignature::sign(signers[0], text, 100);
  auto log = log_key().public_part();

  auto quorum = [&](const std::string& n, std::size_t q) { return cosignature::verify(n, log, listed, q); };
  auto problem = [&](const std::string& n, std::size_t q) {
    auto result = quorum(n, q);
    REQUIRE(std::holds_alternative<cosignature::quorum_problem>(result));
    return std::get<cosignature::quorum_problem>(result);
  };

  auto two = quorum(cosigned, 2);
  REQUIRE(std::holds_alternative<cosignature::cosigned_head>(two));
  const auto& head = std::get<cosignature::cosigned_head>(two);
  CHECK(head.head.size == 42);
  CHECK(head.head.origin == origin);
  CHECK(head.cosigners == std::vector<cosignature::witness_time>{{"w1.example", 100}, {"w3.example", 300}});

  CHECK(problem(cosigned, 3) == cosignature::quorum_problem{cosignature::quorum_error::below_quorum, {}, 2});
  CHECK(problem(note, 1) == cosignature::quorum_problem{cosignature::quorum_error::below_quorum, {}, 0});
  // A repeated line counts once.
  std::string repeated = note + cosignature::sign(signers[1], text, 5) + cosignature::sign(signers[1], text, 6);
  CHECK(problem(repeated, 2) == cosignature::quorum_problem{cosignature::quorum_error::below_quorum, {}, 1});
  // One listed witness's bad line refuses the note, whatever the others say.
  std::string bad = cosigned + altered(cosignature::sign(signers[1], text, 200), [](byte_vector& p) { p.back() ^= 1; });
  CHECK(problem(bad, 1) == cosignature::quorum_problem{cosignature::quorum_error::invalid_cosignature, "w2.example", 0});
  // Cosignatures of another checkpoint do not carry over.
  std::string moved = checkpoint_note(43) + cosignature::sign(signers[0], text, 100);
  CHECK(problem(moved, 1).kind == cosignature::quorum_error::invalid_cosignature);
  // The log's own signature must be there and verify.
  digest root;
  root.fill(7);
  std::string forged_log = checkpoint::sign({origin, 42, root}, note::signer(origin, seed_of(9)));
  CHECK(problem(forged_log + cosigned.substr(note.size()), 1).kind == cosignature::quorum_error::log_unverified);
  CHECK(problem("not a note", 0).kind == cosignature::quorum_error::malformed);
}
