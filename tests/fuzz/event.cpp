// Event decode, as replay reads the log: corrupt bytes are refused, never a crash; an event
// that decodes encodes to bytes that decode to the same event.
#include <cstdlib>

#include "core/rooms/event.hpp"
#include "fixtures.hpp"

using namespace foyer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto e = decode_event(fuzz::text_of(data, size));
  if (!e) return 0;
  auto bytes = encode(*e);
  auto again = decode_event(bytes);
  if (!again || encode(*again) != bytes || room_of(*again) != room_of(*e)) std::abort();
  return 0;
}
