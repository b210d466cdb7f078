#include "core/fairness/ledger_publisher.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace foyer::ledger {

publisher::publisher(std::string origin, const note::seed& seed, std::vector<witness_listing> witnesses,
                     std::size_t quorum)
    : origin_(std::move(origin)), seed_(seed), signer_(origin_, seed), witnesses_(std::move(witnesses)), quorum_(quorum) {}

std::string publisher::checkpoint(std::uint64_t size, const digest& root) const {
  auto key = std::pair(size, root);
  auto it = signed_.find(key);
  if (it == signed_.end()) {
    // Only the newest is asked for again and again.
    signed_.clear();
    it = signed_.emplace(key, checkpoint::sign({origin_, size, root}, signer_)).first;
  }
  return size == cosigned_size_ && !cosigned_.empty() ? cosigned_ : it->second;
}

std::string publisher::lobby_origin(std::string_view room, std::string_view lane) const {
  if (lane.empty()) return fmt::format("{}/lobby/{}", origin_, room);
  return fmt::format("{}/lobby/{}/{}", origin_, room, lane);
}

std::string publisher::lobby_checkpoint(std::string_view room, std::string_view lane, std::uint64_t size,
                                        const digest& root) const {
  auto origin = lobby_origin(room, lane);
  return checkpoint::sign({origin, size, root}, note::signer(origin, seed_));
}

std::string publisher::lobby_vkey(std::string_view room, std::string_view lane) const {
  return note::encode_vkey(note::signer(lobby_origin(room, lane), seed_).public_part());
}

void publisher::set_cosigned(std::uint64_t size, std::string note) {
  cosigned_size_ = size;
  cosigned_ = std::move(note);
}

}  // namespace foyer::ledger
