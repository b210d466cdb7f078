#include "core/fairness/signed_note.hpp"

#include <sodium.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "core/base/crypto.hpp"

namespace foyer::note {
namespace {

constexpr std::string_view signature_prefix = "\xE2\x80\x94 ";  // U+2014 EM DASH, space
constexpr std::size_t ed25519_signature_size = 64;
constexpr std::size_t key_id_size = 4;

// The code point at the start of `text` and its length in bytes, or nullopt for bytes
// that are not UTF-8 (overlong forms, surrogates and values past U+10FFFF included).
struct decoded {
  char32_t code_point;
  std::size_t length;
};
std::optional<decoded> decode_utf8(std::string_view text) {
  auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  std::uint8_t lead = byte(0);
  if (lead < 0x80) return decoded{lead, 1};
  std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || text.size() < length) return std::nullopt;
  char32_t value = lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return std::nullopt;
    value = value << 6 | (byte(i) & 0x3F);
  }
  constexpr char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < smallest[length] || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return std::nullopt;
  return decoded{value, length};
}

// Go's unicode.IsSpace: the ASCII white space, U+0085, U+00A0 and the Z categories.
bool is_unicode_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

// UTF-8 with no ASCII control character but newline.
bool clean_utf8(std::string_view text) {
  while (!text.empty()) {
    auto d = decode_utf8(text);
    if (!d || (d->code_point < 0x20 && d->code_point != '\n')) return false;
    text.remove_prefix(d->length);
  }
  return true;
}

std::uint32_t read_key_id(byte_view bytes) {
  return std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 | std::uint32_t{bytes[2]} << 8 | bytes[3];
}

std::array<std::uint8_t, key_id_size> key_id_bytes(std::uint32_t id) {
  return {static_cast<std::uint8_t>(id >> 24), static_cast<std::uint8_t>(id >> 16), static_cast<std::uint8_t>(id >> 8),
          static_cast<std::uint8_t>(id)};
}

bool verify_ed25519(const verifier& v, std::string_view text, byte_view sig) {
  return sig.size() == ed25519_signature_size &&
         crypto_sign_verify_detached(sig.data(), reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                                     v.key.data()) == 0;
}

}  // namespace

bool valid_key_name(std::string_view name) {
  if (name.empty()) return false;
  while (!name.empty()) {
    auto d = decode_utf8(name);
    if (!d || is_unicode_space(d->code_point) || d->code_point == '+') return false;
    name.remove_prefix(d->length);
  }
  return true;
}

std::uint32_t ed25519_key_id(std::string_view name, const public_key& key) {
  if (!valid_key_name(name)) throw std::invalid_argument("note: invalid key name");
  const std::uint8_t separator[2] = {'\n', ed25519_type};
  return read_key_id(sha256({as_bytes(name), separator, key}));
}

std::string encode_vkey(const verifier& v) {
  byte_vector typed_key{ed25519_type};
  append(typed_key, v.key);
  return v.name + "+" + to_hex(key_id_bytes(v.key_id)) + "+" + base64_encode(typed_key);
}

std::optional<verifier> parse_vkey(std::string_view vkey) {
  auto first = vkey.find('+');
  if (first == std::string_view::npos) return std::nullopt;
  auto second = vkey.find('+', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  std::string_view name = vkey.substr(0, first);
  std::string_view id_hex = vkey.substr(first + 1, second - first - 1);
  auto typed_key = base64_decode(vkey.substr(second + 1));
  auto id = from_hex_fixed<key_id_size>(id_hex);
  if (!valid_key_name(name) || !id || !typed_key || typed_key->size() != 1 + std::tuple_size_v<public_key> ||
      typed_key->front() != ed25519_type) {
    return std::nullopt;
  }
  verifier v{std::string(name), read_key_id(*id), {}};
  std::copy(typed_key->begin() + 1, typed_key->end(), v.key.begin());
  if (ed25519_key_id(v.name, v.key) != v.key_id) return std::nullopt;
  return v;
}

signer::signer(std::string name, const seed& seed) {
  if (!valid_key_name(name)) throw std::invalid_argument("note: invalid key name");
  crypto_sign_seed_keypair(verifier_.key.data(), secret_.data(), seed.data());
  verifier_.key_id = ed25519_key_id(name, verifier_.key);
  verifier_.name = std::move(name);
}

std::string signer::sign_line(std::string_view text) const {
  std::array<std::uint8_t, key_id_size + ed25519_signature_size> payload;
  auto id = key_id_bytes(verifier_.key_id);
  std::copy(id.begin(), id.end(), payload.begin());
  crypto_sign_detached(payload.data() + key_id_size, nullptr, reinterpret_cast<const unsigned char*>(text.data()),
                       text.size(), secret_.data());
  return base64_encode(payload);
}

bool valid_text(std::string_view text) {
  return !text.empty() && text.size() <= max_note_bytes && text.back() == '\n' && clean_utf8(text);
}

std::string sign(std::string_view text, std::span<const signer> signers) {
  if (!valid_text(text) || signers.empty()) throw std::invalid_argument("note: text or signers not signable");
  std::string out(text);
  out += '\n';
  for (const auto& s : signers) {
    out += signature_prefix;
    out += s.public_part().name;
    out += ' ';
    out += s.sign_line(text);
    out += '\n';
  }
  return out;
}

std::variant<opened_note, open_error> open(std::string_view message, std::span<const verifier> known) {
  if (message.size() > max_note_bytes || !clean_utf8(message)) return open_error::malformed;
  auto split = message.rfind("\n\n");
  if (split == std::string_view::npos) return open_error::malformed;
  opened_note note{std::string(message.substr(0, split + 1)), {}, {}};
  std::string_view lines = message.substr(split + 2);
  if (lines.empty() || lines.back() != '\n') return open_error::malformed;

  std::set<std::string_view> seen_unverified;
  std::size_t count = 0;
  while (!lines.empty()) {
    auto end = lines.find('\n');
    std::string_view line = lines.substr(0, end);
    lines.remove_prefix(end + 1);
    if (!line.starts_with(signature_prefix) || ++count > max_signatures) return open_error::malformed;
    line.remove_prefix(signature_prefix.size());
    auto space = line.find(' ');
    std::string_view name = line.substr(0, space);
    std::string_view encoded = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
    auto payload = base64_decode(encoded);
    if (!valid_key_name(name) || encoded.empty() || !payload || payload->size() <= key_id_size) {
      return open_error::malformed;
    }
    signature sig{std::string(name), read_key_id(*payload), std::string(encoded)};
    auto key = std::find_if(known.begin(), known.end(),
                            [&](const verifier& v) { return v.name == sig.name && v.key_id == sig.key_id; });
    if (key == known.end()) {
      if (seen_unverified.insert(line).second) note.unverified.push_back(std::move(sig));
      continue;
    }
    bool repeated = std::any_of(note.verified.begin(), note.verified.end(), [&](const signature& s) {
      return s.name == sig.name && s.key_id == sig.key_id;
    });
    if (repeated) continue;
    if (!verify_ed25519(*key, note.text, byte_view(*payload).subspan(key_id_size))) {
      return open_error::invalid_signature;
    }
    note.verified.push_back(std::move(sig));
  }
  if (note.verified.empty()) return open_error::no_verified_signature;
  return note;
}

}  // namespace foyer::note
