#pragma once
// Fetches a drand quicknet round from every relay the operator lists, in their order, and
// hands back each one's answer that passes core/fairness/drand.hpp's checks (round,
// 48-byte signature, randomness = SHA-256(signature)), for drand::decide_beacon to see
// whether two agree. The BLS signature itself is checked by the audit (web/js/drand.js),
// not here: see drand.hpp.
//
// Each relay is asked `GET <relay URL>/<chain hash>/public/<round>` once, with a deadline,
// a body of at most 8 KiB and no redirect followed (delivery/http_get.hpp). A relay that
// fails, or answers something that does not pass, is noted. Once two relays gave the same
// round the rest are not asked.
//
// Single-threaded: call on the event loop; `done` runs there.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "core/base/url.hpp"
#include "core/fairness/drand.hpp"

namespace foyer::delivery {

// A round's answer from a relay is about 250 bytes.
inline constexpr std::size_t drand_answer_limit = 8 * 1024;

struct drand_fetch {
  // One per relay asked, in order: its round if it passes, none if it failed.
  std::vector<std::optional<drand::round_value>> answers;
  std::vector<std::string> problems;  // "<URL>: <why>", one per relay that failed, in order
};

// Asks `relays` in turn for `round`, each within `timeout`, until two gave the same round;
// `done` gets the answers and the problems.
void fetch_drand_round(boost::asio::io_context& ioc, std::vector<http_url> relays, std::uint64_t round,
                       std::chrono::milliseconds timeout, std::function<void(drand_fetch)> done);

}  // namespace foyer::delivery
