#pragma once
// Fetches a drand quicknet round from the relays the operator lists, in their order, and
// hands back the first answer that passes core/fairness/drand.hpp's checks (round,
// 48-byte signature, randomness = SHA-256(signature)). The BLS signature itself is
// checked by the audit (web/js/drand.js), not here: see drand.hpp.
//
// Each relay is asked `GET <relay URL>/<chain hash>/public/<round>` once, with a deadline,
// a body of at most 8 KiB and no redirect followed (delivery/http_get.hpp). A relay that
// fails, or answers something that does not pass, is noted and the next one asked.
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
  std::optional<drand::round_value> value;  // none if no relay gave a round that passes
  std::vector<std::string> problems;        // "<URL>: <why>", one per relay that failed, in order
};

// Asks `relays` in turn for `round`, each within `timeout`; `done` gets the first round
// that passes and the problems of the relays asked before it.
void fetch_drand_round(boost::asio::io_context& ioc, std::vector<http_url> relays, std::uint64_t round,
                       std::chrono::milliseconds timeout, std::function<void(drand_fetch)> done);

}  // namespace foyer::delivery
