#include "core/lanes/site_keys.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace foyer::invite {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == y; });
}

}  // namespace

std::string_view to_string(fetch_outcome o) {
  switch (o) {
    case fetch_outcome::ok: return "ok";
    case fetch_outcome::failed: return "failed";
    case fetch_outcome::invalid: return "invalid";
  }
  return "failed";
}

std::optional<std::int64_t> max_age_seconds(std::string_view cache_control) {
  while (!cache_control.empty()) {
    auto comma = cache_control.find(',');
    auto directive = trimmed(cache_control.substr(0, comma));
    cache_control.remove_prefix(comma == std::string_view::npos ? cache_control.size() : comma + 1);
    auto equals = directive.find('=');
    if (equals == std::string_view::npos || !iequals(trimmed(directive.substr(0, equals)), "max-age")) continue;
    auto value = trimmed(directive.substr(equals + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    // Ten digits is over three centuries; longer cannot matter and could overflow.
    if (value.empty() || value.size() > 10 || !std::all_of(value.begin(), value.end(), [](char c) {
          return c >= '0' && c <= '9';
        })) {
      return std::nullopt;
    }
    return std::stoll(std::string(value));
  }
  return std::nullopt;
}

site_keys site_keys::fetched(std::int64_t refresh_ms, std::int64_t now_ms) {
  site_keys k;
  k.fetched_ = true;
  k.refresh_ms_ = refresh_ms;
  k.due_ms_ = now_ms;
  return k;
}

void site_keys::key_missed() {
  if (!fetched_) return;
  missed_ = true;
  if (on_missed_) on_missed_();
}

std::int64_t site_keys::next_fetch_ms() const {
  if (!missed_ || !keys_) return due_ms_;
  // The first early fetch goes at once; later ones keep their gap.
  auto early = last_early_ms_ ? *last_early_ms_ + early_fetch_gap_ms : 0;
  return std::min(due_ms_, early);
}

void site_keys::fetch_started(std::int64_t now_ms) {
  if (now_ms < due_ms_) last_early_ms_ = now_ms;
  missed_ = false;
}

std::optional<std::string> site_keys::answered(std::string_view body, std::string_view cache_control,
                                               std::int64_t now_ms) {
  std::optional<jwk_set> parsed;
  try {
    parsed = jwk_set::parse(body);
  } catch (const std::invalid_argument& e) {
    ++fetches_[static_cast<std::size_t>(fetch_outcome::invalid)];
    retry_later(now_ms);
    return std::string(e.what());
  }
  ++fetches_[static_cast<std::size_t>(fetch_outcome::ok)];
  failures_ = 0;
  changed_ = !keys_ || body != text_;
  keys_ = std::move(parsed);
  text_ = body;
  auto wait = refresh_ms_;
  if (auto max_age = max_age_seconds(cache_control)) {
    wait = std::clamp(*max_age * 1000, std::min(min_max_age_ms, refresh_ms_), refresh_ms_);
  }
  due_ms_ = now_ms + wait;
  return std::nullopt;
}

void site_keys::failed(std::int64_t now_ms) {
  ++fetches_[static_cast<std::size_t>(fetch_outcome::failed)];
  retry_later(now_ms);
}

void site_keys::retry_later(std::int64_t now_ms) {
  // 1 s, 2 s, 4 s... up to the refresh interval; the shift stops before it could overflow.
  auto wait = failures_ >= 30 ? refresh_ms_ : std::min(refresh_ms_, first_retry_ms << failures_);
  ++failures_;
  due_ms_ = now_ms + wait;
}

}  // namespace foyer::invite
