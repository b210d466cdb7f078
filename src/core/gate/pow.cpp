#include "core/gate/pow.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace foyer::pow {
namespace {

__extension__ using uint128 = unsigned __int128;

constexpr std::string_view key_label = "foyer/pow/v1/key";

namespace offset {
constexpr std::size_t version = 0;
constexpr std::size_t puzzles = 1;
constexpr std::size_t room_hash = 2;
constexpr std::size_t network = 34;
constexpr std::size_t issued_at = 41;
constexpr std::size_t expires_at = 49;
constexpr std::size_t threshold = 57;
constexpr std::size_t salt = 65;
constexpr std::size_t mac = 81;
}  // namespace offset
static_assert(offset::network + network_key::size == offset::issued_at);
static_assert(offset::mac + sizeof(digest) == token_size);

constexpr std::size_t token_text_size = (token_size * 4 + 2) / 3;  // base64url, no padding

using token_bytes = std::array<std::uint8_t, token_size>;

byte_view signed_part(const token_bytes& t) { return byte_view(t).first(offset::mac); }

template <std::size_t N>
void put(token_bytes& t, std::size_t at, const std::array<std::uint8_t, N>& bytes) {
  std::copy(bytes.begin(), bytes.end(), t.begin() + at);
}

template <std::size_t N>
std::array<std::uint8_t, N> get(const token_bytes& t, std::size_t at) {
  std::array<std::uint8_t, N> out;
  std::copy_n(t.begin() + at, N, out.begin());
  return out;
}

std::optional<token_bytes> decode_bytes(std::string_view token) {
  // Length first: decoding is never asked to allocate for a huge input.
  if (token.size() != token_text_size) return std::nullopt;
  token_bytes t;
  if (!base64url_decode_into(token, t)) return std::nullopt;
  if (t[offset::version] != token_version) return std::nullopt;
  if (t[offset::puzzles] < 1 || t[offset::puzzles] > max_puzzles) return std::nullopt;
  return t;
}

token_fields fields_of(const token_bytes& t) {
  token_fields f;
  f.puzzles = t[offset::puzzles];
  f.room_hash = get<32>(t, offset::room_hash);
  f.network.bytes = get<network_key::size>(t, offset::network);
  f.issued_at_ms = get_be64(t.data() + offset::issued_at);
  f.expires_at_ms = get_be64(t.data() + offset::expires_at);
  f.threshold = get_be64(t.data() + offset::threshold);
  f.salt_bytes = get<salt_size>(t, offset::salt);
  f.mac = get<32>(t, offset::mac);
  return f;
}

using nonce_list = std::array<std::uint64_t, max_puzzles>;

std::optional<nonce_list> decode_nonces(std::string_view text, std::uint32_t puzzles) {
  // Exactly nonce_hex_digits per puzzle: from_hex_into refuses any other length.
  std::array<std::uint8_t, max_puzzles * 8> bytes;
  static_assert(nonce_hex_digits == 2 * 8);
  if (!from_hex_into(text, std::span(bytes).first(puzzles * 8))) return std::nullopt;
  nonce_list out{};
  for (std::uint32_t i = 0; i < puzzles; ++i) out[i] = get_be64(bytes.data() + 8 * i);
  return out;
}

}  // namespace

void validate(const config& cfg) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("pow config: " + what); };
  if (cfg.base_bits > max_difficulty_bits) fail(fmt::format("base_bits must be at most {}", max_difficulty_bits));
  if (cfg.puzzles < 1 || cfg.puzzles > max_puzzles) fail(fmt::format("puzzles must be 1 to {}", max_puzzles));
  if (cfg.challenge_ttl_ms == 0) fail("challenge_ttl_ms must be positive");
  if (cfg.pressure_window_ms == 0) fail("pressure_window_ms must be positive");
  if (cfg.pressure_threshold == 0) fail("pressure_threshold must be positive");
  if (cfg.max_pressure_bits > max_difficulty_bits) {
    fail(fmt::format("max_pressure_bits must be at most {}", max_difficulty_bits));
  }
  if (cfg.tracked_networks == 0) fail("tracked_networks must be positive");
  if (cfg.spent_capacity == 0) fail("spent_capacity must be positive");
}

std::uint64_t puzzle_threshold(std::uint64_t total_hashes, std::uint32_t puzzles) {
  if (total_hashes <= puzzles) return ~std::uint64_t{0};
  return static_cast<std::uint64_t>((uint128{puzzles} << 64) / total_hashes) - 1;
}

digest puzzle_hash(const digest& mac, std::uint32_t index, std::uint64_t nonce) {
  // mac ‖ index ‖ nonce: 44 bytes, one SHA-256 block.
  std::uint8_t message[sizeof(digest) + 12];
  std::memcpy(message, mac.data(), mac.size());
  std::uint8_t* tail = message + mac.size();
  for (int i = 0; i < 4; ++i) tail[i] = static_cast<std::uint8_t>(index >> (24 - 8 * i));
  put_be64(tail + 4, nonce);
  return sha256_short(message);
}

bool meets(const digest& hash, std::uint64_t threshold) { return get_be64(hash.data()) <= threshold; }

std::optional<token_fields> decode(std::string_view token) {
  auto t = decode_bytes(token);
  if (!t) return std::nullopt;
  return fields_of(*t);
}

std::string_view to_string(verdict v) {
  switch (v) {
    case verdict::ok: return "ok";
    case verdict::malformed: return "malformed";
    case verdict::bad_mac: return "bad_mac";
    case verdict::wrong_room: return "wrong_room";
    case verdict::wrong_network: return "wrong_network";
    case verdict::expired: return "expired";
    case verdict::issued_before_start: return "issued_before_start";
    case verdict::underpriced: return "underpriced";
    case verdict::insufficient_work: return "insufficient_work";
  }
  return "unknown";
}

namespace {

hmac_key derive_key(byte_view secret) {
  if (secret.size() < min_secret_size) {
    throw std::invalid_argument(fmt::format("pow secret must be at least {} bytes", min_secret_size));
  }
  auto key = hmac_sha256(secret, {as_bytes(key_label)});
  return hmac_key(key);
}

const config& validated(const config& cfg) {
  validate(cfg);
  return cfg;
}

}  // namespace

authority::authority(byte_view secret, const config& cfg, std::uint64_t start_ms)
    : key_(derive_key(secret)), cfg_(validated(cfg)), start_ms_(start_ms) {}

challenge authority::mint(std::string_view room, const network_key& network, std::uint64_t now_ms,
                          std::uint32_t extra_bits) const {
  return mint(room, network, now_ms, extra_bits, random_array<salt_size>());
}

challenge authority::mint(std::string_view room, const network_key& network, std::uint64_t now_ms,
                          std::uint32_t extra_bits, const salt& salt_bytes) const {
  auto bits = difficulty_bits(extra_bits);
  std::uint64_t expires_at = now_ms + cfg_.challenge_ttl_ms;
  token_bytes t{};
  t[offset::version] = token_version;
  t[offset::puzzles] = static_cast<std::uint8_t>(cfg_.puzzles);
  put(t, offset::room_hash, sha256(as_bytes(room)));
  put(t, offset::network, network.bytes);
  put_be64(t.data() + offset::issued_at, now_ms);
  put_be64(t.data() + offset::expires_at, expires_at);
  put_be64(t.data() + offset::threshold, puzzle_threshold(std::uint64_t{1} << bits, cfg_.puzzles));
  put(t, offset::salt, salt_bytes);
  put(t, offset::mac, key_.mac({signed_part(t)}));
  return challenge{base64url_encode(t), bits, expires_at};
}

std::uint32_t authority::difficulty_bits(std::uint32_t extra_bits) const {
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(std::uint64_t{cfg_.base_bits} + extra_bits, max_difficulty_bits));
}

verify_result authority::verify(std::string_view token, std::string_view nonce, std::string_view room,
                                const network_key& network, std::uint64_t now_ms, std::uint32_t extra_bits) const {
  verify_result r;
  auto t = decode_bytes(token);
  if (!t) return r;
  auto f = fields_of(*t);
  auto nonces = decode_nonces(nonce, f.puzzles);
  if (!nonces) return r;

  r.outcome = verdict::bad_mac;
  if (!equal_constant_time(key_.mac({signed_part(*t)}), f.mac)) return r;
  r.challenge_id = get_be64(f.mac.data());
  r.expires_at_ms = f.expires_at_ms;

  if (f.room_hash != sha256(as_bytes(room))) {
    r.outcome = verdict::wrong_room;
  } else if (f.network != network) {
    r.outcome = verdict::wrong_network;
  } else if (f.issued_at_ms < start_ms_) {
    r.outcome = verdict::issued_before_start;
  } else if (now_ms >= f.expires_at_ms) {
    r.outcome = verdict::expired;
  } else if (f.threshold > puzzle_threshold(std::uint64_t{1} << difficulty_bits(extra_bits), f.puzzles)) {
    // A higher threshold is an easier puzzle: the token was minted at a lower price.
    r.outcome = verdict::underpriced;
  } else {
    r.outcome = verdict::ok;
    for (std::uint32_t i = 0; i < f.puzzles; ++i) {
      if (!meets(puzzle_hash(f.mac, i, (*nonces)[i]), f.threshold)) {
        r.outcome = verdict::insufficient_work;
        break;
      }
    }
  }
  return r;
}

std::string solve(std::string_view token) {
  auto t = decode_bytes(token);
  if (!t) throw std::invalid_argument("pow: malformed challenge token");
  auto f = fields_of(*t);
  std::string proof;
  proof.reserve(f.puzzles * nonce_hex_digits);
  for (std::uint32_t i = 0; i < f.puzzles; ++i) {
    std::uint64_t nonce = 0;
    while (!meets(puzzle_hash(f.mac, i, nonce), f.threshold)) ++nonce;
    std::uint8_t be[8];
    put_be64(be, nonce);
    proof += to_hex(be);
  }
  return proof;
}

spent_set::spent_set(std::size_t capacity) : capacity_(capacity), slots_(1024) {}

spend_outcome spent_set::try_spend(std::uint64_t id, std::uint64_t expires_at_ms, std::uint64_t now_ms) {
  prune(now_ms);
  if (expires_at_ms <= now_ms) return spend_outcome::expired;
  if (contains(id)) return spend_outcome::already_spent;
  if (size_ >= capacity_) return spend_outcome::full;
  insert(id);
  by_expiry_.emplace(expires_at_ms, id);
  return spend_outcome::spent;
}

void spent_set::give_back(std::uint64_t id) { erase(id); }

bool spent_set::contains(std::uint64_t id) const { return id == 0 ? holds_zero_ : slots_[slot_of(id)] == id; }

std::size_t spent_set::slot_of(std::uint64_t id) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = id & mask;
  while (slots_[i] != 0 && slots_[i] != id) i = (i + 1) & mask;
  return i;
}

void spent_set::insert(std::uint64_t id) {
  ++size_;
  if (id == 0) {
    holds_zero_ = true;
    return;
  }
  if (2 * size_ > slots_.size()) {
    std::vector<std::uint64_t> old(slots_.size() * 2);
    old.swap(slots_);
    for (auto kept : old) {
      if (kept != 0) slots_[slot_of(kept)] = kept;
    }
  }
  slots_[slot_of(id)] = id;
}

void spent_set::erase(std::uint64_t id) {
  if (!contains(id)) return;
  --size_;
  if (id == 0) {
    holds_zero_ = false;
    return;
  }
  // Backward shift: later ids of the probe run move up into the gap when the gap
  // lies between their home slot and where they sit, so no lookup meets a hole.
  const std::size_t mask = slots_.size() - 1;
  std::size_t gap = slot_of(id);
  for (std::size_t j = (gap + 1) & mask; slots_[j] != 0; j = (j + 1) & mask) {
    std::size_t home = slots_[j] & mask;
    if (((j - home) & mask) >= ((j - gap) & mask)) {
      slots_[gap] = slots_[j];
      gap = j;
    }
  }
  slots_[gap] = 0;
}

void spent_set::prune(std::uint64_t now_ms) {
  while (!by_expiry_.empty() && by_expiry_.top().first <= now_ms) {
    erase(by_expiry_.top().second);
    by_expiry_.pop();
  }
}

}  // namespace foyer::pow
