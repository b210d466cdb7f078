#pragma once
// The whole-draw audit (docs/fairness.md, "Auditing a whole draw") in C++, for `foyer
// audit`: the same checks, in the same order and with the same names, as
// web/js/audit/audit.js, made with the server's own code (signed notes, cosignatures,
// tlog-tiles, the lottery), on the files a Foyer server publishes. Pure: the caller reads
// the files.
//
// Each check ends in one of three states: pass (checked and right); fail (checked and
// wrong, or not run because a check it needs failed); absent (the guarantee is not there to
// check: no beacon, no witnesses, a key taken from the audited server itself, a drand
// round's BLS signature, which this code cannot check), with what that absence allows.

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foyer::audit {

enum class state { pass, fail, absent };
std::string_view to_string(state s);

struct check {
  std::string name;
  std::string lane;  // a lane's own check in a room with lanes; "" for the room's or the general lane's
  state status = state::fail;
  std::string detail;
};

// The checks in the order they run and are reported.
inline constexpr std::array<std::string_view, 16> check_names = {
    "ledger key",       "witness keys",    "ledger checkpoint", "ledger tiles",      "entries order",
    "witnessed commit", "witnessed close", "commitment",        "lobby checkpoint",  "lobby tiles",
    "distinct entrants", "beacon",         "close before beacon", "key",             "places",
    "reveal after quorum"};

// Keys from a source the auditor trusts, instead of those the server publishes.
struct pins {
  std::optional<std::string> vkey;     // the ledger's note vkey
  std::vector<std::string> witnesses;  // the witnesses' cosignature vkeys
  std::optional<std::size_t> quorum;   // of the pinned witnesses; default: all of them
};

// Reads a file the server publishes, by its path below the server's base URL
// ("api/v1/ledger", "ledger/checkpoint", "ledger/tile/0/000.p/3", ...): its body, or
// nullopt when the server has no such file (404). Throws std::runtime_error naming the URL
// and the cause on anything else.
using reader = std::function<std::optional<std::string>(const std::string& path)>;

struct report {
  std::vector<check> checks;
  std::size_t count(state s) const;
  // Every check passed.
  bool passed() const { return count(state::pass) == checks.size(); }
};

report audit_draw(const std::string& room, const pins& pinned, const reader& read);

}  // namespace foyer::audit
