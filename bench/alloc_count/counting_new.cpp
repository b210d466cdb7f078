// A counting allocator for benchmarks, preloaded into the server (LD_PRELOAD, with
// FOYER_ALLOC_COUNTS naming the counts' file): every operator new is counted for its
// thread, then passed on to the allocator the server would have used (tcmalloc, or the
// C++ library's). The load generator reads the counts around its timed phase alone
// (foyer_load --alloc-counts), so allocations per join or per poll are those of the
// real binary on the real path, split by thread like its CPU.

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

#include "alloc_counts.hpp"

namespace {

using foyer::bench::alloc_slot;
using foyer::bench::alloc_slots;

alloc_slot* table = nullptr;  // set once, before main, by open_counts
std::atomic<std::size_t> slots_taken{0};
thread_local alloc_slot* own_slot = nullptr;

__attribute__((constructor)) void open_counts() {
  const char* path = std::getenv("FOYER_ALLOC_COUNTS");
  if (path == nullptr) return;
  int fd = ::open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(foyer::bench::alloc_counts_bytes)) != 0) std::abort();
  void* mapped = ::mmap(nullptr, foyer::bench::alloc_counts_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED) std::abort();
  ::close(fd);
  table = static_cast<alloc_slot*>(mapped);
}

void count() {
  if (own_slot == nullptr) {
    if (table == nullptr) return;
    std::size_t i = slots_taken.fetch_add(1, std::memory_order_relaxed);
    if (i >= alloc_slots) return;
    own_slot = &table[i];
    own_slot->tid.store(::syscall(SYS_gettid), std::memory_order_relaxed);
  }
  // One writer per slot: a plain add, made visible to the reader outside.
  own_slot->count.store(own_slot->count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// The next definition of `symbol` after this library's: the one the server would have used.
template <class Function>
Function next(const char* symbol) {
  auto* found = reinterpret_cast<Function>(::dlsym(RTLD_NEXT, symbol));
  if (found == nullptr) std::abort();
  return found;
}

using plain_new = void* (*)(std::size_t);
using aligned_new = void* (*)(std::size_t, std::align_val_t);
using nothrow_new = void* (*)(std::size_t, const std::nothrow_t&) noexcept;

}  // namespace

void* operator new(std::size_t n) {
  static const auto real = next<plain_new>("_Znwm");
  count();
  return real(n);
}

void* operator new[](std::size_t n) {
  static const auto real = next<plain_new>("_Znam");
  count();
  return real(n);
}

void* operator new(std::size_t n, std::align_val_t a) {
  static const auto real = next<aligned_new>("_ZnwmSt11align_val_t");
  count();
  return real(n, a);
}

void* operator new[](std::size_t n, std::align_val_t a) {
  static const auto real = next<aligned_new>("_ZnamSt11align_val_t");
  count();
  return real(n, a);
}

void* operator new(std::size_t n, const std::nothrow_t& t) noexcept {
  static const auto real = next<nothrow_new>("_ZnwmRKSt9nothrow_t");
  count();
  return real(n, t);
}

void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  static const auto real = next<nothrow_new>("_ZnamRKSt9nothrow_t");
  count();
  return real(n, t);
}
