#include "core/cluster/log_claim.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/base/crypto.hpp"

namespace foyer::cluster {
namespace {

constexpr std::string_view mark_label = "foyer/log-incarnation/v1";
constexpr std::size_t mark_bytes = 16;

}  // namespace

std::string incarnation_key(std::string_view prefix) { return std::string(prefix) + "/incarnation"; }

std::string incarnation_mark(byte_view secret, std::string_view incarnation) {
  std::string label(mark_label);
  if (!incarnation.empty()) label.append("/").append(incarnation);
  const auto mac = hmac_sha256(secret, {as_bytes(label)});
  return to_hex(byte_view(mac).first(mark_bytes));
}

log_claim judge_log(const std::optional<std::string>& mark, bool empty, const log_identity& self) {
  if (mark) {
    if (*mark == self.mark) return log_claim::lead;
    const bool restored = std::find(self.earlier.begin(), self.earlier.end(), *mark) != self.earlier.end();
    return restored ? log_claim::adopt : log_claim::foreign;
  }
  return !empty || self.secret_new ? log_claim::adopt : log_claim::unknown;
}

bool may_follow(const std::optional<std::string>& local, std::uint64_t entries, std::string_view mark) {
  return entries == 0 || local == mark;
}

std::string log_refusal(log_claim claim, std::string_view where, std::string_view repair) {
  if (claim == log_claim::foreign) {
    return fmt::format("{} belongs to another secret or incarnation than this node's: its tickets are not this "
                       "node's to honour. Give this node the secrets of the nodes that wrote it (copy their "
                       "secrets_dir), or point it at its own log. Refusing to lead",
                       where);
  }
  return fmt::format("{} is empty, and this node's secret was not made for it: tickets issued under this secret "
                     "name places that log never gave, and would be honoured beside new joiners given the same "
                     "places. If the log was lost (etcd wiped, a new prefix, a deleted log), start a new "
                     "incarnation: `{}` (every earlier ticket then gets ticket_lost_in_restore); if the wrong log "
                     "is named, fix the configuration. Refusing to lead",
                     where, repair);
}

}  // namespace foyer::cluster
