#pragma once
// Lobby receipts: proof that a join was made durable at a lobby index, signed by the
// room's Ed25519 key. Signing is done once per durable batch so that it never caps
// join throughput.
//
// The exact bytes:
//   message(receipt) = "foyer/receipt/v1"          16 ASCII bytes
//                      ‖ u8 len(room) ‖ room       1 + 0..255 bytes (UTF-8 as given)
//                      ‖ u64be lobby_index
//                      ‖ entrant id                16 bytes
//                      ‖ u64be joined_at           unix milliseconds
//                      ‖ commitment                32 bytes, SHA-256(seed)
// A receipt for a lane's lobby (a room with lanes draws each on its own) has the lane
// after the room, under its own domain, and the index within the lane's lobby:
//   message(receipt) = "foyer/lane-receipt/v1"     21 ASCII bytes
//                      ‖ u8 len(room) ‖ room ‖ u8 len(lane) ‖ lane
//                      ‖ u64be lobby_index ‖ entrant id ‖ u64be joined_at ‖ commitment
//   leaf             = merkle::leaf_hash(message)  = SHA-256(0x00 ‖ message)
//   batch root       = RFC 6962 MTH of the batch's leaves, in batch order
//   signature        = Ed25519(secret key, "foyer/receipt-batch/v1" (22 ASCII bytes) ‖ batch root)
//
// To check a receipt: rebuild its message, walk batch_path from its leaf at
// batch_index in a tree of batch_size leaves (RFC 9162 §2.1.3.2) to a root, and
// check the signature over "foyer/receipt-batch/v1" ‖ root with the room's public key.
// `kid` names that key; it is not signed. batch_size and batch_index only shape the
// path: the signature covers the root, and the root covers every message of the batch.
//
// JSON (all hex lowercase, numbers as JSON integers):
//   {"version":"v1","room":"..","lobby_index":7,"entrant_id":"<32 hex>","joined_at":<ms>,
//    "commitment":"<64 hex>","kid":"..","batch_size":37,"batch_index":5,
//    "batch_path":["<64 hex>",..],"signature":"<128 hex>"}
// and, for a lane's lobby, "lane":"<lane id>" (the general lane's receipts have none).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/bytes.hpp"

namespace foyer::receipt {

inline constexpr std::string_view message_domain = "foyer/receipt/v1";
inline constexpr std::string_view lane_message_domain = "foyer/lane-receipt/v1";
inline constexpr std::string_view batch_domain = "foyer/receipt-batch/v1";
inline constexpr std::size_t max_room_length = 255;
inline constexpr std::size_t entrant_id_size = 16;

using secret_key = std::array<std::uint8_t, 64>;  // libsodium layout: seed ‖ public key
using public_key = std::array<std::uint8_t, 32>;
using signature_bytes = std::array<std::uint8_t, 64>;

// What a receipt attests, as known when the join became durable.
struct receipt_fields {
  std::string room;
  std::uint64_t lobby_index = 0;  // within the lane's lobby
  std::array<std::uint8_t, entrant_id_size> entrant_id{};
  std::uint64_t joined_at_ms = 0;
  digest commitment{};  // the lane's
  std::string lane;     // "" for the general lane's lobby, the room's own
};

struct receipt : receipt_fields {
  std::string kid;
  std::uint64_t batch_size = 0;
  std::uint64_t batch_index = 0;
  std::vector<digest> batch_path;
  signature_bytes signature{};
};

// Throws std::invalid_argument if the room id is longer than max_room_length.
byte_vector message(const receipt_fields& fields);
byte_vector batch_message(const digest& batch_root);

// One signature for the whole batch; receipt i gets batch_index i and its path.
// Throws std::invalid_argument if a room id is too long.
std::vector<receipt> sign_batch(std::vector<receipt_fields> batch, const secret_key& key,
                                std::string_view kid);

// False for a receipt whose fields, path or signature do not match the key.
bool verify(const receipt& r, const public_key& key);

std::string to_json(const receipt& r);
// nullopt unless the text is a v1 receipt with every field present and well formed.
std::optional<receipt> from_json(std::string_view json);

}  // namespace foyer::receipt
