#include "core/fairness/receipt.hpp"

#include <sodium.h>
#include <simdjson.h>

#include <stdexcept>

#include "core/base/json.hpp"
#include "core/fairness/merkle.hpp"

namespace foyer::receipt {
namespace {

void ensure_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
}

template <std::size_t N>
std::optional<std::array<std::uint8_t, N>> hex_field(simdjson::dom::object object,
                                                     std::string_view name) {
  std::string_view text;
  if (object[name].get_string().get(text)) return std::nullopt;
  return from_hex_fixed<N>(text);
}

std::optional<std::uint64_t> number_field(simdjson::dom::object object, std::string_view name) {
  std::uint64_t value = 0;
  if (object[name].get_uint64().get(value)) return std::nullopt;
  return value;
}

std::optional<std::string_view> string_field(simdjson::dom::object object, std::string_view name) {
  std::string_view text;
  if (object[name].get_string().get(text)) return std::nullopt;
  return text;
}

}  // namespace

byte_vector message(const receipt_fields& fields) {
  if (fields.room.size() > max_room_length || fields.lane.size() > max_room_length) {
    throw std::invalid_argument("receipt: room or lane id too long");
  }
  bool lane = !fields.lane.empty();
  byte_vector out;
  out.reserve(lane_message_domain.size() + 2 + fields.room.size() + fields.lane.size() + 8 + entrant_id_size + 8 + 32);
  append(out, as_bytes(lane ? lane_message_domain : message_domain));
  out.push_back(static_cast<std::uint8_t>(fields.room.size()));
  append(out, as_bytes(fields.room));
  if (lane) {
    out.push_back(static_cast<std::uint8_t>(fields.lane.size()));
    append(out, as_bytes(fields.lane));
  }
  append_be64(out, fields.lobby_index);
  append(out, fields.entrant_id);
  append_be64(out, fields.joined_at_ms);
  append(out, fields.commitment);
  return out;
}

byte_vector batch_message(const digest& batch_root) {
  byte_vector out;
  append(out, as_bytes(batch_domain));
  append(out, batch_root);
  return out;
}

std::vector<receipt> sign_batch(std::vector<receipt_fields> batch, const secret_key& key,
                                std::string_view kid) {
  if (batch.empty()) return {};
  std::vector<digest> leaves;
  leaves.reserve(batch.size());
  for (const auto& fields : batch) leaves.push_back(merkle::leaf_hash(message(fields)));

  ensure_sodium();
  signature_bytes signature;
  auto signed_bytes = batch_message(merkle::root_of(leaves));
  crypto_sign_detached(signature.data(), nullptr, signed_bytes.data(), signed_bytes.size(),
                       key.data());

  auto paths = merkle::all_paths(leaves);
  std::vector<receipt> out;
  out.reserve(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    out.push_back({std::move(batch[i]), std::string(kid), batch.size(), i, std::move(paths[i]), signature});
  }
  return out;
}

bool verify(const receipt& r, const public_key& key) {
  if (r.room.size() > max_room_length || r.lane.size() > max_room_length) return false;
  auto root = merkle::root_from_path(merkle::leaf_hash(message(r)), r.batch_index, r.batch_size,
                                     r.batch_path);
  if (!root) return false;
  ensure_sodium();
  auto signed_bytes = batch_message(*root);
  return crypto_sign_verify_detached(r.signature.data(), signed_bytes.data(), signed_bytes.size(),
                                     key.data()) == 0;
}

std::string to_json(const receipt& r) {
  std::string path = "[";
  for (const auto& hash : r.batch_path) {
    if (path.size() > 1) path += ',';
    path += json_quote(to_hex(hash));
  }
  path += ']';
  json_object out;
  out.str("version", "v1")
      .str("room", r.room);
  if (!r.lane.empty()) out.str("lane", r.lane);
  out.num("lobby_index", r.lobby_index)
      .hex("entrant_id", r.entrant_id)
      .num("joined_at", r.joined_at_ms)
      .hex("commitment", r.commitment)
      .str("kid", r.kid)
      .num("batch_size", r.batch_size)
      .num("batch_index", r.batch_index)
      .raw("batch_path", path)
      .hex("signature", r.signature);
  return std::move(out).done();
}

std::optional<receipt> from_json(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::object object;
  if (parser.parse(padded).get_object().get(object)) return std::nullopt;

  auto version = string_field(object, "version");
  auto room = string_field(object, "room");
  // A lane is named, or absent for the general lane's lobby.
  auto lane = object["lane"].error() == simdjson::NO_SUCH_FIELD ? std::optional<std::string_view>("")
                                                                 : string_field(object, "lane");
  auto lobby_index = number_field(object, "lobby_index");
  auto entrant_id = hex_field<entrant_id_size>(object, "entrant_id");
  auto joined_at = number_field(object, "joined_at");
  auto commitment = hex_field<32>(object, "commitment");
  auto kid = string_field(object, "kid");
  auto batch_size = number_field(object, "batch_size");
  auto batch_index = number_field(object, "batch_index");
  auto signature = hex_field<64>(object, "signature");
  simdjson::dom::array path_items;
  if (version != "v1" || !room || room->size() > max_room_length || !lane || lane->size() > max_room_length ||
      !lobby_index || !entrant_id ||
      !joined_at || !commitment || !kid || !batch_size || !batch_index || !signature ||
      object["batch_path"].get_array().get(path_items) ||
      path_items.size() > merkle::max_path_length) {
    return std::nullopt;
  }
  std::vector<digest> batch_path;
  for (auto item : path_items) {
    std::string_view text;
    if (item.get_string().get(text)) return std::nullopt;
    auto hash = from_hex_fixed<32>(text);
    if (!hash) return std::nullopt;
    batch_path.push_back(*hash);
  }
  return receipt{{std::string(*room), *lobby_index, *entrant_id, *joined_at, *commitment, std::string(*lane)},
                 std::string(*kid),
                 *batch_size,
                 *batch_index,
                 std::move(batch_path),
                 *signature};
}

}  // namespace foyer::receipt
