#pragma once
// A stand-in for the event loop in tests: work posted from any thread is queued and
// run on the test's own thread, in post order, by run_until / run_ready.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <utility>

namespace foyer::test {

class run_loop {
 public:
  using post_function = std::function<void(std::function<void()>)>;

  void post(std::function<void()> work) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(work));
    }
    wake_.notify_one();
  }

  // The `post` function to hand to a store.
  post_function poster() {
    return [this](std::function<void()> work) { post(std::move(work)); };
  }

  // Runs posted work until done() holds; false if it still does not after `timeout`.
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      std::function<void()> work;
      {
        std::unique_lock lock(mutex_);
        if (!wake_.wait_until(lock, deadline, [this] { return !queue_.empty(); })) return done();
        work = std::move(queue_.front());
        queue_.pop_front();
      }
      work();
    }
    return true;
  }

  // Runs what has been posted so far (and what that posts); returns how many ran.
  std::size_t run_ready() {
    std::size_t ran = 0;
    for (;;) {
      std::function<void()> work;
      {
        std::lock_guard lock(mutex_);
        if (queue_.empty()) return ran;
        work = std::move(queue_.front());
        queue_.pop_front();
      }
      work();
      ++ran;
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
};

}  // namespace foyer::test
