// Challenge decode and verify. The input is "token nonce" (split at the first space): a
// token and proof as a join body carries them.
#include <cstdlib>

#include "core/gate/pow.hpp"
#include "fixtures.hpp"

using namespace foyer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const pow::authority authority(as_bytes(fuzz::secret), pow::config{}, fuzz::t0_ms - 1000);
  auto input = fuzz::text_of(data, size);
  auto space = input.find(' ');
  auto token = input.substr(0, space);
  auto nonce = space == std::string_view::npos ? std::string_view{} : input.substr(space + 1);
  auto fields = pow::decode(token);
  auto result = authority.verify(token, nonce, fuzz::room_id, fuzz::client_network(), fuzz::t0_ms);
  // Anything verify() gets past the shape check must have decoded.
  if (result.outcome != pow::verdict::malformed && !fields) std::abort();
  if (result.ok() && (fields->puzzles == 0 || fields->puzzles > pow::max_puzzles)) std::abort();
  return 0;
}
