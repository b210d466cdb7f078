#pragma once
// A move-only callable, as C++23's std::move_only_function (not in C++20): it holds what
// std::function can't without a shared copy (a coroutine's move-only completion handler),
// and a callable up to `inline_bytes` without allocating. Calling an empty one is a bug.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace foyer {

template <class Signature>
class unique_function;

template <class R, class... Args>
class unique_function<R(Args...)> {
 public:
  static constexpr std::size_t inline_bytes = 48;

  unique_function() = default;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, unique_function> &&
                                              std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  unique_function(F&& f) {
    using held = std::decay_t<F>;
    if constexpr (fits<held>) {
      ::new (static_cast<void*>(storage_)) held(std::forward<F>(f));
      ops_ = &inline_ops<held>;
    } else {
      *reinterpret_cast<held**>(storage_) = new held(std::forward<F>(f));
      ops_ = &heap_ops<held>;
    }
  }
  unique_function(unique_function&& other) noexcept { take(other); }
  unique_function& operator=(unique_function&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  unique_function(const unique_function&) = delete;
  unique_function& operator=(const unique_function&) = delete;
  ~unique_function() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  R operator()(Args... args) { return ops_->call(storage_, std::forward<Args>(args)...); }

 private:
  struct operations {
    R (*call)(void* self, Args&&... args);
    void (*move)(void* from, void* to) noexcept;
    void (*destroy)(void* self) noexcept;
  };

  template <class T>
  static constexpr bool fits = sizeof(T) <= inline_bytes && alignof(T) <= alignof(std::max_align_t) &&
                               std::is_nothrow_move_constructible_v<T>;

  template <class T>
  static constexpr operations inline_ops{
      [](void* self, Args&&... args) -> R { return (*static_cast<T*>(self))(std::forward<Args>(args)...); },
      [](void* from, void* to) noexcept {
        ::new (to) T(std::move(*static_cast<T*>(from)));
        static_cast<T*>(from)->~T();
      },
      [](void* self) noexcept { static_cast<T*>(self)->~T(); }};

  template <class T>
  static constexpr operations heap_ops{
      [](void* self, Args&&... args) -> R { return (**static_cast<T**>(self))(std::forward<Args>(args)...); },
      [](void* from, void* to) noexcept { *static_cast<T**>(to) = *static_cast<T**>(from); },
      [](void* self) noexcept { delete *static_cast<T**>(self); }};

  void take(unique_function& other) noexcept {
    if (!other.ops_) return;
    other.ops_->move(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }
  void reset() noexcept {
    if (ops_) std::exchange(ops_, nullptr)->destroy(storage_);
  }

  alignas(std::max_align_t) unsigned char storage_[inline_bytes];
  const operations* ops_ = nullptr;
};

}  // namespace foyer
