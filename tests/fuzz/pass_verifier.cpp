// The pass verifier (include/foyer/pass_verifier.hpp). The first byte picks what the rest is:
// even, a pass, checked by the header-only verifier and by the guard's gate (the core
// verifier, with its cache), which must agree; odd, a JWKS, which loads or is refused with
// jwks_error, and which then checks a genuine pass without crashing.
#include <cstdlib>
#include <memory>

#include "core/passes/pass_gate.hpp"
#include "fixtures.hpp"

using namespace foyer;

namespace {

pass_expectations expectations() { return {std::string(fuzz::issuer), std::string(fuzz::room_id), /*leeway_seconds=*/5}; }

void check_pass(std::string_view token) {
  static const auto verifier = std::make_shared<const pass_verifier>(
      pass::keyring(fuzz::pass_key()).jwks_json(), expectations(), std::vector{pass::es256_key_kind()});
  static pass::gate gate(verifier, {});
  const std::int64_t now = fuzz::t0_ms / 1000 + 10;
  auto direct = verifier->verify(token, now);
  auto gated = gate.check(token, now, /*spend=*/false);
  if (direct.ok != gated.ok || direct.error_code != gated.error_code) std::abort();
  if (direct.ok && (direct.subject != gated.subject || direct.exp != gated.exp)) std::abort();
}

void load_jwks(std::string_view jwks) {
  static const std::string genuine = pass::sign_pass(fuzz::pass_key(), fuzz::pass_claims("v1"));
  try {
    pass_verifier verifier(jwks, expectations(), {pass::es256_key_kind()});
    (void)verifier.verify(genuine, fuzz::t0_ms / 1000 + 10);
  } catch (const jwks_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  auto rest = fuzz::text_of(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    check_pass(rest);
  } else {
    load_jwks(rest);
  }
  return 0;
}
