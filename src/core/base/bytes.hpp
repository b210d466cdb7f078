#pragma once
// Byte helpers shared by the domain code: hex, base64url, base64, big-endian integers, randomness.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace foyer {

using byte_view = std::span<const std::uint8_t>;
using byte_vector = std::vector<std::uint8_t>;
using digest = std::array<std::uint8_t, 32>;

inline byte_view as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
inline std::string_view as_chars(byte_view b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Lowercase hex, as every API of the project uses.
std::string to_hex(byte_view bytes);
// The same, appended: an answer built in one buffer holds no copy of it.
void append_hex(std::string& out, byte_view bytes);
std::optional<byte_vector> from_hex(std::string_view hex);
// Into a buffer of exactly hex.size() / 2 bytes; false on any other size or a bad digit.
bool from_hex_into(std::string_view hex, std::span<std::uint8_t> out);

template <std::size_t N>
std::optional<std::array<std::uint8_t, N>> from_hex_fixed(std::string_view hex) {
  std::array<std::uint8_t, N> out{};
  if (!from_hex_into(hex, out)) return std::nullopt;
  return out;
}

// RFC 4648 §5 without padding; decoding refuses padding and foreign characters.
std::string base64url_encode(byte_view bytes);
void append_base64url(std::string& out, byte_view bytes);
std::optional<byte_vector> base64url_decode(std::string_view text);
// Into a buffer of exactly text.size() * 3 / 4 bytes; false on any other size or bad text.
bool base64url_decode_into(std::string_view text, std::span<std::uint8_t> out);

// RFC 4648 §4 with padding, as Standard Webhooks writes keys and signatures (libsodium).
std::string base64_encode(byte_view bytes);
std::optional<byte_vector> base64_decode(std::string_view text);

void put_be64(std::uint8_t* out, std::uint64_t value);
std::uint64_t get_be64(const std::uint8_t* in);

// Appends a big-endian integer to a byte buffer.
void append_be64(byte_vector& out, std::uint64_t value);
void append(byte_vector& out, byte_view bytes);

// Cryptographically secure random bytes (libsodium).
void random_bytes(std::span<std::uint8_t> out);
template <std::size_t N>
std::array<std::uint8_t, N> random_array() {
  std::array<std::uint8_t, N> out;
  random_bytes(out);
  return out;
}
std::uint64_t random_u64();

}  // namespace foyer
