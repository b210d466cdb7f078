#include "core/notify/notice.hpp"

#include <algorithm>

namespace foyer::notify {

std::string_view to_string(notice_kind k) {
  switch (k) {
    case notice_kind::soon: return "soon";
    case notice_kind::turn: return "turn";
    case notice_kind::confirm: return "confirm";
  }
  return "turn";
}

std::string_view to_string(outcome o) {
  switch (o) {
    case outcome::delivered: return "delivered";
    case outcome::gone: return "gone";
    case outcome::refused: return "refused";
    case outcome::failed: return "failed";
    case outcome::dropped: return "dropped";
    case outcome::stale: return "stale";
  }
  return "failed";
}

std::optional<notice_kind> due_notice(const visitor_status& st, bool soon_sent, bool turn_sent,
                                      std::uint32_t soon_seconds) {
  if (turn_sent) return std::nullopt;
  if (st.state == "admitted") return notice_kind::turn;
  if (!soon_sent && st.state == "waiting" && st.eta_seconds && *st.eta_seconds <= soon_seconds) {
    return notice_kind::soon;
  }
  return std::nullopt;
}

std::uint32_t minutes_of(std::optional<std::uint64_t> eta_seconds) {
  auto s = eta_seconds.value_or(0);
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (s + 59) / 60));
}

}  // namespace foyer::notify
