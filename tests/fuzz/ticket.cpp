// Ticket decode and verify: any text is a ticket, malformed or forged, never a crash; a
// ticket that decodes encodes back to the same bytes' meaning.
#include <cstdlib>

#include "core/gate/ticket.hpp"
#include "fixtures.hpp"

using namespace foyer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ticket_codec codec(as_bytes(fuzz::secret));
  ticket_error why{};
  auto t = codec.decode(fuzz::text_of(data, size), &why);
  if (!t) return 0;
  auto again = codec.decode(codec.encode(*t));
  if (!again || again->room != t->room || again->visitor != t->visitor || again->place != t->place ||
      again->lobby_index != t->lobby_index || again->entrant != t->entrant || again->issued_ms != t->issued_ms) {
    std::abort();
  }
  return 0;
}
