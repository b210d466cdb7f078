#pragma once
// Access codes: a visitor enters a room's lane (a presale or quota lane) with a code.
//
// A code is 80 random bits written as 16 Crockford base32 characters in four groups,
// "7KQ2-M9XD-04HT-ZZ3B": digits and upper-case letters without I, L, O and U, so it
// reads aloud without ambiguity. Typed back, case, '-' and spaces do not matter, O is
// read as 0 and I and L as 1.
//
// The server keeps only each code's digest:
//
//   code_digest = SHA-256(the 16 normalized characters as ASCII)
//
// normalized: upper case, without '-' or spaces. Operators who generate their own codes
// upload these digests as 64 hex digits; for the code 7KQ2-M9XD-04HT-ZZ3B:
//
//   printf %s 7KQ2M9XD04HTZZ3B | sha256sum
//
// The book of a room's codes, in batches, is rebuilt from the log alone: each event is
// applied in log order and replay yields the same book. Single-threaded: owned by its
// room, on the event loop.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/base/codec.hpp"
#include "core/base/field_problem.hpp"
#include "core/base/ids.hpp"

namespace foyer {

// The 16 characters of a code as the digest takes them.
using normalized_code = std::array<char, 16>;

// "XXXX-XXXX-XXXX-XXXX" from 80 random bits, the first character from the first byte's
// top five bits.
std::string generate_code(std::span<const std::uint8_t, 10> random);
// The code as typed, or nullopt: a character outside the alphabet (after the mapping
// above), other than 16 characters, or more than max_code_input characters in all.
std::optional<normalized_code> normalize_code(std::string_view typed);
// Longer input is refused unread: 16 characters, 3 dashes and room for stray spaces.
inline constexpr std::size_t max_code_input = 64;
digest code_digest(const normalized_code& code);
// A digest an operator uploads: exactly 64 hex digits, either case.
std::optional<digest> parse_code_digest(std::string_view hex);
// Code `index` of a batch Foyer generates: from HMAC-SHA256(key, room ‖ 0 ‖ batch ‖ 0 ‖
// u32be index), so that the operator can export a batch's codes again at any time and a
// retried request gives the same codes.
std::string derived_code(const digest& key, std::string_view room, std::string_view batch, std::uint32_t index);

// The events of the book; the room's log carries them. `room` routes an event to its
// room's book: the book does not read it.

// A batch of codes for a lane. Validated by code_book::refuses before it is written; one
// that fails at apply (e.g. two batches validated before either applied) adds nothing.
struct codes_added {
  std::string room;
  std::string batch;
  std::string lane;  // the room checks that the lane exists: the book does not know lanes
  std::uint32_t uses_per_code = 1;
  std::vector<digest> codes;
  std::int64_t at_ms = 0;
  bool operator==(const codes_added&) const = default;
};

// A visitor's account redeemed a code, as check() said ok when the request was decided.
struct code_redeemed {
  std::string room;
  digest code{};
  id16 account{};
  std::int64_t at_ms = 0;
  bool operator==(const code_redeemed&) const = default;
};

// The operator revoked one code of a batch, or the whole batch (code: none).
struct codes_revoked {
  std::string room;
  std::string batch;
  std::optional<digest> code;
  std::int64_t at_ms = 0;
  bool operator==(const codes_revoked&) const = default;
};

struct code_redemption {
  id16 account{};
  std::int64_t at_ms = 0;
  bool operator==(const code_redemption&) const = default;
};

struct code_batch {
  std::string id;
  std::string lane;
  std::uint32_t uses_per_code = 1;  // 1: single use; N: up to N accounts, each once
  std::int64_t created_at_ms = 0;
  std::optional<std::int64_t> revoked_at_ms;
  std::vector<digest> codes;  // in the order they were added
  // Counted as the codes change (and recounted on decode).
  std::uint64_t codes_redeemed = 0;  // codes redeemed at least once
  std::uint64_t redemptions = 0;     // by all accounts, on all its codes
  std::uint64_t codes_revoked = 0;   // revoked one by one
};

struct access_code {
  std::uint32_t batch = 0;  // index in code_book::batches()
  std::optional<std::int64_t> revoked_at_ms;
  // In order, one per account: the first is the account the code is bound to, and
  // their number is the code's uses so far.
  std::vector<code_redemption> redemptions;

  std::size_t uses() const { return redemptions.size(); }
  std::optional<id16> bound_to() const {
    if (redemptions.empty()) return std::nullopt;
    return redemptions.front().account;
  }
};

// `refused` is one answer for an unknown code, a revoked code or batch, a code used up
// and a single-use code bound to another account, so that a caller cannot learn whether
// a code exists: problem code "invalid_code".
enum class code_verdict : std::uint8_t { refused, already_redeemed, ok };
std::string_view to_string(code_verdict verdict);

// lane and batch are empty when refused.
struct code_decision {
  code_verdict verdict = code_verdict::refused;
  std::string lane;
  std::string batch;
  bool operator==(const code_decision&) const = default;
};

// A code is bound to the first account that redeems it. A single-use code then belongs
// to that account alone. A multi-use code takes up to uses_per_code distinct accounts,
// each once; the first of them is its bound account. An account that redeemed a code
// gets already_redeemed from it from then on, even after a revocation: revoking stops
// new redemptions and leaves those made (and the entries they gave) in place.
class code_book {
 public:
  static constexpr std::size_t max_batches = 1'000;
  static constexpr std::size_t max_codes_per_batch = 100'000;
  // About 140 bytes each in memory and 45 in the snapshot, redemptions aside.
  static constexpr std::size_t max_codes = 1'000'000;
  static constexpr std::uint32_t max_uses_per_code = 100'000;
  static constexpr std::size_t max_id = 64;  // batch and lane ids: [a-z0-9_-], 1 to 64

  // Decides, changing nothing, what a redemption of `code` by `account` would do.
  code_decision check(const digest& code, const id16& account) const;

  // Why the event must not be written, naming the field at fault, or nullopt.
  // An added batch: ids, uses_per_code in [1, max_uses_per_code], at least one code and
  // the bounds, a batch id not used before, no code twice or already in the book.
  std::optional<field_problem> refuses(const codes_added& e) const;
  // A revocation: the batch exists and holds the code, if one is named.
  std::optional<field_problem> refuses(const codes_revoked& e) const;

  // Each returns whether the book changed. A batch refuses() adds nothing, a redemption
  // whose check() is not ok records nothing (the second of two identical ones), a
  // revocation of what is revoked already or does not exist changes nothing.
  bool apply(const codes_added& e);
  bool apply(const code_redeemed& e);
  bool apply(const codes_revoked& e);

  // In the order they were added.
  const std::vector<code_batch>& batches() const { return batches_; }
  const code_batch* batch(std::string_view id) const;
  const access_code* find(const digest& code) const;
  std::size_t code_count() const { return codes_.size(); }

  // The book's own format byte first, so that it changes without the room's. Equal
  // books encode to equal bytes.
  void encode(writer& w) const;
  // Restores what encode wrote; false, leaving the book as it was, on bytes that break
  // the bounds or the book's rules.
  bool decode(reader& r);

 private:
  struct digest_hash {
    std::size_t operator()(const digest& d) const noexcept;
  };
  struct redeemer {
    digest code{};
    id16 account{};
    bool operator==(const redeemer&) const = default;
  };
  struct redeemer_hash {
    std::size_t operator()(const redeemer& r) const noexcept;
  };

  // The batch's index in batches_, batches_.size() if none has this id.
  std::size_t index_of(std::string_view id) const;

  std::vector<code_batch> batches_;
  std::unordered_map<digest, access_code, digest_hash> codes_;
  // Every (code, account) redemption: an account's second try is found without a scan of
  // a multi-use code's accounts.
  std::unordered_set<redeemer, redeemer_hash> redeemed_;
};

}  // namespace foyer
