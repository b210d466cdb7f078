#include "core/lanes/access_codes.hpp"

#include <algorithm>
#include <cstring>

#include "core/base/crypto.hpp"

namespace foyer {
namespace {

constexpr std::string_view crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// Each typed character's value in the alphabet, -1 if it has none; the read-aloud
// variants (lower case, O, I, L) included.
constexpr std::array<std::int8_t, 256> code_table = [] {
  std::array<std::int8_t, 256> t{};
  t.fill(-1);
  for (std::size_t i = 0; i < crockford.size(); ++i) {
    auto c = static_cast<unsigned char>(crockford[i]);
    t[c] = static_cast<std::int8_t>(i);
    if (c >= 'A') t[c - 'A' + 'a'] = static_cast<std::int8_t>(i);
  }
  for (char c : {'O', 'o'}) t[static_cast<unsigned char>(c)] = 0;
  for (char c : {'I', 'i', 'L', 'l'}) t[static_cast<unsigned char>(c)] = 1;
  return t;
}();

bool valid_id(std::string_view id) {
  return !id.empty() && id.size() <= code_book::max_id && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

constexpr std::string_view id_rule = "1 to 64 characters of a-z, 0-9, '_' and '-'";

// 1: the batches in order, each with its codes, their revocations and redemptions.
constexpr std::uint8_t book_format = 1;

void write_revoked(writer& w, const std::optional<std::int64_t>& at) {
  w.u8(at.has_value());
  w.i64(at.value_or(0));
}

std::optional<std::int64_t> read_revoked(reader& r) {
  bool revoked = r.u8() != 0;
  auto at = r.i64();
  if (!revoked) return std::nullopt;
  return at;
}

}  // namespace

std::string generate_code(std::span<const std::uint8_t, 10> random) {
  std::string out;
  out.reserve(19);
  std::uint32_t bits = 0;  // only the low `pending` bits are still to be written
  int pending = 0;
  for (auto byte : random) {
    bits = bits << 8 | byte;
    pending += 8;
    while (pending >= 5) {
      pending -= 5;
      if (out.size() % 5 == 4) out.push_back('-');
      out.push_back(crockford[bits >> pending & 31]);
    }
  }
  return out;
}

std::optional<normalized_code> normalize_code(std::string_view typed) {
  if (typed.size() > max_code_input) return std::nullopt;
  normalized_code out;
  std::size_t n = 0;
  for (char c : typed) {
    if (c == '-' || c == ' ') continue;
    auto value = code_table[static_cast<unsigned char>(c)];
    if (value < 0 || n == out.size()) return std::nullopt;
    out[n++] = crockford[static_cast<std::size_t>(value)];
  }
  if (n != out.size()) return std::nullopt;
  return out;
}

digest code_digest(const normalized_code& code) { return sha256(as_bytes({code.data(), code.size()})); }

std::string derived_code(const digest& key, std::string_view room, std::string_view batch, std::uint32_t index) {
  const std::uint8_t zero = 0;
  const std::array<std::uint8_t, 4> at{static_cast<std::uint8_t>(index >> 24), static_cast<std::uint8_t>(index >> 16),
                                       static_cast<std::uint8_t>(index >> 8), static_cast<std::uint8_t>(index)};
  auto mac = hmac_sha256(key, {as_bytes(room), byte_view(&zero, 1), as_bytes(batch), byte_view(&zero, 1), at});
  return generate_code(std::span<const std::uint8_t, 10>(mac.data(), 10));
}

std::optional<digest> parse_code_digest(std::string_view hex) { return from_hex_fixed<32>(hex); }

std::string_view to_string(code_verdict verdict) {
  switch (verdict) {
    case code_verdict::refused: return "refused";
    case code_verdict::already_redeemed: return "already_redeemed";
    case code_verdict::ok: return "ok";
  }
  return "unknown";
}

std::size_t code_book::digest_hash::operator()(const digest& d) const noexcept {
  // Digests are uniform: any eight of their bytes are a hash.
  std::size_t h;
  std::memcpy(&h, d.data(), sizeof h);
  return h;
}

std::size_t code_book::redeemer_hash::operator()(const redeemer& r) const noexcept {
  return digest_hash{}(r.code) ^ id16_hash{}(r.account);
}

code_decision code_book::check(const digest& code, const id16& account) const {
  auto it = codes_.find(code);
  if (it == codes_.end()) return {};
  const auto& c = it->second;
  const auto& b = batches_[c.batch];
  if (redeemed_.contains({code, account})) return {code_verdict::already_redeemed, b.lane, b.id};
  if (c.revoked_at_ms || b.revoked_at_ms || c.uses() >= b.uses_per_code) return {};
  return {code_verdict::ok, b.lane, b.id};
}

std::optional<field_problem> code_book::refuses(const codes_added& e) const {
  if (!valid_id(e.batch)) return field_problem{"batch", std::string(id_rule)};
  if (!valid_id(e.lane)) return field_problem{"lane", std::string(id_rule)};
  if (e.uses_per_code < 1 || e.uses_per_code > max_uses_per_code) {
    return field_problem{"uses_per_code", "from 1 to " + std::to_string(max_uses_per_code)};
  }
  if (batches_.size() >= max_batches) {
    return field_problem{"batch", "a room has at most " + std::to_string(max_batches) + " batches"};
  }
  if (batch(e.batch)) return field_problem{"batch", "a batch with this id exists"};
  if (e.codes.empty()) return field_problem{"codes", "at least one code"};
  if (e.codes.size() > max_codes_per_batch) {
    return field_problem{"codes", "a batch has at most " + std::to_string(max_codes_per_batch) + " codes"};
  }
  if (codes_.size() + e.codes.size() > max_codes) {
    return field_problem{"codes", "a room has at most " + std::to_string(max_codes) + " codes, " +
                                      std::to_string(codes_.size()) + " are in use"};
  }
  std::unordered_set<digest, digest_hash> seen;
  seen.reserve(e.codes.size());
  for (std::size_t i = 0; i < e.codes.size(); ++i) {
    if (!seen.insert(e.codes[i]).second) {
      return field_problem{"codes", "code " + std::to_string(i + 1) + " appears twice"};
    }
    if (codes_.contains(e.codes[i])) {
      return field_problem{"codes", "code " + std::to_string(i + 1) + " is in another batch"};
    }
  }
  return std::nullopt;
}

std::optional<field_problem> code_book::refuses(const codes_revoked& e) const {
  auto index = index_of(e.batch);
  if (index == batches_.size()) return field_problem{"batch", "no batch has this id"};
  if (e.code) {
    auto it = codes_.find(*e.code);
    if (it == codes_.end() || it->second.batch != index) {
      return field_problem{"code", "the batch has no such code"};
    }
  }
  return std::nullopt;
}

bool code_book::apply(const codes_added& e) {
  if (refuses(e)) return false;
  auto index = static_cast<std::uint32_t>(batches_.size());
  code_batch b;
  b.id = e.batch;
  b.lane = e.lane;
  b.uses_per_code = e.uses_per_code;
  b.created_at_ms = e.at_ms;
  b.codes = e.codes;
  batches_.push_back(std::move(b));
  codes_.reserve(codes_.size() + e.codes.size());
  access_code fresh;
  fresh.batch = index;
  for (const auto& code : e.codes) codes_.emplace(code, fresh);
  return true;
}

bool code_book::apply(const code_redeemed& e) {
  if (check(e.code, e.account).verdict != code_verdict::ok) return false;
  auto& c = codes_.at(e.code);
  auto& b = batches_[c.batch];
  if (c.redemptions.empty()) ++b.codes_redeemed;
  ++b.redemptions;
  c.redemptions.push_back({e.account, e.at_ms});
  redeemed_.insert({e.code, e.account});
  return true;
}

bool code_book::apply(const codes_revoked& e) {
  if (refuses(e)) return false;
  if (!e.code) {
    auto& b = batches_[index_of(e.batch)];
    if (b.revoked_at_ms) return false;
    b.revoked_at_ms = e.at_ms;
    return true;
  }
  auto& c = codes_.at(*e.code);
  if (c.revoked_at_ms) return false;
  c.revoked_at_ms = e.at_ms;
  ++batches_[c.batch].codes_revoked;
  return true;
}

const code_batch* code_book::batch(std::string_view id) const {
  auto index = index_of(id);
  return index == batches_.size() ? nullptr : &batches_[index];
}

std::size_t code_book::index_of(std::string_view id) const {
  // Few batches, looked up by the operator's calls only: a scan.
  auto it = std::find_if(batches_.begin(), batches_.end(), [&](const auto& b) { return b.id == id; });
  return static_cast<std::size_t>(it - batches_.begin());
}

const access_code* code_book::find(const digest& code) const {
  auto it = codes_.find(code);
  return it == codes_.end() ? nullptr : &it->second;
}

void code_book::encode(writer& w) const {
  w.u8(book_format);
  w.u32(static_cast<std::uint32_t>(batches_.size()));
  for (const auto& b : batches_) {
    w.str(b.id);
    w.str(b.lane);
    w.u32(b.uses_per_code);
    w.i64(b.created_at_ms);
    write_revoked(w, b.revoked_at_ms);
    w.u32(static_cast<std::uint32_t>(b.codes.size()));
    for (const auto& code : b.codes) {
      const auto& c = codes_.at(code);
      w.raw(code);
      write_revoked(w, c.revoked_at_ms);
      w.u32(static_cast<std::uint32_t>(c.redemptions.size()));
      for (const auto& redemption : c.redemptions) {
        w.raw(redemption.account);
        w.i64(redemption.at_ms);
      }
    }
  }
}

bool code_book::decode(reader& r) {
  if (r.u8() != book_format) return false;
  // Rebuilt through apply, so that the bytes obey the rules the events do: the bounds, no
  // code twice, each account once and no more than uses_per_code on a code.
  code_book book;
  auto batches = r.u32();
  for (std::uint32_t i = 0; i < batches && !r.failed(); ++i) {
    codes_added added;
    added.batch = r.str();
    added.lane = r.str();
    added.uses_per_code = r.u32();
    added.at_ms = r.i64();
    auto batch_revoked = read_revoked(r);
    auto count = r.u32();
    std::vector<std::optional<std::int64_t>> code_revoked;
    std::vector<code_redeemed> redemptions;
    for (std::uint32_t j = 0; j < count && !r.failed(); ++j) {
      auto code = r.raw<32>();
      added.codes.push_back(code);
      code_revoked.push_back(read_revoked(r));
      auto uses = r.u32();
      for (std::uint32_t k = 0; k < uses && !r.failed(); ++k) {
        auto who = r.raw<16>();
        redemptions.push_back({"", code, who, r.i64()});
      }
    }
    if (r.failed() || !book.apply(added)) return false;
    for (const auto& redeemed : redemptions) {
      if (!book.apply(redeemed)) return false;
    }
    for (std::size_t j = 0; j < added.codes.size(); ++j) {
      if (code_revoked[j]) book.apply(codes_revoked{"", added.batch, added.codes[j], *code_revoked[j]});
    }
    if (batch_revoked) book.apply(codes_revoked{"", added.batch, std::nullopt, *batch_revoked});
  }
  if (r.failed()) return false;
  *this = std::move(book);
  return true;
}

}  // namespace foyer
