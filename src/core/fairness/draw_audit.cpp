#include "core/fairness/draw_audit.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "core/base/time_text.hpp"
#include "core/fairness/checkpoint.hpp"
#include "core/fairness/cosignature.hpp"
#include "core/fairness/drand.hpp"
#include "core/fairness/ledger.hpp"
#include "core/fairness/lottery.hpp"
#include "core/fairness/merkle.hpp"
#include "core/fairness/signed_note.hpp"
#include "core/fairness/tlog_tiles.hpp"

namespace foyer::audit {
namespace {

// A check that found the draw wrong.
struct failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& why) { throw failure(why); }

struct outcome {
  state status;
  std::string detail;
};
outcome pass(std::string detail) { return {state::pass, std::move(detail)}; }
outcome absent(std::string detail) { return {state::absent, std::move(detail)}; }

constexpr std::size_t entrant_id_size = 16;
const std::set<std::string_view> lane_checks = {"commitment", "lobby checkpoint", "lobby tiles", "distinct entrants",
                                                "key",        "places"};

// Ledger entries (docs/fairness.md, "Ledger entries"), parsed as strictly as
// web/js/audit/entries.js: the header, then exactly the named lines of the kind, in order.
const std::map<std::string_view, std::vector<std::string_view>> fields_of = {
    {"commit", {"commitment", "beacon", "closes_at", "at"}},
    {"close", {"size", "root", "at"}},
    {"witnessed", {"stage"}},
    {"reveal", {"seed", "beacon", "key", "places", "at"}},
};

bool hex64(std::string_view t) {
  auto digit = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  return t.size() == 64 && std::all_of(t.begin(), t.end(), digit);
}

std::uint64_t decimal(std::string_view t) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || (t.size() > 1 && t[0] == '0') || ec != std::errc{} || end != t.data() + t.size()) {
    fail(fmt::format("not a decimal: {}", t));
  }
  return v;
}

digest hex_digest(std::string_view t) {
  auto d = from_hex_fixed<32>(t);
  if (!d || !hex64(t)) fail(fmt::format("not 64 lowercase hex digits: {}", t));
  return *d;
}

struct entry {
  std::uint64_t index = 0;
  std::string kind, room, lane;
  std::vector<std::pair<std::string, std::string>> fields;
  std::string checkpoint;  // a witnessed entry's cosigned note

  const std::string& field(std::string_view name) const {
    for (const auto& [k, v] : fields) {
      if (k == name) return v;
    }
    fail(fmt::format("a {} entry has no {}", kind, name));
  }
  std::int64_t at() const { return static_cast<std::int64_t>(decimal(field("at"))); }
};

std::vector<std::string_view> lines_of(std::string_view body) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < body.size();) {
    auto end = body.find('\n', at);
    lines.push_back(body.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// "<name> <value>" -> value, if the line is that.
std::optional<std::string_view> value_of(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || !line.starts_with(name) || line[name.size()] != ' ') return std::nullopt;
  return line.substr(name.size() + 1);
}

entry parse_entry(std::uint64_t index, std::string_view text) {
  entry e;
  e.index = index;
  auto blank = text.find("\n\n");
  std::string_view body = text;
  if (blank != std::string_view::npos) {
    body = text.substr(0, blank + 1);
    e.checkpoint = std::string(text.substr(blank + 2));
  }
  if (body.empty() || body.back() != '\n') fail("an entry ends with a newline");
  auto lines = lines_of(body);
  if (lines[0] != ledger::header) fail(fmt::format("the first line is not {}", ledger::header));
  auto kind = lines.size() > 1 ? value_of(lines[1], "kind") : std::nullopt;
  if (!kind || !fields_of.contains(*kind)) fail(fmt::format("unknown kind line: {}", lines.size() > 1 ? lines[1] : ""));
  e.kind = std::string(*kind);
  auto room = lines.size() > 2 ? value_of(lines[2], "room") : std::nullopt;
  if (!room || room->find(' ') != std::string_view::npos) fail("malformed room line");
  e.room = std::string(*room);
  auto lane = lines.size() > 3 ? value_of(lines[3], "lane") : std::nullopt;
  if (lane && e.kind == "witnessed") fail("a witnessed entry names no lane");
  if (lane) e.lane = std::string(*lane);
  std::size_t first = lane ? 4 : 3;
  const auto& names = fields_of.at(e.kind);
  if (lines.size() != first + names.size()) fail(fmt::format("a {} entry has {} lines", e.kind, first + names.size()));
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto value = value_of(lines[first + i], names[i]);
    if (!value) fail(fmt::format("line {} of a {} entry is not {}", first + 1 + i, e.kind, names[i]));
    auto name = names[i];
    bool digest_field = name == "commitment" || name == "root" || name == "seed" || name == "key" || name == "places";
    if (digest_field) hex_digest(*value);
    if (name == "closes_at" || name == "at" || name == "size") decimal(*value);
    if (name == "stage" && *value != "commit" && *value != "close") fail(fmt::format("unknown stage: {}", *value));
    e.fields.emplace_back(std::string(name), std::string(*value));
  }
  if ((e.kind == "witnessed") != (blank != std::string_view::npos)) {
    fail(e.kind == "witnessed" ? "a witnessed entry carries its checkpoint"
                               : fmt::format("a {} entry has a blank line", e.kind));
  }
  return e;
}

char token(std::string_view kind) {
  return kind == "commit" ? 'C' : kind == "close" ? 'X' : kind == "reveal" ? 'R' : 'W';
}

std::string kinds(const std::vector<const entry*>& list) {
  std::vector<std::string> out;
  for (const auto* e : list) out.push_back(e->kind == "witnessed" ? "witnessed " + e->field("stage") : e->kind);
  return out.empty() ? "none" : fmt::format("{}", fmt::join(out, ", "));
}

std::string describe(const cosignature::quorum_problem& p) {
  switch (p.kind) {
    case cosignature::quorum_error::malformed: return "not a signed checkpoint";
    case cosignature::quorum_error::log_unverified: return "the ledger key's signature is missing or does not verify";
    case cosignature::quorum_error::invalid_cosignature:
      return fmt::format("witness {}'s cosignature does not verify", p.witness);
    case cosignature::quorum_error::below_quorum:
      return fmt::format("{} of the witnesses cosigned, below the quorum", p.cosigned);
  }
  return "unknown";
}

// The beacon of a commit ("none", "operator", "drand-quicknet <round>") or a reveal (the
// same, with the drand signature or the operator's value after it).
struct beacon_text {
  std::string kind;
  std::uint64_t round = 0;
  std::string value;  // hex
};

beacon_text parse_beacon(const std::string& text, bool with_value) {
  beacon_text b;
  auto space = text.find(' ');
  b.kind = text.substr(0, space);
  std::string_view rest = space == std::string::npos ? std::string_view{} : std::string_view(text).substr(space + 1);
  if (b.kind == "none" && rest.empty()) return b;
  if (b.kind == "operator" && (with_value ? !rest.empty() && from_hex(rest) : rest.empty())) {
    b.value = std::string(rest);
    return b;
  }
  if (b.kind == "drand-quicknet") {
    auto sig = rest.find(' ');
    b.round = decimal(rest.substr(0, sig));
    if (!with_value && sig == std::string_view::npos) return b;
    if (with_value && sig != std::string_view::npos && rest.size() - sig - 1 == 2 * drand::signature_size &&
        from_hex(rest.substr(sig + 1))) {
      b.value = std::string(rest.substr(sig + 1));
      return b;
    }
  }
  fail(fmt::format("unknown beacon {}: {}", with_value ? "value" : "rule", text));
}

std::string iso(std::int64_t ms) { return format_rfc3339_ms(ms); }

struct draw {
  std::string lane;
  const entry* commit = nullptr;
  const entry* close = nullptr;
  const entry* reveal = nullptr;
  checkpoint::tree_head lobby;
  std::uint64_t distinct = 0;
  std::optional<std::uint64_t> duplicate;
};

}  // namespace

std::string_view to_string(state s) {
  switch (s) {
    case state::pass: return "pass";
    case state::fail: return "fail";
    case state::absent: return "absent";
  }
  return "unknown";
}

std::size_t report::count(state s) const {
  auto in_state = [s](const check& c) { return c.status == s; };
  return static_cast<std::size_t>(std::count_if(checks.begin(), checks.end(), in_state));
}

report audit_draw(const std::string& room, const pins& pinned, const reader& read) {
  std::map<std::string, check> results;
  auto key_of = [](std::string_view name, const std::string& lane) {
    return lane.empty() || !lane_checks.contains(name) ? std::string(name) : fmt::format("{}\n{}", name, lane);
  };
  // A check runs unless a check it needs failed; an absent one does not stop it.
  auto run = [&](std::string_view name, std::initializer_list<std::string_view> needs,
                 const std::function<outcome()>& body, const std::string& lane = "") {
    check c{std::string(name), lane_checks.contains(name) ? lane : "", state::fail, ""};
    for (auto need : needs) {
      auto it = results.find(key_of(need, lane));
      if (it == results.end() || it->second.status == state::fail) {
        c.detail = fmt::format("not run: \"{}\" did not pass", need);
        results[key_of(name, lane)] = std::move(c);
        return;
      }
    }
    try {
      auto o = body();
      c.status = o.status;
      c.detail = std::move(o.detail);
    } catch (const std::exception& e) {
      c.detail = e.what();
    }
    results[key_of(name, lane)] = std::move(c);
  };
  auto read_text = [&](const std::string& path) {
    auto body = read(path);
    if (!body) fail(fmt::format("{}: not found", path));
    return std::move(*body);
  };

  // What the checks learn, for the checks after them.
  std::string origin, published_vkey;
  std::vector<std::string> published_witnesses;
  std::size_t published_quorum = 0;
  note::verifier log_key;
  std::vector<note::verifier> witnesses;
  std::size_t quorum = 0;
  checkpoint::tree_head head;
  std::vector<digest> leaves;
  std::vector<entry> entries;
  std::vector<draw> draws{draw{}};
  const entry *last_commit = nullptr, *last_close = nullptr, *first_reveal = nullptr;
  const entry *witnessed_commit = nullptr, *witnessed_close = nullptr;
  std::int64_t commit_quorum_ms = 0, close_quorum_ms = 0;
  byte_vector beacon_bytes;
  std::optional<std::int64_t> beacon_time_ms;
  std::set<std::string> seen;  // every lane's entrant ids

  run("ledger key", {}, [&] {
    auto text = read_text("api/v1/ledger");
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    auto doc = parser.parse(padded).value();
    origin = std::string(doc["origin"].get_string().value());
    published_vkey = std::string(doc["vkey"].get_string().value());
    simdjson::dom::array listed;
    if (doc["witnesses"].get_array().get(listed)) fail("api/v1/ledger: witnesses is not an array");
    for (auto w : listed) published_witnesses.emplace_back(w["vkey"].get_string().value());
    published_quorum = doc["quorum"].get_uint64().value();
    if (pinned.vkey && *pinned.vkey != published_vkey) {
      fail(fmt::format("the published key {} is not the pinned {}", published_vkey, *pinned.vkey));
    }
    auto key = note::parse_vkey(pinned.vkey.value_or(published_vkey));
    if (!key || key->name != origin) fail("the ledger key is not an Ed25519 key named by the origin");
    log_key = *key;
    if (pinned.vkey) return pass(published_vkey + " (pinned)");
    return absent(fmt::format("{}, as the audited server publishes it, not pinned: a server that rewrote its whole "
                              "ledger under another key would pass the checks that follow",
                              published_vkey));
  });

  run("witness keys", {"ledger key"}, [&] {
    bool pin = !pinned.witnesses.empty();
    std::vector<std::string> names;
    for (const auto& vkey : pin ? pinned.witnesses : published_witnesses) {
      auto w = cosignature::parse_vkey(vkey);
      if (!w) fail(fmt::format("{} is not a witness's cosignature key", vkey));
      witnesses.push_back(*w);
      names.push_back(w->name);
    }
    quorum = pin ? pinned.quorum.value_or(witnesses.size()) : published_quorum;
    if (quorum > witnesses.size()) fail(fmt::format("quorum {} of {} witnesses", quorum, witnesses.size()));
    if (pin) {
      return pass(fmt::format("{} pinned witnesses ({}), quorum {}", witnesses.size(), fmt::join(names, ", "), quorum));
    }
    if (quorum == 0) {
      return absent("no witnesses: nothing but the ledger key vouches for when the commit and the close were written");
    }
    return absent(fmt::format("{} witnesses ({}) and quorum {} as the audited server lists them, not pinned: a server "
                              "could list witnesses of its own",
                              witnesses.size(), fmt::join(names, ", "), quorum));
  });

  run("ledger checkpoint", {"witness keys"}, [&] {
    auto opened = cosignature::verify(read_text("ledger/checkpoint"), log_key, witnesses, 0);
    if (const auto* p = std::get_if<cosignature::quorum_problem>(&opened)) fail(describe(*p));
    const auto& cosigned = std::get<cosignature::cosigned_head>(opened);
    head = cosigned.head;
    if (head.origin != log_key.name) fail(fmt::format("the checkpoint's origin {} is not the key's", head.origin));
    return pass(fmt::format("{} entries, signed by {}, {} cosignatures", head.size, log_key.name,
                            cosigned.cosigners.size()));
  });

  run("ledger tiles", {"ledger checkpoint"}, [&] {
    std::optional<std::string> malformed;
    auto problem = tiles::check(
        head.size, head.root, [&](const std::string& p) { return read("ledger/" + p); },
        [&](std::uint64_t index, byte_view bytes) {
          leaves.push_back(merkle::leaf_hash(bytes));
          try {
            entries.push_back(parse_entry(index, as_chars(bytes)));
          } catch (const failure& e) {
            if (!malformed) malformed = fmt::format("entry {}: {}", index, e.what());
          }
        });
    if (problem) fail(fmt::format("ledger/{} {}", problem->path, problem->what));
    if (malformed) fail(*malformed);
    return pass(fmt::format("{} entries rebuild every tile and the checkpoint's root", head.size));
  });

  run("entries order", {"ledger tiles"}, [&] {
    std::vector<const entry*> mine;
    std::string tokens;
    for (const auto& e : entries) {
      if (e.room != room) continue;
      mine.push_back(&e);
      if (e.kind == "witnessed") tokens += 'W';
      tokens += token(e.kind == "witnessed" ? e.field("stage") : e.kind);
    }
    static const std::regex witnessed_order("C+(WCC+)*WCX+WXR+"), plain_order("C+X+R+"), lane_order("C+XR");
    if (!std::regex_match(tokens, quorum > 0 ? witnessed_order : plain_order)) {
      fail(fmt::format("room {}'s entries are {}, not commit → {} → reveal", room, kinds(mine),
                       quorum > 0 ? "witnessed commit → close → witnessed close" : "close"));
    }
    std::vector<std::pair<std::string, std::vector<const entry*>>> lanes;
    for (const auto* e : mine) {
      if (e->kind == "witnessed") continue;
      auto it = std::find_if(lanes.begin(), lanes.end(), [&](const auto& l) { return l.first == e->lane; });
      if (it == lanes.end()) {
        lanes.emplace_back(e->lane, std::vector<const entry*>{});
        it = std::prev(lanes.end());
      }
      it->second.push_back(e);
    }
    std::vector<draw> found;
    for (const auto& [lane, list] : lanes) {
      auto name = lane.empty() ? "room " + room : "lane " + lane;
      std::string lane_tokens;
      for (const auto* e : list) lane_tokens += token(e->kind);
      if (!std::regex_match(lane_tokens, lane_order)) {
        fail(fmt::format("{}'s entries are {}, not commit → close → reveal", name, kinds(list)));
      }
      for (const auto* e : list) {
        if (e->kind == "commit" && e->field("commitment") != list.front()->field("commitment")) {
          fail(fmt::format("{}'s commits carry different commitments", name));
        }
      }
      draw d;
      d.lane = lane;
      d.commit = list[list.size() - 3];
      d.close = list[list.size() - 2];
      d.reveal = list.back();
      found.push_back(d);
    }
    auto general = std::find_if(found.begin(), found.end(), [](const draw& d) { return d.lane.empty(); });
    if (general == found.end()) fail(fmt::format("room {}'s general lane has no entries", room));
    draws = {*general};
    for (const auto& d : found) {
      if (!d.lane.empty()) draws.push_back(d);
    }
    auto last = [&](std::string_view kind, std::string_view stage = "") -> const entry* {
      for (auto it = mine.rbegin(); it != mine.rend(); ++it) {
        if ((*it)->kind == kind && (stage.empty() || (*it)->field("stage") == stage)) return *it;
      }
      return nullptr;
    };
    last_commit = last("commit");
    last_close = last("close");
    witnessed_commit = last("witnessed", "commit");
    witnessed_close = last("witnessed", "close");
    first_reveal = *std::find_if(mine.begin(), mine.end(), [](const entry* e) { return e->kind == "reveal"; });
    std::string at;
    for (const auto& d : draws) {
      at += fmt::format("{}{}commit at {}, close at {}, reveal at {}", at.empty() ? "" : "; ",
                        d.lane.empty() ? "" : "lane " + d.lane + ": ", d.commit->index, d.close->index,
                        d.reveal->index);
    }
    return pass(at);
  });

  // A witnessed entry: its checkpoint is the ledger's, cosigned by a quorum, covers the
  // stage's entry, and is a prefix of the ledger checked above (consistency).
  auto witnessed = [&](bool commit) {
    return [&, commit]() -> outcome {
      if (quorum == 0) return absent("no witnesses: nothing but the ledger key vouches for when it was written");
      const entry* w = commit ? witnessed_commit : witnessed_close;
      const entry* target = commit ? last_commit : last_close;
      auto opened = cosignature::verify(w->checkpoint, log_key, witnesses, quorum);
      if (const auto* p = std::get_if<cosignature::quorum_problem>(&opened)) fail(describe(*p));
      const auto& cp = std::get<cosignature::cosigned_head>(opened);
      if (!(target->index < cp.head.size && cp.head.size <= w->index)) {
        fail(fmt::format("its checkpoint of {} entries does not cover entry {} before entry {}", cp.head.size,
                         target->index, w->index));
      }
      merkle::frontier prefix;
      for (std::uint64_t i = 0; i < cp.head.size; ++i) (void)prefix.append(leaves[i]);
      if (prefix.root() != cp.head.root) {
        fail(fmt::format("its checkpoint is not the root of the ledger's first {} entries", cp.head.size));
      }
      std::vector<std::uint64_t> times;
      std::vector<std::string> names;
      for (const auto& c : cp.cosigners) {
        times.push_back(c.timestamp);
        names.push_back(c.name);
      }
      std::sort(times.begin(), times.end());
      auto quorum_at = static_cast<std::int64_t>(times[quorum - 1]) * 1000;
      (commit ? commit_quorum_ms : close_quorum_ms) = quorum_at;
      return pass(fmt::format("checkpoint of {} entries cosigned by {}; quorum reached at {}", cp.head.size,
                              fmt::join(names, ", "), iso(quorum_at)));
    };
  };

  auto lobby_path = [&](const draw& d) {
    return "ledger/lobbies/" + room + (d.lane.empty() ? "" : "/lanes/" + d.lane);
  };
  auto lane_check = [&](std::string_view name, std::initializer_list<std::string_view> needs,
                        const std::function<outcome(draw&)>& body) {
    for (auto& d : draws) run(name, needs, [&] { return body(d); }, d.lane);
  };

  run("witnessed commit", {"entries order"}, witnessed(true));
  run("witnessed close", {"entries order"}, witnessed(false));

  lane_check("commitment", {"entries order"}, [&](draw& d) {
    auto seed = hex_digest(d.reveal->field("seed"));
    if (to_hex(lottery::commitment(seed)) != d.commit->field("commitment")) fail("SHA-256(seed) is not the commitment");
    return pass(fmt::format("SHA-256({}) = {}", d.reveal->field("seed"), d.commit->field("commitment")));
  });

  lane_check("lobby checkpoint", {"entries order"}, [&](draw& d) {
    auto name = fmt::format("{}/lobby/{}{}", log_key.name, room, d.lane.empty() ? "" : "/" + d.lane);
    note::verifier renamed{name, note::ed25519_key_id(name, log_key.key), log_key.key};
    auto opened = checkpoint::verify(read_text(lobby_path(d) + "/checkpoint"), std::span(&renamed, 1));
    if (std::holds_alternative<note::open_error>(opened)) {
      fail(fmt::format("the lobby checkpoint is not signed by {}", name));
    }
    d.lobby = std::get<checkpoint::tree_head>(opened);
    if (d.lobby.origin != name || d.lobby.size != decimal(d.close->field("size")) ||
        to_hex(d.lobby.root) != d.close->field("root")) {
      fail(fmt::format("the lobby checkpoint ({}, {}) is not the close entry's ({}, {})", d.lobby.size,
                       to_hex(d.lobby.root), d.close->field("size"), d.close->field("root")));
    }
    return pass(fmt::format("{} entrants, root {}", d.lobby.size, d.close->field("root")));
  });

  lane_check("lobby tiles", {"lobby checkpoint"}, [&](draw& d) {
    std::optional<std::uint64_t> wrong_size;
    auto problem = tiles::check(
        d.lobby.size, d.lobby.root, [&](const std::string& p) { return read(lobby_path(d) + "/" + p); },
        [&](std::uint64_t index, byte_view id) {
          if (id.size() != entrant_id_size && !wrong_size) wrong_size = index;
          if (!seen.insert(std::string(as_chars(id))).second) {
            if (!d.duplicate) d.duplicate = index;
          } else {
            ++d.distinct;
          }
        });
    if (problem) fail(fmt::format("lobby {} {}", problem->path, problem->what));
    if (wrong_size) fail(fmt::format("entry {} is not a 16-byte entrant id", *wrong_size));
    return pass(fmt::format("{} entrant ids rebuild every tile and the close's root", d.lobby.size));
  });

  lane_check("distinct entrants", {"lobby tiles"}, [&](draw& d) {
    if (d.duplicate) fail(fmt::format("entrant {} repeats an earlier entrant id", *d.duplicate));
    return pass(fmt::format("{} different entrant ids", d.distinct));
  });

  run("beacon", {"entries order"}, [&] {
    const auto& rule_text = draws[0].commit->field("beacon");
    const auto& value_text = draws[0].reveal->field("beacon");
    // The room has one beacon: every lane's draw names and uses the same.
    for (const auto& d : draws) {
      if (d.commit->field("beacon") != rule_text || d.reveal->field("beacon") != value_text) {
        fail(fmt::format("lane {} names or uses another beacon than the room's", d.lane));
      }
    }
    auto rule = parse_beacon(rule_text, /*with_value=*/false);
    auto value = parse_beacon(value_text, /*with_value=*/true);
    if (rule.kind != value.kind) fail(fmt::format("the commit names {}, the reveal gives {}", rule.kind, value.kind));
    if (rule.kind == "none") {
      return absent("no beacon: the organiser knew the seed before the close and could add entrants to steer the draw");
    }
    if (rule.kind == "operator") {
      beacon_bytes = *from_hex(value.value);
      return absent("a value the operator typed in, not a public beacon: the organiser could still steer the draw");
    }
    if (value.round != rule.round) {
      fail(fmt::format("the reveal uses round {}, the commit named {}", value.round, rule.round));
    }
    auto randomness = sha256(*from_hex(value.value));
    beacon_bytes.assign(randomness.begin(), randomness.end());
    beacon_time_ms = drand::time_of_round_ms(value.round);
    return absent(fmt::format("drand quicknet round {}, whose BLS signature this program cannot check (no vetted "
                              "BLS12-381 library): a made-up round could have steered the draw; "
                              "packaging/foyer-audit.mjs and the verify page check it",
                              value.round));
  });

  run("close before beacon", {"beacon", "witnessed close"}, [&] {
    if (!beacon_time_ms) {
      return absent("no drand round: nothing shows the lobby was closed before the beacon was known");
    }
    auto closed_at = quorum > 0 ? close_quorum_ms : last_close->at();
    if (!(closed_at < *beacon_time_ms)) {
      fail(fmt::format("the close was {} at {}, not before the round", quorum > 0 ? "witnessed" : "written",
                       iso(closed_at)));
    }
    return pass(fmt::format("the close was {} {} s before the round",
                            quorum > 0 ? "witnessed" : "written (no witnesses)",
                            static_cast<double>(*beacon_time_ms - closed_at) / 1000));
  });

  lane_check("key", {"beacon", "lobby checkpoint"}, [&](draw& d) {
    auto key = to_hex(lottery::derive_key(hex_digest(d.reveal->field("seed")), d.lobby.root, beacon_bytes));
    if (key != d.reveal->field("key")) {
      fail(fmt::format("the key is {}, the reveal says {}", key, d.reveal->field("key")));
    }
    return pass(fmt::format("HMAC-SHA256(seed, \"foyer/lottery/v1/key\" ‖ root{}) = {}",
                            beacon_bytes.empty() ? "" : " ‖ beacon", key));
  });

  lane_check("places", {"key"}, [&](draw& d) {
    auto n = d.lobby.size;
    auto hash = n < lottery::min_lobby_size
                    ? sha256(byte_view{})
                    : ledger::places_hash(lottery::permutation(hex_digest(d.reveal->field("key")), n));
    if (to_hex(hash) != d.reveal->field("places")) {
      fail(fmt::format("the {} places hash to {}, the reveal says {}", n, to_hex(hash), d.reveal->field("places")));
    }
    return pass(fmt::format("all {} places recomputed, SHA-256 {}", n, to_hex(hash)));
  });

  run("reveal after quorum", {"entries order", "witnessed commit", "witnessed close"}, [&] {
    if (quorum == 0) {
      return absent("no witnesses: only the ledger's own order says the seed was revealed after the close");
    }
    auto quorum_at = std::max(commit_quorum_ms, close_quorum_ms);
    if (first_reveal->at() < quorum_at) {
      fail(fmt::format("the seed was revealed at {}, before the close's quorum", iso(first_reveal->at())));
    }
    return pass(fmt::format("revealed {} s after the close's quorum",
                            static_cast<double>(first_reveal->at() - quorum_at) / 1000));
  });

  report out;
  for (auto name : check_names) {
    if (!lane_checks.contains(name)) {
      out.checks.push_back(results.at(std::string(name)));
      continue;
    }
    for (const auto& d : draws) out.checks.push_back(results.at(key_of(name, d.lane)));
  }
  return out;
}

}  // namespace foyer::audit
