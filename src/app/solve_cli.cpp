#include "app/solve_cli.hpp"

#include <fmt/core.h>

#include <memory>
#include <string>

#include "core/base/json.hpp"
#include "core/gate/pow.hpp"

namespace foyer::app {

void add_solve_command(CLI::App& app) {
  auto challenge = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("solve", "Do a join challenge's proof of work; print the join's JSON body.");
  cmd->add_option("challenge", *challenge, "The challenge, as POST /api/v1/rooms/{room}/challenge answers it")->required();
  cmd->callback([challenge] {
    auto fields = pow::decode(*challenge);
    if (!fields) {
      fmt::print(stderr, "foyer solve: not a join challenge (the base64url of a {}-byte token)\n", pow::token_size);
      throw CLI::RuntimeError(1);
    }
    // A made-up threshold could ask for years of work: no server asks for more than this.
    if (fields->threshold < (std::uint64_t{1} << (64 - pow::max_difficulty_bits))) {
      fmt::print(stderr, "foyer solve: the challenge asks for more than 2^{} hashes a puzzle\n", pow::max_difficulty_bits);
      throw CLI::RuntimeError(1);
    }
    fmt::print("{}\n", json_object().str("challenge", *challenge).str("nonce", pow::solve(*challenge)).done());
  });
}

}  // namespace foyer::app
