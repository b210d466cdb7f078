// Proof-of-work costs on this machine: server verify per join (accepted and
// refused), spent-set and join-pressure bookkeeping, and the native solver's
// hash rate and time to solve the default challenge.
//
// Times are CPU time of this process, so a busy machine slows the figures less
// than wall time would; compare runs on the same machine only.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <vector>

#include "core/gate/join_pressure.hpp"
#include "core/gate/pow.hpp"

using namespace foyer;

namespace {

constexpr std::uint64_t start_ms = 1'700'000'000'000;
constexpr std::size_t pool_size = 1'000;
constexpr int verify_rounds = 200;
constexpr int solves = 24;

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <typename F>
double ns_per_call(std::size_t calls, F&& f) {
  double t0 = cpu_seconds();
  for (std::size_t i = 0; i < calls; ++i) f(i);
  return (cpu_seconds() - t0) * 1e9 / static_cast<double>(calls);
}

std::uint64_t tries_in(std::string_view proof) {
  std::uint64_t tries = 0;
  for (std::size_t i = 0; i < proof.size(); i += pow::nonce_hex_digits) {
    auto bytes = from_hex(proof.substr(i, pow::nonce_hex_digits));
    tries += get_be64(bytes->data()) + 1;
  }
  return tries;
}

}  // namespace

int main() {
  byte_vector secret(32, 0x5a);
  auto home = network_of(*parse_ip("203.0.113.7"));
  std::uint64_t now = start_ms + 1'000;

  // Verify cost does not depend on the difficulty (always one HMAC and k puzzle
  // hashes), so cheap challenges with the default puzzle count stand in for real ones.
  pow::config cheap;
  cheap.base_bits = 4;
  pow::authority auth(secret, cheap, start_ms);
  std::vector<std::pair<std::string, std::string>> pool;
  for (std::size_t i = 0; i < pool_size; ++i) {
    auto c = auth.mint("sale", home, now, 0);
    pool.emplace_back(c.token, pow::solve(c.token));
  }
  std::size_t accepted = 0;
  double verify_ok = ns_per_call(pool_size * verify_rounds, [&](std::size_t i) {
    auto& [token, proof] = pool[i % pool_size];
    accepted += auth.verify(token, proof, "sale", home, now).ok();
  });
  std::string forged = pool[0].first;
  forged[10] = forged[10] == 'A' ? 'B' : 'A';
  std::size_t refused = 0;
  double verify_bad_mac = ns_per_call(pool_size * verify_rounds, [&](std::size_t) {
    refused += auth.verify(forged, pool[0].second, "sale", home, now).outcome == pow::verdict::bad_mac;
  });
  double mint = ns_per_call(pool_size * 20, [&](std::size_t) { auth.mint("sale", home, now, 0); });

  pow::spent_set spent(std::size_t{1} << 20);
  double spend = ns_per_call(std::size_t{1} << 20, [&](std::size_t i) {
    spent.try_spend(i * 0x9e3779b97f4a7c15ull, now + 120'000, now);
  });

  pow::config defaults;
  pow::join_pressure pressure(defaults);
  double record = ns_per_call(std::size_t{1} << 20, [&](std::size_t i) {
    ip_address a;
    a.family = ip_family::v4;
    a.bytes[0] = static_cast<std::uint8_t>(i >> 16);
    a.bytes[1] = static_cast<std::uint8_t>(i >> 8);
    a.bytes[2] = static_cast<std::uint8_t>(i);
    auto key = network_of(a);
    pressure.record(key, now + i);
    pressure.extra_bits(key, now + i);
  });

  pow::authority real(secret, defaults, start_ms);
  std::vector<double> solve_ms;
  std::uint64_t tries = 0;
  double solving = 0;
  for (int i = 0; i < solves; ++i) {
    auto c = real.mint("sale", home, now, 0);
    double t0 = cpu_seconds();
    auto proof = pow::solve(c.token);
    double dt = cpu_seconds() - t0;
    solving += dt;
    solve_ms.push_back(dt * 1e3);
    tries += tries_in(proof);
  }
  std::sort(solve_ms.begin(), solve_ms.end());

  fmt::print("verify, accepted (HMAC + room hash + {} puzzle hashes): {:.0f} ns/join\n", cheap.puzzles, verify_ok);
  fmt::print("verify, refused by the MAC:                          {:.0f} ns\n", verify_bad_mac);
  fmt::print("mint:                                                {:.0f} ns\n", mint);
  fmt::print("spent_set try_spend (1M live ids):                   {:.0f} ns\n", spend);
  fmt::print("join_pressure record + extra_bits (65,536 tracked): {:.0f} ns\n", record);
  fmt::print("native solver: {:.2f} M hashes/s; {} bits in {} puzzles: median {:.1f} ms, max {:.1f} ms "
             "over {} solves\n",
             static_cast<double>(tries) / solving / 1e6, defaults.base_bits, defaults.puzzles,
             solve_ms[solve_ms.size() / 2], solve_ms.back(), solves);
  bool sane = accepted == pool_size * verify_rounds && refused == pool_size * verify_rounds;
  if (!sane) fmt::print("verify answered wrongly: {} accepted, {} refused\n", accepted, refused);
  return sane ? 0 : 1;
}
