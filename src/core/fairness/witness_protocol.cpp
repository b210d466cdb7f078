#include "core/fairness/witness_protocol.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "core/fairness/cosignature.hpp"

namespace foyer::witness {
namespace {

// "<decimal>\n", no leading zeros, as a text/x.tlog.size body.
std::optional<std::uint64_t> parse_size_body(std::string_view body) {
  if (!body.ends_with('\n')) return std::nullopt;
  body.remove_suffix(1);
  if (body.empty() || (body.size() > 1 && body.front() == '0')) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (error != std::errc{} || end != body.data() + body.size() || value >= checkpoint::max_tree_size) {
    return std::nullopt;
  }
  return value;
}

// The media type without parameters or case.
bool is_size_type(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  while (content_type.ends_with(' ')) content_type.remove_suffix(1);
  constexpr std::string_view wanted = "text/x.tlog.size";
  return std::equal(content_type.begin(), content_type.end(), wanted.begin(), wanted.end(),
                    [](char a, char b) { return (a >= 'A' && a <= 'Z' ? a - 'A' + 'a' : a) == b; });
}

answer read_cosignature(std::string_view body, std::string_view text, const note::verifier& witness) {
  // The spec's way: the lines read as the signatures of the checkpoint's text.
  auto parts = note::split(std::string(text) + "\n" + std::string(body));
  if (!parts || parts->text != text) return failure{refusal::bad_answer, "200 without signature lines"};
  for (const auto& sig : parts->lines) {
    auto checked = cosignature::verify_signature(sig, text, witness);
    if (auto* timestamp = std::get_if<std::uint64_t>(&checked)) {
      return cosigned{note::signature_line(sig.name, *base64_decode(sig.base64)), *timestamp};
    }
    if (std::get<cosignature::error>(checked) != cosignature::error::other_key) {
      return failure{refusal::bad_answer, "200 with an invalid cosignature"};
    }
  }
  return failure{refusal::bad_answer, "200 without a cosignature by the witness's key"};
}

}  // namespace

std::string add_checkpoint_body(std::uint64_t old_size, std::span<const digest> proof, std::string_view checkpoint_note) {
  if (proof.size() > max_proof_lines) throw std::invalid_argument("witness: proof longer than 63 hashes");
  std::string body = "old " + std::to_string(old_size) + "\n";
  for (const auto& hash : proof) body += base64_encode(hash) + "\n";
  body += "\n";
  body += checkpoint_note;
  return body;
}

proof_provider proofs_from(node_reader read) {
  return [read = std::move(read)](std::uint64_t old_size, std::uint64_t new_size) {
    return merkle::consistency_proof(old_size, new_size, read(merkle::consistency_proof_nodes(old_size, new_size)));
  };
}

answer read_answer(unsigned status, std::string_view content_type, std::string_view body,
                   std::string_view checkpoint_text, const note::verifier& witness) {
  switch (status) {
    case 200:
      return read_cosignature(body, checkpoint_text, witness);
    case 409: {
      auto size = parse_size_body(body);
      if (!is_size_type(content_type) || !size) return failure{refusal::bad_answer, "409 without a text/x.tlog.size"};
      return conflict{*size};
    }
    case 400:
      return failure{refusal::bad_request, "400: the witness refused the request"};
    case 403:
      return failure{refusal::forbidden, "403: the witness does not trust the log's signature"};
    case 404:
      return failure{refusal::unknown_log, "404: the witness does not know the log"};
    case 422:
      return failure{refusal::inconsistent, "422: the witness found the checkpoint inconsistent"};
    default:
      return failure{refusal::bad_answer, "answered " + std::to_string(status)};
  }
}

witness_book::witness_book(std::vector<note::verifier> witnesses, std::size_t quorum)
    : witnesses_(std::move(witnesses)), quorum_(quorum), state_(witnesses_.size()) {
  if (quorum_ > witnesses_.size()) throw std::invalid_argument("witness: quorum above the number of witnesses");
}

bool witness_book::set_checkpoint(std::string checkpoint_note) {
  auto parts = note::split(checkpoint_note);
  if (!parts) return false;
  auto head = checkpoint::parse(parts->text);
  if (!head || (!note_.empty() && (head->size < head_.size || (head->size == head_.size && parts->text != text_)))) {
    return false;
  }
  if (parts->text != text_) {
    for (auto& w : state_) w.line.clear();
  }
  note_ = std::move(checkpoint_note);
  text_ = std::move(parts->text);
  head_ = std::move(*head);
  return true;
}

std::vector<submission> witness_book::submissions() const {
  std::vector<submission> out;
  if (note_.empty()) return out;
  for (std::size_t i = 0; i < state_.size(); ++i) {
    if (state_[i].line.empty()) out.push_back({i, state_[i].size, head_.size, 0});
  }
  return out;
}

std::optional<submission> witness_book::record(const submission& s, const answer& a) {
  auto& w = state_.at(s.witness);
  bool current = s.new_size == head_.size;
  if (const auto* c = std::get_if<cosigned>(&a)) {
    w.size = s.new_size;
    w.cosigned_size = std::max(w.cosigned_size, s.new_size);
    w.has_cosigned = true;
    if (current) w.line = c->line;
  } else if (const auto* c = std::get_if<conflict>(&a)) {
    // A witness ahead of the checkpoint cannot be given a proof: it saw another log, or a
    // future this one forgot.
    if (c->size > s.new_size) return std::nullopt;
    w.size = c->size;
    if (current && s.resyncs >= max_resyncs) return std::nullopt;
    return submission{s.witness, w.size, head_.size, current ? s.resyncs + 1 : 0};
  } else {
    return std::nullopt;
  }
  if (current) return std::nullopt;
  return submission{s.witness, w.size, head_.size, 0};
}

std::string witness_book::cosigned_note() const {
  std::string out = note_;
  for (const auto& w : state_) out += w.line;
  return out;
}

std::size_t witness_book::cosigned_count() const {
  return std::count_if(state_.begin(), state_.end(), [](const witness_state& w) { return !w.line.empty(); });
}

bool witness_book::quorum_at_least(std::uint64_t size) const {
  auto count = std::count_if(state_.begin(), state_.end(),
                             [&](const witness_state& w) { return w.has_cosigned && w.cosigned_size >= size; });
  return static_cast<std::size_t>(count) >= quorum_;
}

}  // namespace foyer::witness
