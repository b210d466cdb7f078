#include "core/passes/room_gates.hpp"

#include <memory>
#include <utility>

#include "core/base/bytes.hpp"
#include "core/passes/pass.hpp"
#include "core/passes/pass_issuer.hpp"

namespace foyer::pass {

room_gates::room_gates(std::string jwks_json, std::string issuer, std::size_t passes_per_room, std::size_t max_rooms)
    : jwks_json_(std::move(jwks_json)), issuer_(std::move(issuer)), max_rooms_(max_rooms) {
  settings_.cache_capacity = passes_per_room;
  // A bad key set fails here, at start, rather than at the first hold.
  pass_verifier probe(jwks_json_, {issuer_, "probe"}, {es256_key_kind()});
}

gate& room_gates::gate_of(std::string_view room_id) {
  if (auto it = gates_.find(room_id); it != gates_.end()) return it->second;
  if (gates_.size() >= max_rooms_) gates_.clear();
  auto verifier = std::make_shared<const pass_verifier>(jwks_json_, pass_expectations{issuer_, std::string(room_id)},
                                                        std::vector<key_kind>{es256_key_kind()});
  return gates_.emplace(std::string(room_id), gate(std::move(verifier), settings_)).first->second;
}

std::optional<id16> room_gates::holder(std::string_view token, std::string_view room_id, std::int64_t now) {
  auto checked = gate_of(room_id).check(token, now, /*spend=*/false);
  if (!checked.ok) return std::nullopt;
  auto visitor = from_hex_fixed<16>(checked.subject);
  if (!visitor || checked.jti != to_hex(pass_id(room_id, *visitor))) return std::nullopt;
  return visitor;
}

std::size_t room_gates::cached_passes(std::string_view room_id) const {
  auto it = gates_.find(room_id);
  return it == gates_.end() ? 0 : it->second.cached_passes();
}

}  // namespace foyer::pass
