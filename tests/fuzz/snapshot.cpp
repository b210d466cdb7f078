// Snapshot decode, as a restart reads it: a journal recovers from the bytes or refuses them
// with std::runtime_error, never a crash. Every room recovered encodes a state that a fresh
// room reads back to the same bytes.
#include <cstdlib>
#include <deque>
#include <functional>
#include <stdexcept>

#include "core/rooms/journal.hpp"
#include "fixtures.hpp"
#include "support/memory_store.hpp"

using namespace foyer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::deque<std::function<void()>> posted;
  test::memory_store store([&](std::function<void()> f) { posted.push_back(std::move(f)); });
  journal rooms(store);
  recovered_log log;
  log.snapshot = std::string(fuzz::text_of(data, size));
  log.snapshot_seq = 1;
  try {
    rooms.recover(log);
  } catch (const std::runtime_error&) {
    return 0;
  }
  for (const auto& [id, r] : rooms.rooms()) {
    auto state = r.encode_state();
    // The seed follows the format byte (room.cpp, encode_state).
    room_created created{id, {}, 0};
    std::copy_n(reinterpret_cast<const std::uint8_t*>(state.data()) + 1, created.seed.size(), created.seed.begin());
    room fresh(r.config(), created);
    if (!fresh.decode_state(state) || fresh.encode_state() != state) std::abort();
  }
  return 0;
}
