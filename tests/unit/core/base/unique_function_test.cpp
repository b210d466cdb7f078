// The move-only callable the journal holds a submit's completion in: it takes what
// std::function can't (move-only callables), keeps small ones in place, and destroys
// what it holds exactly once.
#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <string>

#include "core/base/unique_function.hpp"

using foyer::unique_function;

namespace {

// Counts its live copies, so that a test sees every construction matched by one destruction.
struct counted {
  explicit counted(int& live) : live(&live) { ++live; }
  counted(counted&& other) noexcept : live(other.live) { ++*live; }
  counted(const counted&) = delete;
  ~counted() { --*live; }
  int* live;
};

}  // namespace

TEST_CASE("a unique_function calls a move-only callable, moves it along, and destroys it once") {
  auto owned = std::make_unique<int>(41);
  unique_function<int(int)> f = [owned = std::move(owned)](int add) { return *owned + add; };
  REQUIRE(f);
  CHECK(f(1) == 42);
  unique_function<int(int)> g = std::move(f);
  CHECK_FALSE(f);  // moved from: empty
  CHECK(g(2) == 43);

  int live = 0;
  {
    unique_function<void()> small = [c = counted(live)] {};
    CHECK(live == 1);
    unique_function<void()> moved = std::move(small);
    CHECK(live == 1);
    moved = unique_function<void()>();
    CHECK(live == 0);
  }
  CHECK(live == 0);
}

TEST_CASE("a unique_function holds a callable larger than its inline room on the heap, just as well") {
  int live = 0;
  std::array<char, unique_function<void()>::inline_bytes * 2> big{};
  big[0] = 'x';
  std::string seen;
  {
    unique_function<void()> f = [c = counted(live), big, &seen] { seen.push_back(big[0]); };
    unique_function<void()> g = std::move(f);
    g();
    CHECK(live == 1);
  }
  CHECK(seen == "x");
  CHECK(live == 0);
}

TEST_CASE("a unique_function passes arguments by reference as declared") {
  unique_function<void(std::string&, const std::string&)> append = [](std::string& out, const std::string& s) {
    out += s;
  };
  std::string out = "a";
  append(out, "b");
  CHECK(out == "ab");
}
