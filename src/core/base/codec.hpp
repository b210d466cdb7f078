#pragma once
// Fixed-width binary encoding for events, snapshots and tickets.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/bytes.hpp"

namespace foyer {

class writer {
 public:
  writer() = default;
  explicit writer(std::size_t expected_size) { out_.reserve(expected_size); }

  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u64(std::uint64_t v) {
    std::uint8_t buf[8];
    put_be64(buf, v);
    out_.append(reinterpret_cast<const char*>(buf), 8);
  }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void raw(byte_view b) { out_.append(reinterpret_cast<const char*>(b.data()), b.size()); }
  // Length-prefixed (u32) bytes.
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  void u32(std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<char>(v >> shift));
  }
  std::string take() { return std::move(out_); }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

// Reads what writer wrote; any overrun sets failed() and yields zeros.
class reader {
 public:
  explicit reader(std::string_view in) : in_(in) {}
  std::uint8_t u8() { return take(1) ? static_cast<std::uint8_t>(in_[pos_ - 1]) : 0; }
  std::uint32_t u32() {
    if (!take(4)) return 0;
    std::uint32_t v = 0;
    for (std::size_t i = pos_ - 4; i < pos_; ++i) v = v << 8 | static_cast<std::uint8_t>(in_[i]);
    return v;
  }
  std::uint64_t u64() {
    return take(8) ? get_be64(reinterpret_cast<const std::uint8_t*>(in_.data() + pos_ - 8)) : 0;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64() { return std::bit_cast<double>(u64()); }
  template <std::size_t N>
  std::array<std::uint8_t, N> raw() {
    std::array<std::uint8_t, N> out{};
    if (take(N)) std::copy_n(in_.data() + pos_ - N, N, reinterpret_cast<char*>(out.data()));
    return out;
  }
  std::string str() {
    std::uint32_t n = u32();
    if (!take(n)) return {};
    return std::string(in_.substr(pos_ - n, n));
  }
  bool failed() const { return failed_; }
  bool done() const { return !failed_ && pos_ == in_.size(); }

 private:
  bool take(std::size_t n) {
    if (failed_ || in_.size() - pos_ < n) {
      failed_ = true;
      return false;
    }
    pos_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace foyer
