#include "app/lottery_cli.hpp"

#include <fmt/core.h>
#include <simdjson.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/fairness/lottery.hpp"
#include "core/fairness/merkle.hpp"
#include "core/fairness/receipt.hpp"

namespace foyer::app {
namespace {

struct place_options {
  std::string key;
  std::uint64_t n = 0;
  std::uint64_t index = 0;
};

struct verify_options {
  std::string lottery_file;
  std::string receipt_file;
  std::string proof_file;
  std::string public_key;
};

// Input errors: the message is printed as is, and the command exits with 1.
struct bad_input : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <std::size_t N>
std::array<std::uint8_t, N> parse_hex(std::string_view text, std::string_view what) {
  auto bytes = from_hex_fixed<N>(text);
  if (!bytes) throw bad_input(fmt::format("{} must be {} lowercase hex digits", what, 2 * N));
  return *bytes;
}

// A JSON field that is a string or null (absent counts as null).
std::optional<std::string_view> nullable_string(simdjson::dom::object object, std::string_view name) {
  simdjson::dom::element value;
  if (object[name].get(value) || value.is_null()) return std::nullopt;
  std::string_view text;
  if (value.get_string().get(text)) throw bad_input(fmt::format("\"{}\" must be a string or null", name));
  return text;
}

std::optional<std::uint64_t> nullable_number(simdjson::dom::object object, std::string_view name) {
  simdjson::dom::element value;
  if (object[name].get(value) || value.is_null()) return std::nullopt;
  std::uint64_t number = 0;
  if (value.get_uint64().get(number)) throw bad_input(fmt::format("\"{}\" must be a number or null", name));
  return number;
}

template <typename T>
T required(std::optional<T> value, std::string_view name) {
  if (!value) throw bad_input(fmt::format("\"{}\" is missing", name));
  return *value;
}

simdjson::dom::object load_object(simdjson::dom::parser& parser, const std::string& file) {
  simdjson::dom::object object;
  if (parser.load(file).get_object().get(object)) {
    throw bad_input(fmt::format("{}: not a JSON object", file));
  }
  return object;
}

// One lane's draw: the room's own (its general lane's) at the top of the lottery JSON,
// every other lane's under "lanes".
struct published_draw {
  digest commitment;
  std::optional<std::uint64_t> lobby_size;
  std::optional<digest> lobby_root;
  std::optional<digest> seed;
};

// GET /api/v1/rooms/{room}/lottery
struct published_lottery {
  published_draw general;
  std::map<std::string, published_draw, std::less<>> lanes;
  byte_vector beacon;  // the room's, for every lane
  // The published receipt keys by kid: receipt_keys (retired keys too) and receipt_key,
  // the one signing now, under receipt_kid.
  std::map<std::string, receipt::public_key, std::less<>> receipt_keys;
  std::string state;
};

published_draw read_draw(simdjson::dom::object object) {
  published_draw out;
  out.commitment = parse_hex<32>(required(nullable_string(object, "commitment"), "commitment"), "commitment");
  out.lobby_size = nullable_number(object, "lobby_size");
  if (auto root = nullable_string(object, "lobby_root")) out.lobby_root = parse_hex<32>(*root, "lobby_root");
  if (auto seed = nullable_string(object, "seed")) out.seed = parse_hex<32>(*seed, "seed");
  return out;
}

published_lottery read_lottery(const std::string& file) {
  simdjson::dom::parser parser;
  auto object = load_object(parser, file);
  published_lottery out;
  out.general = read_draw(object);
  out.state = std::string(nullable_string(object, "state").value_or("unknown"));
  if (auto beacon = nullable_string(object, "beacon")) {
    auto bytes = from_hex(*beacon);
    if (!bytes) throw bad_input("beacon must be lowercase hex");
    out.beacon = std::move(*bytes);
  }
  simdjson::dom::object lanes;
  if (object["lanes"].get_object().get(lanes) == simdjson::SUCCESS) {
    for (auto [lane, value] : lanes) {
      simdjson::dom::object draw;
      if (value.get_object().get(draw)) throw bad_input("\"lanes\" must map lane ids to draws");
      out.lanes.insert_or_assign(std::string(lane), read_draw(draw));
    }
  }
  auto kid = nullable_string(object, "receipt_kid");
  if (auto key = nullable_string(object, "receipt_key"); key && kid) {
    out.receipt_keys.emplace(*kid, parse_hex<32>(*key, "receipt_key"));
  }
  simdjson::dom::object keys;
  if (object["receipt_keys"].get_object().get(keys) == simdjson::SUCCESS) {
    for (auto [name, value] : keys) {
      std::string_view hex;
      if (value.get_string().get(hex)) throw bad_input("\"receipt_keys\" must map kids to hex keys");
      out.receipt_keys.insert_or_assign(std::string(name), parse_hex<32>(hex, "a receipt key"));
    }
  }
  return out;
}

// GET /api/v1/rooms/{room}/lottery/proof?index=I[&lane=L]
struct inclusion_proof {
  std::uint64_t index;
  std::array<std::uint8_t, receipt::entrant_id_size> entrant_id;
  std::uint64_t lobby_size;
  digest lobby_root;
  std::vector<digest> path;
};

inclusion_proof read_proof(const std::string& file) {
  simdjson::dom::parser parser;
  auto object = load_object(parser, file);
  inclusion_proof out;
  out.index = required(nullable_number(object, "index"), "index");
  out.entrant_id = parse_hex<receipt::entrant_id_size>(required(nullable_string(object, "entrant_id"), "entrant_id"),
                                                      "entrant_id");
  out.lobby_size = required(nullable_number(object, "lobby_size"), "lobby_size");
  out.lobby_root = parse_hex<32>(required(nullable_string(object, "lobby_root"), "lobby_root"), "lobby_root");
  simdjson::dom::array path;
  if (object["path"].get_array().get(path) || path.size() > merkle::max_path_length) {
    throw bad_input("\"path\" must be an array of at most 64 hashes");
  }
  for (auto item : path) {
    std::string_view text;
    if (item.get_string().get(text)) throw bad_input("\"path\" must hold hex strings");
    out.path.push_back(parse_hex<32>(text, "a path hash"));
  }
  return out;
}

receipt::receipt read_receipt(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw bad_input(fmt::format("{}: cannot read", file));
  std::ostringstream text;
  text << in.rdbuf();
  auto parsed = receipt::from_json(text.str());
  if (!parsed) throw bad_input(fmt::format("{}: not a v1 receipt", file));
  return *parsed;
}

enum class outcome { pass, fail, skipped };

struct report {
  bool failed = false;
  void check(std::string_view name, outcome result, std::string_view detail) {
    static constexpr std::string_view labels[] = {"pass", "FAIL", "skipped"};
    fmt::print("{:<19} {:<8} {}\n", name, labels[static_cast<int>(result)], detail);
    failed = failed || result == outcome::fail;
  }
};

void verify(const verify_options& options) {
  auto lottery = read_lottery(options.lottery_file);
  auto receipt = read_receipt(options.receipt_file);
  std::optional<inclusion_proof> proof;
  if (!options.proof_file.empty()) proof = read_proof(options.proof_file);
  // The key the receipt's kid names; --public-key overrides it.
  std::optional<receipt::public_key> key;
  if (auto found = lottery.receipt_keys.find(receipt.kid); found != lottery.receipt_keys.end()) key = found->second;
  if (!options.public_key.empty()) key = parse_hex<32>(options.public_key, "--public-key");

  report out;
  fmt::print("{:<19} {}\n", "state", lottery.state);
  // A receipt of a lane's lobby is checked against that lane's own draw.
  const published_draw* draw = &lottery.general;
  if (!receipt.lane.empty()) {
    auto found = lottery.lanes.find(receipt.lane);
    if (found == lottery.lanes.end()) {
      out.check("lane", outcome::fail, fmt::format("the room publishes no draw of lane {}", receipt.lane));
      throw CLI::RuntimeError(1);
    }
    out.check("lane", outcome::pass,
              fmt::format("lane {} draws on its own: its commitment, lobby, seed and places", receipt.lane));
    draw = &found->second;
  }
  if (!draw->seed) {
    out.check("commitment", outcome::fail, "the seed is not revealed yet");
  } else if (lottery::commitment(*draw->seed) == draw->commitment) {
    out.check("commitment", outcome::pass, "SHA-256(seed) equals the published commitment");
  } else {
    out.check("commitment", outcome::fail, "SHA-256(seed) differs from the published commitment");
  }

  if (receipt.commitment == draw->commitment) {
    out.check("receipt commitment", outcome::pass, "the receipt carries the published commitment");
  } else {
    out.check("receipt commitment", outcome::fail, "the receipt carries another commitment");
  }

  if (!key && lottery.receipt_keys.empty()) {
    out.check("receipt signature", outcome::skipped, "no public key given");
  } else if (!key) {
    out.check("receipt signature", outcome::fail,
              fmt::format("the receipt names key {}, which the room does not publish", receipt.kid));
  } else if (receipt::verify(receipt, *key)) {
    out.check("receipt signature", outcome::pass, fmt::format("signed by key {}", receipt.kid));
  } else {
    out.check("receipt signature", outcome::fail, "the receipt does not match its signature");
  }

  if (!proof) {
    out.check("inclusion", outcome::skipped, "no proof given");
  } else if (proof->index != receipt.lobby_index || proof->entrant_id != receipt.entrant_id) {
    out.check("inclusion", outcome::fail, "the proof is for another entrant");
  } else if (proof->lobby_size != draw->lobby_size || proof->lobby_root != draw->lobby_root) {
    out.check("inclusion", outcome::fail, "the proof is for another lobby");
  } else if (merkle::verify_inclusion(merkle::leaf_hash(proof->entrant_id), proof->index, proof->lobby_size,
                                      proof->path, proof->lobby_root)) {
    out.check("inclusion", outcome::pass,
              fmt::format("entrant {} is leaf {} of {}", to_hex(proof->entrant_id), proof->index, proof->lobby_size));
  } else {
    out.check("inclusion", outcome::fail, "the proof does not lead to the lobby root");
  }

  if (!draw->seed || !draw->lobby_root || !draw->lobby_size) {
    out.check("key derivation", outcome::fail, "the lobby is not closed or the seed not revealed");
  } else if (*draw->lobby_size < lottery::min_lobby_size || *draw->lobby_size >= lottery::lobby_size_limit) {
    out.check("key derivation", outcome::fail, "the lobby size is outside [1, 2^48)");
  } else if (receipt.lobby_index >= *draw->lobby_size) {
    out.check("key derivation", outcome::fail, "the lobby index is outside the lobby");
  } else {
    auto lottery_key = lottery::derive_key(*draw->seed, *draw->lobby_root, lottery.beacon);
    out.check("key derivation", outcome::pass, fmt::format("key {}", to_hex(lottery_key)));
    auto place = lottery::permutation(lottery_key, *draw->lobby_size).place(receipt.lobby_index);
    fmt::print("{:<19} {} (lobby index {} of {})\n", "place", place, receipt.lobby_index, *draw->lobby_size);
  }
  if (out.failed) throw CLI::RuntimeError(1);
}

void check_lobby(std::uint64_t n, std::uint64_t index) {
  if (n < lottery::min_lobby_size || n >= lottery::lobby_size_limit) {
    throw bad_input("n must lie in [1, 2^48)");
  }
  if (index >= n) throw bad_input("index must be below n");
}

void place(const place_options& options) {
  check_lobby(options.n, options.index);
  lottery::permutation p(parse_hex<32>(options.key, "--key"), options.n);
  fmt::print("{}\n", p.place(options.index));
}

// One line per input line, for cross-checks against other implementations.
void batch() {
  std::string line;
  std::string out;
  for (std::uint64_t number = 1; std::getline(std::cin, line); ++number) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t n = 0;
    std::uint64_t index = 0;
    std::string rest;
    if (!(fields >> key >> n >> index) || fields >> rest) {
      throw bad_input(fmt::format("line {}: expected \"KEYHEX N INDEX\"", number));
    }
    check_lobby(n, index);
    lottery::permutation p(parse_hex<32>(key, "the key"), n);
    out += fmt::format("{} {}\n", p.place(index), p.holder(index));
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

// Input errors are printed here; CLI11_PARSE only sees the exit code.
template <typename Action>
std::function<void()> guarded(Action action) {
  return [action] {
    try {
      action();
    } catch (const bad_input& e) {
      fmt::print(stderr, "foyer lottery: {}\n", e.what());
      throw CLI::RuntimeError(1);
    } catch (const simdjson::simdjson_error& e) {
      fmt::print(stderr, "foyer lottery: {}\n", e.what());
      throw CLI::RuntimeError(1);
    }
  };
}

}  // namespace

void add_lottery_commands(CLI::App& app) {
  auto* lottery = app.add_subcommand("lottery", "Recompute places and check the opening lottery.");
  lottery->require_subcommand(1);

  auto place_opts = std::make_shared<place_options>();
  auto* place_cmd = lottery->add_subcommand("place", "Print the place π(index) of a lobby index.");
  place_cmd->add_option("--key", place_opts->key, "Lottery key (64 hex digits)")->required();
  place_cmd->add_option("--n", place_opts->n, "Lobby size")->required();
  place_cmd->add_option("--index", place_opts->index, "Lobby index (0-based)")->required();
  place_cmd->callback(guarded([place_opts] { place(*place_opts); }));

  lottery->add_subcommand("batch", "Read \"KEYHEX N I\" lines on stdin; print \"π(I) π⁻¹(I)\" per line.")
      ->callback(guarded(batch));

  auto verify_opts = std::make_shared<verify_options>();
  auto* verify_cmd = lottery->add_subcommand("verify", "Check a draw from the published values and a receipt.");
  verify_cmd->add_option("--lottery", verify_opts->lottery_file, "JSON of GET /api/v1/rooms/{room}/lottery")
      ->required()
      ->check(CLI::ExistingFile);
  verify_cmd->add_option("--receipt", verify_opts->receipt_file, "The join's receipt JSON")
      ->required()
      ->check(CLI::ExistingFile);
  verify_cmd->add_option("--proof", verify_opts->proof_file, "JSON of GET .../lottery/proof?index=I (&lane=L for a lane's receipt)")
      ->check(CLI::ExistingFile);
  verify_cmd->add_option("--public-key", verify_opts->public_key,
                         "The room's receipt key (64 hex digits); default: the key of the receipt's kid in "
                         "the lottery JSON's receipt_keys");
  verify_cmd->callback(guarded([verify_opts] { verify(*verify_opts); }));
}

}  // namespace foyer::app
