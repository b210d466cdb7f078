#include "core/fairness/drand.hpp"

#include <simdjson.h>

#include "core/base/crypto.hpp"

namespace foyer::drand {
namespace {

constexpr std::int64_t genesis_ms = genesis_s * 1000;
constexpr std::int64_t period_ms = period_s * 1000;

}  // namespace

std::int64_t time_of_round_ms(std::uint64_t round) {
  return genesis_ms + static_cast<std::int64_t>(round - 1) * period_ms;
}

std::uint64_t round_at(std::int64_t unix_ms) {
  if (unix_ms < genesis_ms) return 0;
  return static_cast<std::uint64_t>((unix_ms - genesis_ms) / period_ms) + 1;
}

std::uint64_t first_round_at_or_after(std::int64_t unix_ms) {
  if (unix_ms <= genesis_ms) return 1;
  return static_cast<std::uint64_t>((unix_ms - genesis_ms + period_ms - 1) / period_ms) + 1;
}

digest randomness(const signature& sig) { return sha256(sig); }

std::string relay_path(std::uint64_t round) {
  return "/" + std::string(chain_hash) + "/public/" + std::to_string(round);
}

std::string_view to_string(answer_error error) {
  switch (error) {
    case answer_error::malformed: return "not a drand round";
    case answer_error::wrong_round: return "another round than the one asked for";
    case answer_error::signature_size: return "a signature that is not 48 bytes";
    case answer_error::wrong_randomness: return "randomness that is not SHA-256(signature)";
  }
  return "unknown";
}

std::variant<round_value, answer_error> parse_answer(std::string_view json, std::uint64_t round) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::object object;
  std::uint64_t answered = 0;
  std::string_view sig_hex;
  std::string_view randomness_hex;
  if (parser.parse(padded).get_object().get(object) || object["round"].get_uint64().get(answered) ||
      object["signature"].get_string().get(sig_hex) || object["randomness"].get_string().get(randomness_hex)) {
    return answer_error::malformed;
  }
  if (answered != round) return answer_error::wrong_round;
  round_value value;
  value.round = round;
  if (!from_hex_into(sig_hex, value.sig)) {
    return from_hex(sig_hex) ? answer_error::signature_size : answer_error::malformed;
  }
  value.randomness = randomness(value.sig);
  if (randomness_hex != to_hex(value.randomness)) return answer_error::wrong_randomness;
  return value;
}

std::string_view to_string(beacon_check check) {
  return check == beacon_check::two_relays ? "two_relays" : "none";
}

beacon_decision decide_beacon(const std::vector<std::optional<round_value>>& answers) {
  beacon_decision decision;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!answers[i]) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (!answers[j]) continue;
      if (*answers[j] != *answers[i]) {
        decision.contradicted = true;
        continue;
      }
      decision.value = answers[i];
      decision.check = beacon_check::two_relays;
      decision.agreed = {j, i};
      return decision;
    }
  }
  if (answers.size() == 1) decision.value = answers.front();
  return decision;
}

}  // namespace foyer::drand
