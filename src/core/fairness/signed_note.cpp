#include "core/fairness/signed_note.hpp"

#include <sodium.h>

#include <algorithm>
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

}  // namespace

std::array<std::uint8_t, 4> key_id_bytes(std::uint32_t id) {
  return {static_cast<std::uint8_t>(id >> 24), static_cast<std::uint8_t>(id >> 16), static_cast<std::uint8_t>(id >> 8),
          static_cast<std::uint8_t>(id)};
}

bool verify_ed25519(const verifier& v, std::string_view message, byte_view signature) {
  return signature.size() == ed25519_signature_size &&
         crypto_sign_verify_detached(signature.data(), reinterpret_cast<const unsigned char*>(message.data()),
                                     message.size(), v.key.data()) == 0;
}

bool valid_key_name(std::string_view name) {
  if (name.empty()) return false;
  while (!name.empty()) {
    auto d = decode_utf8(name);
    if (!d || is_unicode_space(d->code_point) || d->code_point == '+') return false;
    name.remove_prefix(d->length);
  }
  return true;
}

std::uint32_t ed25519_key_id(std::string_view name, const public_key& key, std::uint8_t type) {
  if (!valid_key_name(name)) throw std::invalid_argument("note: invalid key name");
  const std::uint8_t separator[2] = {'\n', type};
  return read_key_id(sha256({as_bytes(name), separator, key}));
}

std::string encode_vkey(const verifier& v, std::uint8_t type) {
  byte_vector typed_key{type};
  append(typed_key, v.key);
  return v.name + "+" + to_hex(key_id_bytes(v.key_id)) + "+" + base64_encode(typed_key);
}

std::optional<verifier> parse_vkey(std::string_view vkey, std::uint8_t type) {
  auto first = vkey.find('+');
  if (first == std::string_view::npos) return std::nullopt;
  auto second = vkey.find('+', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  std::string_view name = vkey.substr(0, first);
  std::string_view id_hex = vkey.substr(first + 1, second - first - 1);
  auto typed_key = base64_decode(vkey.substr(second + 1));
  auto id = from_hex_fixed<key_id_size>(id_hex);
  if (!valid_key_name(name) || !id || !typed_key || typed_key->size() != 1 + std::tuple_size_v<public_key> ||
      typed_key->front() != type) {
    return std::nullopt;
  }
  verifier v{std::string(name), read_key_id(*id), {}};
  std::copy(typed_key->begin() + 1, typed_key->end(), v.key.begin());
  if (ed25519_key_id(v.name, v.key, type) != v.key_id) return std::nullopt;
  return v;
}

signer::signer(std::string name, const seed& seed, std::uint8_t type) {
  if (!valid_key_name(name)) throw std::invalid_argument("note: invalid key name");
  crypto_sign_seed_keypair(verifier_.key.data(), secret_.data(), seed.data());
  verifier_.key_id = ed25519_key_id(name, verifier_.key, type);
  verifier_.name = std::move(name);
}

std::string signer::sign_line(std::string_view text) const {
  byte_vector payload;
  append(payload, key_id_bytes(verifier_.key_id));
  append(payload, sign_ed25519(text));
  return base64_encode(payload);
}

std::array<std::uint8_t, 64> signer::sign_ed25519(std::string_view message) const {
  std::array<std::uint8_t, ed25519_signature_size> signature;
  crypto_sign_detached(signature.data(), nullptr, reinterpret_cast<const unsigned char*>(message.data()),
                       message.size(), secret_.data());
  return signature;
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

std::string signature_line(std::string_view name, byte_view payload) {
  if (!valid_key_name(name)) throw std::invalid_argument("note: invalid key name");
  return std::string(signature_prefix) + std::string(name) + " " + base64_encode(payload) + "\n";
}

std::optional<split_note> split(std::string_view message) {
  if (message.size() > max_note_bytes || !clean_utf8(message)) return std::nullopt;
  auto end_of_text = message.rfind("\n\n");
  if (end_of_text == std::string_view::npos) return std::nullopt;
  split_note note{std::string(message.substr(0, end_of_text + 1)), {}};
  std::string_view lines = message.substr(end_of_text + 2);
  if (lines.empty() || lines.back() != '\n') return std::nullopt;
  while (!lines.empty()) {
    auto end = lines.find('\n');
    std::string_view line = lines.substr(0, end);
    lines.remove_prefix(end + 1);
    if (!line.starts_with(signature_prefix) || note.lines.size() == max_signatures) return std::nullopt;
    line.remove_prefix(signature_prefix.size());
    auto space = line.find(' ');
    std::string_view name = line.substr(0, space);
    std::string_view encoded = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
    auto payload = base64_decode(encoded);
    if (!valid_key_name(name) || encoded.empty() || !payload || payload->size() <= key_id_size) return std::nullopt;
    note.lines.push_back({std::string(name), read_key_id(*payload), std::string(encoded)});
  }
  return note;
}

std::variant<opened_note, open_error> open(std::string_view message, std::span<const verifier> known) {
  auto parts = split(message);
  if (!parts) return open_error::malformed;
  opened_note note{std::move(parts->text), {}, {}};
  auto same_key = [](const auto& a, const auto& b) { return a.name == b.name && a.key_id == b.key_id; };
  for (auto& sig : parts->lines) {
    auto key = std::find_if(known.begin(), known.end(), [&](const verifier& v) { return same_key(v, sig); });
    if (key == known.end()) {
      if (std::find(note.unverified.begin(), note.unverified.end(), sig) == note.unverified.end()) {
        note.unverified.push_back(std::move(sig));
      }
      continue;
    }
    bool repeated = std::any_of(note.verified.begin(), note.verified.end(),
                                [&](const signature& s) { return same_key(s, sig); });
    if (repeated) continue;
    auto payload = base64_decode(sig.base64);
    if (!verify_ed25519(*key, note.text, byte_view(*payload).subspan(key_id_size))) {
      return open_error::invalid_signature;
    }
    note.verified.push_back(std::move(sig));
  }
  if (note.verified.empty()) return open_error::no_verified_signature;
  return note;
}

}  // namespace foyer::note
