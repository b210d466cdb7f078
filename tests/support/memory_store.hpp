#pragma once
// An in-memory event_store for domain and HTTP tests: the contract of
// foyer/store.hpp without a disk. Completions go through `post`, in call order, like
// the real store's; every write is "durable" at once unless made to fail.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "foyer/store.hpp"

namespace foyer::test {

class memory_store final : public event_store {
 public:
  using post_function = std::function<void(std::function<void()>)>;

  explicit memory_store(post_function post) : post_(std::move(post)) {}

  // The next `count` appends, snapshots and contact writes fail with ENOSPC, as on a full disk; nothing
  // of them is kept and their seqs are reused, as in the real store.
  void fail_next_writes(std::size_t count) { failures_left_ = count; }

  // What the real store's recover() would return after a restart now.
  recovered_log recover() const {
    recovered_log log;
    log.snapshot = snapshot_;
    log.snapshot_seq = snapshot_seq_;
    log.events.assign(events_.begin() + static_cast<std::ptrdiff_t>(snapshot_seq_), events_.end());
    return log;
  }

  // Every durable event, seq 1 first.
  const std::vector<std::string>& events() const { return events_; }
  std::uint64_t last_seq() const { return events_.size(); }
  // Every durable contact record, by key.
  const std::map<std::string, std::string>& contacts() const { return contacts_; }
  // Every durable side record, by key.
  const std::map<std::string, std::string>& side_records() const { return side_records_; }

  void append(encoded_events events, std::vector<side_record> side_records,
              durable_handler done) override {
    if (take_failure()) {
      post_([done = std::move(done)] { done(no_space(), 0); });
      return;
    }
    const std::uint64_t first_seq = events_.size() + 1;
    for (auto& event : events) events_.push_back(std::move(event));
    for (auto& side : side_records) side_records_[side.key] = std::move(side.value);
    post_([done = std::move(done), first_seq] { done({}, first_seq); });
  }

  void save_snapshot(std::uint64_t seq, std::string state, done_handler done) override {
    std::error_code ec;
    if (take_failure()) {
      ec = no_space();
    } else if (seq > events_.size() || seq < snapshot_seq_) {
      ec = std::make_error_code(std::errc::invalid_argument);
    } else {
      snapshot_ = std::move(state);
      snapshot_seq_ = seq;
    }
    post_([done = std::move(done), ec] { done(ec); });
  }

  void read(std::vector<std::string> keys, read_handler done) override {
    std::vector<std::optional<std::string>> values;
    values.reserve(keys.size());
    for (const auto& key : keys) {
      auto it = side_records_.find(key);
      values.push_back(it == side_records_.end() ? std::nullopt
                                                 : std::optional<std::string>(it->second));
    }
    post_([done = std::move(done), values = std::move(values)]() mutable {
      done({}, std::move(values));
    });
  }

  void write_contacts(std::vector<record_change> changes, done_handler done) override {
    std::error_code ec;
    if (take_failure()) {
      ec = no_space();
    } else {
      for (auto& c : changes) {
        if (c.value) {
          contacts_[c.key] = std::move(*c.value);
        } else {
          contacts_.erase(c.key);
        }
      }
    }
    post_([done = std::move(done), ec] { done(ec); });
  }

  void read_events(std::uint64_t after_seq, std::size_t max_events, events_handler done) override {
    std::vector<std::string> out;
    for (auto seq = after_seq + 1; seq <= events_.size() && out.size() < max_events; ++seq) {
      out.push_back(events_[seq - 1]);
    }
    post_([done = std::move(done), first = after_seq + 1, out = std::move(out)]() mutable {
      done({}, first, std::move(out));
    });
  }

 private:
  static std::error_code no_space() { return std::make_error_code(std::errc::no_space_on_device); }

  bool take_failure() {
    if (failures_left_ == 0) return false;
    --failures_left_;
    return true;
  }

  post_function post_;
  std::vector<std::string> events_;
  std::map<std::string, std::string> side_records_;
  std::map<std::string, std::string> contacts_;
  std::optional<std::string> snapshot_;
  std::uint64_t snapshot_seq_ = 0;
  std::size_t failures_left_ = 0;
};

}  // namespace foyer::test
