#include "core/base/ids.hpp"

#include <algorithm>
#include <cstring>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"

namespace foyer {

std::size_t id16_hash::operator()(const id16& id) const noexcept {
  // Account ids and pass ids are digests: any eight of their bytes are uniform.
  std::size_t h;
  std::memcpy(&h, id.data(), sizeof h);
  return h;
}

id16 key_digest(std::string_view key) {
  auto d = sha256({as_bytes(key)});
  id16 out;
  std::copy_n(d.begin(), out.size(), out.begin());
  return out;
}

}  // namespace foyer
