#pragma once
// 16-byte ids: visitors, entrants, passes, holds, accounts and Idempotency-Key digests.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace foyer {

using id16 = std::array<std::uint8_t, 16>;

struct id16_hash {
  std::size_t operator()(const id16& id) const noexcept;
};

// How an Idempotency-Key is indexed: the first 16 bytes of its digest.
id16 key_digest(std::string_view key);

}  // namespace foyer
