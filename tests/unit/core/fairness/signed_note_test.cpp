#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/fairness/signed_note.hpp"

using namespace foyer;
using namespace foyer::note;

namespace {

// Go's golang.org/x/mod/sumdb/note examples (example_test.go): the key
// "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz" is
// the type byte 0x01 then this seed; EnochRoot's key is generated from 32 zero bytes.
const std::string peter_seed_base64 = "AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const std::string peter_vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const std::string quote =
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n";
const std::string peter_line =
    "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const std::string enoch_line =
    "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

// c2sp.org/signed-note's example (signed-note.md, "Example"): no private key is published.
const std::string c2sp_vkey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
const std::string c2sp_note =
    "This is an example message.\n"
    "\n"
    "— example.com/foo "
    "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";

signer peter() {
  auto typed = base64_decode(peter_seed_base64);
  REQUIRE(typed);
  REQUIRE(typed->size() == 33);
  REQUIRE(typed->front() == ed25519_type);
  seed s;
  std::copy(typed->begin() + 1, typed->end(), s.begin());
  return signer("PeterNeumann", s);
}

signer enoch() { return signer("EnochRoot", seed{}); }

std::vector<verifier> keys(std::initializer_list<std::string> vkeys) {
  std::vector<verifier> out;
  for (const auto& k : vkeys) {
    auto v = parse_vkey(k);
    REQUIRE(v);
    out.push_back(*v);
  }
  return out;
}

opened_note opened(const std::variant<opened_note, open_error>& result) {
  REQUIRE(std::holds_alternative<opened_note>(result));
  return std::get<opened_note>(result);
}

open_error refused(const std::variant<opened_note, open_error>& result) {
  REQUIRE(std::holds_alternative<open_error>(result));
  return std::get<open_error>(result);
}

}  // namespace

TEST_CASE("signed note: Go's example key and note come out byte for byte", "[note]") {
  signer s = peter();
  CHECK(s.public_part().key_id == 0xc74f20a3);
  CHECK(encode_vkey(s.public_part()) == peter_vkey);
  const signer one[] = {s};
  CHECK(sign(quote, one) == quote + "\n" + peter_line);
  const signer both[] = {s, enoch()};
  CHECK(sign(quote, both) == quote + "\n" + peter_line + enoch_line);
}

TEST_CASE("signed note: the C2SP example verifies and its vkey is rebuilt from the key", "[note]") {
  auto known = keys({c2sp_vkey});
  CHECK(known[0].key_id == 0x530d903a);
  CHECK(known[0].key_id == ed25519_key_id("example.com/foo", known[0].key));
  CHECK(encode_vkey(known[0]) == c2sp_vkey);
  auto note = opened(open(c2sp_note, known));
  CHECK(note.text == "This is an example message.\n");
  REQUIRE(note.verified.size() == 1);
  CHECK(note.verified[0].name == "example.com/foo");
  CHECK(note.unverified.empty());
}

TEST_CASE("signed note: vkeys that are not exactly an Ed25519 key of that name are refused", "[note]") {
  CHECK(parse_vkey(peter_vkey));
  CHECK_FALSE(parse_vkey("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"));  // id
  CHECK_FALSE(parse_vkey("PeterNeumanm+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"));  // name
  CHECK_FALSE(parse_vkey("PeterNeumann+c74f20a3+AhpC2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"));  // type
  CHECK_FALSE(parse_vkey("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10"));    // length
  CHECK_FALSE(parse_vkey("PeterNeumann+c74f20a3"));
  CHECK_FALSE(parse_vkey("+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"));
}

TEST_CASE("signed note: key names have no Unicode space and no plus", "[note]") {
  CHECK(valid_key_name("example.com/log"));
  CHECK(valid_key_name("caf\xC3\xA9"));
  CHECK_FALSE(valid_key_name(""));
  CHECK_FALSE(valid_key_name("a b"));
  CHECK_FALSE(valid_key_name("a\tb"));
  CHECK_FALSE(valid_key_name("a+b"));
  CHECK_FALSE(valid_key_name("a\xC2\xA0" "b"));      // U+00A0 no-break space
  CHECK_FALSE(valid_key_name("a\xE3\x80\x80" "b"));  // U+3000 ideographic space
  CHECK_FALSE(valid_key_name("a\xC0\xA0"));          // overlong, not UTF-8
  CHECK_FALSE(valid_key_name("a\xED\xA0\x80"));      // a surrogate
  CHECK_THROWS_AS(signer("a b", seed{}), std::invalid_argument);
}

TEST_CASE("signed note: only the signatures of known keys count, and a bad one sinks the note", "[note]") {
  const signer both[] = {peter(), enoch()};
  std::string two = sign(quote, both);
  auto peter_only = keys({peter_vkey});

  auto note = opened(open(two, peter_only));
  CHECK(note.text == quote);
  REQUIRE(note.verified.size() == 1);
  CHECK(note.verified[0].name == "PeterNeumann");
  REQUIRE(note.unverified.size() == 1);
  CHECK(note.unverified[0].name == "EnochRoot");

  SECTION("no known key") {
    CHECK(refused(open(two, keys({c2sp_vkey}))) == open_error::no_verified_signature);
  }
  SECTION("a known key's signature over other text") {
    std::string changed = two;
    changed[3] = 'X';
    CHECK(refused(open(changed, peter_only)) == open_error::invalid_signature);
  }
  SECTION("the same name with another id is someone else's key, not a forgery") {
    verifier other = peter().public_part();
    other.key_id ^= 1;
    CHECK(refused(open(two, std::vector{other})) == open_error::no_verified_signature);
  }
  SECTION("a repeated signature counts once") {
    auto repeated = opened(open(quote + "\n" + peter_line + peter_line + enoch_line + enoch_line, peter_only));
    CHECK(repeated.verified.size() == 1);
    CHECK(repeated.unverified.size() == 1);
  }
}

TEST_CASE("signed note: malformed notes are refused before any signature is checked", "[note]") {
  auto known = keys({peter_vkey});
  auto malformed = [&](const std::string& message) { return refused(open(message, known)) == open_error::malformed; };
  CHECK(malformed(quote));                                           // no signature block
  CHECK(malformed(quote + "\n"));                                    // empty signature block
  CHECK(malformed(quote + "\n" + peter_line.substr(0, peter_line.size() - 1)));  // no final newline
  CHECK(malformed(quote + "\n- PeterNeumann x08go/ZJkuBS9UG\n"));   // not an em dash
  CHECK(malformed(quote + "\n— PeterNeumann\n"));                    // no signature
  CHECK(malformed(quote + "\n— PeterNeumann AAAA\n"));               // shorter than a key id and one byte
  CHECK(malformed(quote + "\n— PeterNeumann !!!!\n"));               // not base64
  CHECK(malformed(quote + "\n— Peter+Neumann AAAAAAA=\n"));          // bad key name
  CHECK(malformed("a\rb\n\n" + peter_line));                         // control character
  CHECK(malformed("a\xFF\n\n" + peter_line));                        // not UTF-8

  std::string many = quote + "\n";
  for (std::size_t i = 0; i <= max_signatures; ++i) many += "— k" + std::to_string(i) + " AAAAAAA=\n";
  CHECK(malformed(many));
  CHECK(malformed(std::string(max_note_bytes, 'a') + "\n\n" + peter_line));
}

TEST_CASE("signed note: sixteen signatures by unknown keys are accepted beside a known one", "[note]") {
  std::string message = sign(quote, std::vector{peter()});
  for (int i = 0; i < 16; ++i) {
    message += "— witness" + std::to_string(i) + ".example " + std::string(6800, 'A') + "\n";
  }
  auto note = opened(open(message, keys({peter_vkey})));
  CHECK(note.unverified.size() == 16);
}

TEST_CASE("signed note: only valid note text is signed", "[note]") {
  const signer one[] = {peter()};
  CHECK_THROWS_AS(sign("no newline", one), std::invalid_argument);
  CHECK_THROWS_AS(sign("", one), std::invalid_argument);
  CHECK_THROWS_AS(sign("tab\there\n", one), std::invalid_argument);
  CHECK_THROWS_AS(sign(quote, std::span<const signer>{}), std::invalid_argument);
}
