#include "core/fairness/cosignature.hpp"

#include <algorithm>
#include <stdexcept>

namespace foyer::cosignature {
namespace {

constexpr std::size_t key_id_size = 4;
constexpr std::size_t timestamp_size = 8;
constexpr std::size_t payload_size = key_id_size + timestamp_size + 64;

}  // namespace

std::optional<note::verifier> parse_vkey(std::string_view vkey) { return note::parse_vkey(vkey, ed25519_type); }

std::string encode_vkey(const note::verifier& witness) { return note::encode_vkey(witness, ed25519_type); }

note::signer make_signer(std::string name, const note::seed& seed) {
  return note::signer(std::move(name), seed, ed25519_type);
}

std::string message(std::string_view text, std::uint64_t timestamp) {
  return "cosignature/v1\ntime " + std::to_string(timestamp) + "\n" + std::string(text);
}

std::string sign(const note::signer& witness, std::string_view text, std::uint64_t timestamp) {
  if (!note::valid_text(text) || timestamp > max_timestamp) {
    throw std::invalid_argument("cosignature: text or timestamp not signable");
  }
  byte_vector payload;
  append(payload, note::key_id_bytes(witness.public_part().key_id));
  append_be64(payload, timestamp);
  append(payload, witness.sign_ed25519(message(text, timestamp)));
  return note::signature_line(witness.public_part().name, payload);
}

std::variant<std::uint64_t, error> verify_signature(const note::signature& sig, std::string_view text,
                                                    const note::verifier& witness) {
  if (sig.name != witness.name || sig.key_id != witness.key_id) return error::other_key;
  auto payload = base64_decode(sig.base64);
  if (!payload || payload->size() != payload_size) return error::malformed;
  std::uint64_t timestamp = get_be64(payload->data() + key_id_size);
  if (timestamp > max_timestamp ||
      !note::verify_ed25519(witness, message(text, timestamp), byte_view(*payload).subspan(key_id_size + timestamp_size))) {
    return error::invalid_signature;
  }
  return timestamp;
}

std::variant<std::uint64_t, error> verify_line(std::string_view line, std::string_view text,
                                               const note::verifier& witness) {
  // The line read as the only signature of a note with this text, by note::split's rules.
  std::string as_note = std::string(text) + "\n" + std::string(line);
  if (!line.ends_with('\n')) as_note += '\n';
  auto parts = note::split(as_note);
  if (!parts || parts->text != text || parts->lines.size() != 1) return error::malformed;
  return verify_signature(parts->lines.front(), text, witness);
}

std::variant<cosigned_head, quorum_problem> verify(std::string_view note, const note::verifier& log,
                                                  std::span<const note::verifier> witnesses, std::size_t quorum) {
  auto head = checkpoint::verify(note, std::span(&log, 1));
  if (auto* problem = std::get_if<note::open_error>(&head)) {
    if (*problem == note::open_error::malformed) return quorum_problem{quorum_error::malformed, {}, 0};
    return quorum_problem{quorum_error::log_unverified, {}, 0};
  }
  auto parts = note::split(note);  // checkpoint::verify has parsed it already
  cosigned_head out{std::get<checkpoint::tree_head>(head), {}};
  for (const auto& witness : witnesses) {
    for (const auto& sig : parts->lines) {
      auto checked = verify_signature(sig, parts->text, witness);
      if (std::holds_alternative<std::uint64_t>(checked)) {
        out.cosigners.push_back({witness.name, std::get<std::uint64_t>(checked)});
        break;
      }
      if (std::get<error>(checked) != error::other_key) {
        return quorum_problem{quorum_error::invalid_cosignature, witness.name, 0};
      }
    }
  }
  if (out.cosigners.size() < quorum) return quorum_problem{quorum_error::below_quorum, {}, out.cosigners.size()};
  return out;
}

}  // namespace foyer::cosignature
