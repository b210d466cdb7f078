#include "core/base/bytes.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace foyer {
namespace {

constexpr char hex_digits[] = "0123456789abcdef";
constexpr char b64url_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Every proof of work carries 128 hex digits: a table beats a chain of comparisons.
constexpr std::array<std::int8_t, 256> hex_table = [] {
  std::array<std::int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 10; ++i) t['0' + i] = static_cast<std::int8_t>(i);
  for (int i = 0; i < 6; ++i) {
    t['a' + i] = static_cast<std::int8_t>(10 + i);
    t['A' + i] = static_cast<std::int8_t>(10 + i);
  }
  return t;
}();

int hex_value(char c) { return hex_table[static_cast<unsigned char>(c)]; }

// Every ticket poll decodes one: a table beats a chain of comparisons.
constexpr std::array<std::int8_t, 256> b64url_table = [] {
  std::array<std::int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(b64url_alphabet[i])] = static_cast<std::int8_t>(i);
  return t;
}();

int b64url_value(char c) { return b64url_table[static_cast<unsigned char>(c)]; }

}  // namespace

std::string to_hex(byte_view bytes) {
  std::string out;
  append_hex(out, bytes);
  return out;
}

void append_hex(std::string& out, byte_view bytes) {
  auto at = out.size();
  out.resize(at + bytes.size() * 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    out[at + 2 * i] = hex_digits[bytes[i] >> 4];
    out[at + 2 * i + 1] = hex_digits[bytes[i] & 0xf];
  }
}

bool from_hex_into(std::string_view hex, std::span<std::uint8_t> out) {
  if (hex.size() != 2 * out.size()) return false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    int hi = hex_value(hex[2 * i]);
    int lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return true;
}

std::optional<byte_vector> from_hex(std::string_view hex) {
  byte_vector out(hex.size() / 2);
  if (!from_hex_into(hex, out)) return std::nullopt;
  return out;
}

std::string base64url_encode(byte_view bytes) {
  std::string out;
  append_base64url(out, bytes);
  return out;
}

void append_base64url(std::string& out, byte_view bytes) {
  std::size_t n = out.size();
  out.resize(n + (bytes.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = bytes[i] << 16 | bytes[i + 1] << 8 | bytes[i + 2];
    out[n++] = b64url_alphabet[v >> 18 & 63];
    out[n++] = b64url_alphabet[v >> 12 & 63];
    out[n++] = b64url_alphabet[v >> 6 & 63];
    out[n++] = b64url_alphabet[v & 63];
  }
  std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t v = bytes[i] << 16 | (rest == 2 ? bytes[i + 1] << 8 : 0);
    out[n++] = b64url_alphabet[v >> 18 & 63];
    out[n++] = b64url_alphabet[v >> 12 & 63];
    if (rest == 2) out[n++] = b64url_alphabet[v >> 6 & 63];
  }
}

bool base64url_decode_into(std::string_view text, std::span<std::uint8_t> out) {
  if (text.size() % 4 == 1 || out.size() != text.size() * 3 / 4) return false;
  std::size_t n = 0;
  std::size_t whole = text.size() / 4 * 4;
  // Four characters make three bytes: every ticket poll decodes one.
  for (std::size_t i = 0; i < whole; i += 4) {
    int a = b64url_value(text[i]), b = b64url_value(text[i + 1]);
    int c = b64url_value(text[i + 2]), d = b64url_value(text[i + 3]);
    if ((a | b | c | d) < 0) return false;
    auto v = static_cast<std::uint32_t>(a << 18 | b << 12 | c << 6 | d);
    out[n++] = static_cast<std::uint8_t>(v >> 16);
    out[n++] = static_cast<std::uint8_t>(v >> 8);
    out[n++] = static_cast<std::uint8_t>(v);
  }
  std::uint32_t acc = 0;
  int bits = 0;
  for (char ch : text.substr(whole)) {
    int v = b64url_value(ch);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = static_cast<std::uint8_t>(acc >> bits);
    }
  }
  // Leftover bits must be zero so that every byte string has exactly one encoding.
  return bits == 0 || (acc & ((1u << bits) - 1)) == 0;
}

std::optional<byte_vector> base64url_decode(std::string_view text) {
  byte_vector out(text.size() * 3 / 4);
  if (!base64url_decode_into(text, out)) return std::nullopt;
  return out;
}

std::string base64_encode(byte_view bytes) {
  if (bytes.empty()) return {};  // libsodium takes no null pointer, which an empty span may hold
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes.data(), bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.pop_back();  // the terminating NUL libsodium writes
  return out;
}

std::optional<byte_vector> base64_decode(std::string_view text) {
  if (text.empty()) return byte_vector{};  // as above
  byte_vector out(text.size() * 3 / 4);
  std::size_t length = 0;
  const char* end = nullptr;
  if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &length, &end,
                        sodium_base64_VARIANT_ORIGINAL) != 0 ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  out.resize(length);
  return out;
}

// A load or store and a byte swap: the proof of work reads a dozen of these per join.
void put_be64(std::uint8_t* out, std::uint64_t value) {
  if constexpr (std::endian::native == std::endian::little) value = __builtin_bswap64(value);
  std::memcpy(out, &value, sizeof value);
}

std::uint64_t get_be64(const std::uint8_t* in) {
  std::uint64_t value;
  std::memcpy(&value, in, sizeof value);
  if constexpr (std::endian::native == std::endian::little) value = __builtin_bswap64(value);
  return value;
}

void append_be64(byte_vector& out, std::uint64_t value) {
  std::uint8_t buf[8];
  put_be64(buf, value);
  out.insert(out.end(), buf, buf + 8);
}

void append(byte_vector& out, byte_view bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); }

void random_bytes(std::span<std::uint8_t> out) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  // Small reads are served from a pool refilled 4 KiB at a time: each refill costs
  // system calls, and a join needs only 32 bytes. Bytes handed out are wiped.
  constexpr std::size_t pool_size = 4096;
  thread_local std::array<std::uint8_t, pool_size> pool;
  thread_local std::size_t left = 0;
  if (out.size() > pool_size / 16) {
    randombytes_buf(out.data(), out.size());
    return;
  }
  if (left < out.size()) {
    randombytes_buf(pool.data(), pool.size());
    left = pool.size();
  }
  std::uint8_t* from = pool.data() + pool.size() - left;
  std::copy_n(from, out.size(), out.begin());
  sodium_memzero(from, out.size());
  left -= out.size();
}

std::uint64_t random_u64() {
  auto bytes = random_array<8>();
  return get_be64(bytes.data());
}

}  // namespace foyer
