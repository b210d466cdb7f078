// Receipt decode: any text is refused or read; a receipt read writes back to JSON that
// reads as the same receipt, and its signature check never crashes.
#include <cstdlib>

#include "core/fairness/receipt.hpp"
#include "fixtures.hpp"

using namespace foyer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const receipt::public_key key = [] {
    receipt::public_key k{};
    auto pk = fuzz::pass_key().public_key;
    std::copy(pk.begin(), pk.end(), k.begin());
    return k;
  }();
  auto r = receipt::from_json(fuzz::text_of(data, size));
  if (!r) return 0;
  (void)receipt::verify(*r, key);
  auto json = receipt::to_json(*r);
  auto again = receipt::from_json(json);
  if (!again || receipt::to_json(*again) != json) std::abort();
  return 0;
}
