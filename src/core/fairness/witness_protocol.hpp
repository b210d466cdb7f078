#pragma once
// C2SP tlog-witness (c2sp.org/tlog-witness) from the log's side: the add-checkpoint request
// body, the witness's answer, and witness_book, the per-witness state of a log that has its
// checkpoints cosigned. Pure: the caller makes the HTTP calls (delivery/witness_client).
//
//   POST <prefix>/add-checkpoint
//   body   = "old " ‖ decimal size ‖ "\n" ‖ (base64(proof hash) ‖ "\n")* ‖ "\n" ‖ checkpoint note
//   200    → cosignature lines of the witness's key(s)
//   409    → Content-Type text/x.tlog.size, body = decimal size the witness last cosigned ‖ "\n"
//   400, 403 (signature not trusted), 404 (unknown origin), 422 (inconsistent) → refused

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/fairness/checkpoint.hpp"
#include "core/fairness/merkle.hpp"
#include "core/fairness/signed_note.hpp"

namespace foyer::witness {

// The spec's bound on proof lines (a proof in a tree below 2^63 has at most 63 hashes).
inline constexpr std::size_t max_proof_lines = 63;
// Answers to one checkpoint's submission that a 409 may lead to, per witness, before the
// book gives up on it for that checkpoint (a witness racing another submitter, or lying).
inline constexpr unsigned max_resyncs = 2;

// The add-checkpoint body. Throws std::invalid_argument if the proof has more than
// max_proof_lines hashes.
std::string add_checkpoint_body(std::uint64_t old_size, std::span<const digest> proof, std::string_view checkpoint_note);

// The consistency proof from old_size to new_size (RFC 9162 §2.1.4), empty if old_size is 0.
using proof_provider = std::function<std::vector<digest>(std::uint64_t old_size, std::uint64_t new_size)>;
// Reads stored perfect subtrees' hashes, in the order asked (a ledger's stored nodes).
using node_reader = std::function<std::vector<digest>(const std::vector<merkle::node_id>& nodes)>;
// A proof_provider over stored nodes: merkle::consistency_proof_nodes, then consistency_proof.
proof_provider proofs_from(node_reader read);

struct cosigned {
  std::string line;  // the witness's cosignature line, with its newline
  std::uint64_t timestamp = 0;
};
struct conflict {
  std::uint64_t size = 0;  // the size the witness last cosigned
};
enum class refusal {
  bad_request,    // 400
  forbidden,      // 403: the witness does not trust the log's signature
  unknown_log,    // 404: the witness does not know the origin
  inconsistent,   // 422: the proof does not verify, or same size, other root
  bad_answer,     // another status, or a 200 or 409 whose body is not as specified
  unreachable,    // no whole answer (the client's verdict: connection, timeout, TLS), or
                  // no request could be made (the proof provider failed)
};
struct failure {
  refusal why;
  std::string detail;
};
using answer = std::variant<cosigned, conflict, failure>;

// Reads a witness's answer to the submission of the checkpoint whose note text is
// `checkpoint_text`: a 200 must hold a valid cosignature by `witness` (lines by other keys
// are ignored; an invalid line by `witness` is a bad answer).
answer read_answer(unsigned status, std::string_view content_type, std::string_view body,
                   std::string_view checkpoint_text, const note::verifier& witness);

// What to send one witness: the current checkpoint, from the size it last cosigned.
struct submission {
  std::size_t witness = 0;  // index in the book's list
  std::uint64_t old_size = 0;
  std::uint64_t new_size = 0;
  unsigned resyncs = 0;  // 409s that led to this submission
  friend bool operator==(const submission&, const submission&) = default;
};

// Per witness, the size it last cosigned and its cosignature of the newest checkpoint; which
// submissions a new checkpoint needs; and whether a quorum cosigned. A witness's size starts
// at 0 (the spec's way to learn it: the first answer is a 409 if it knows more).
//
// The caller keeps at most one submission per witness in flight and hands every answer back
// to record(); nothing here waits or retries on its own.
class witness_book {
 public:
  // Throws std::invalid_argument if quorum > witnesses.size().
  witness_book(std::vector<note::verifier> witnesses, std::size_t quorum);

  // Makes `checkpoint_note` (signed by the log) the one to have cosigned. False, and nothing
  // changes, if it is not a checkpoint, is smaller than the current one, or is as large with
  // another text (a fork). The log's signature is the caller's: the book checks none.
  bool set_checkpoint(std::string checkpoint_note);
  // A submission for each witness, in the list's order, that has not cosigned the current
  // checkpoint; empty before set_checkpoint().
  std::vector<submission> submissions() const;
  // Records the answer to `s`; returns the follow-up for that witness, if any: after a 409
  // (at most max_resyncs times for one checkpoint, and never when the witness reports a
  // size above the checkpoint's), or when the checkpoint moved on while `s` was in flight.
  std::optional<submission> record(const submission& s, const answer& a);

  const std::vector<note::verifier>& witnesses() const { return witnesses_; }
  std::size_t quorum() const { return quorum_; }
  const std::string& checkpoint_note() const { return note_; }
  const std::string& checkpoint_text() const { return text_; }
  std::uint64_t checkpoint_size() const { return head_.size; }
  // What witness i last said it cosigned (by a 200 or a 409).
  std::uint64_t witness_size(std::size_t i) const { return state_[i].size; }
  // The current checkpoint with the cosignature lines of the witnesses that cosigned it
  // (exactly this note), in the order of the list.
  std::string cosigned_note() const;
  std::size_t cosigned_count() const;
  // True if at least `quorum` witnesses gave a cosignature (that this book holds or held) of
  // a checkpoint of size >= `size`.
  bool quorum_at_least(std::uint64_t size) const;

 private:
  struct witness_state {
    std::uint64_t size = 0;           // what it last said it cosigned
    std::uint64_t cosigned_size = 0;  // the largest size whose cosignature we verified
    bool has_cosigned = false;
    std::string line;                 // its line for the current checkpoint, if any
  };

  std::vector<note::verifier> witnesses_;
  std::size_t quorum_;
  std::string note_;
  std::string text_;  // note_'s text: what the cosignatures sign
  checkpoint::tree_head head_;
  std::vector<witness_state> state_;
};

}  // namespace foyer::witness
