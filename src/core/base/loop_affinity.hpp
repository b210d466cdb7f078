#pragma once
// State owned by the event loop is touched on the loop's thread only: no locks guard
// it. Debug builds check that at every change; release builds compile the check away.

#include <cassert>
#include <thread>

namespace foyer {

class loop_affinity {
 public:
  // Bound to the thread that constructs it, which goes on to run the loop.
  void check() const { assert(owner_ == std::this_thread::get_id() && "room state touched off the event loop"); }

 private:
  std::thread::id owner_ = std::this_thread::get_id();
};

}  // namespace foyer
