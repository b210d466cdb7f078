#include "core/passes/pass_gate.hpp"

#include <cstring>
#include <stdexcept>

#include "core/base/crypto.hpp"

namespace foyer::pass {

std::size_t gate::digest_hash::operator()(const digest& d) const {
  // A SHA-256 output: any 8 of its bytes are as good as a hash gets.
  std::size_t out = 0;
  std::memcpy(&out, d.data(), sizeof out);
  return out;
}

gate::gate(std::shared_ptr<const pass_verifier> verifier, gate_settings settings)
    : verifier_(std::move(verifier)), settings_(settings) {
  if (!verifier_) throw std::invalid_argument("gate: no verifier");
}

void gate::replace_verifier(std::shared_ptr<const pass_verifier> verifier) {
  if (!verifier) throw std::invalid_argument("gate: no verifier");
  verifier_ = std::move(verifier);
  cache_.clear();
  cache_order_.clear();
}

const gate::verified* gate::remember(const digest& key, verified entry) {
  if (settings_.cache_capacity == 0) return nullptr;
  while (cache_.size() >= settings_.cache_capacity) {
    cache_.erase(cache_order_.front());
    cache_order_.pop_front();
  }
  cache_order_.push_back(key);
  return &cache_.emplace(key, std::move(entry)).first->second;
}

void gate::forget_expired_ids(std::int64_t now) {
  while (!spent_expiry_.empty() && spent_expiry_.top().first <= now) {
    spent_.erase(spent_.find(*spent_expiry_.top().second));
    spent_expiry_.pop();
  }
}

gate_result gate::check(std::string_view token, std::int64_t now, bool spend) {
  gate_result result;
  const std::int64_t leeway = verifier_->expectations().leeway_seconds;
  verified fresh;
  const verified* pass = nullptr;
  digest key{};
  if (settings_.cache_capacity > 0) {
    key = sha256(as_bytes(token));
    if (auto it = cache_.find(key); it != cache_.end()) {
      pass = &it->second;
      result.cached = true;
      // The entry was verified in full; only time has moved on since.
      if (now >= pass->exp + leeway) {
        result.error_code = "expired";
        return result;
      }
    }
  }
  if (pass == nullptr) {
    auto checked = verifier_->verify(token, now);
    if (!checked.ok) {
      result.error_code = std::move(checked.error_code);
      return result;
    }
    fresh = {std::move(checked.subject), std::move(checked.jti), checked.exp};
    const verified* kept = remember(key, fresh);
    pass = kept != nullptr ? kept : &fresh;
  }

  if (settings_.single_use) {
    forget_expired_ids(now);
    if (spent_.contains(pass->jti)) {
      result.error_code = "spent";
      return result;
    }
    if (spend) {
      if (spent_.size() >= settings_.single_use_capacity) {
        result.error_code = "single_use_full";
        return result;
      }
      auto inserted = spent_.emplace(pass->jti, pass->exp + leeway).first;
      spent_expiry_.emplace(inserted->second, &inserted->first);
    }
  }
  result.ok = true;
  result.subject = pass->subject;
  result.jti = pass->jti;
  result.exp = pass->exp;
  return result;
}

}  // namespace foyer::pass
