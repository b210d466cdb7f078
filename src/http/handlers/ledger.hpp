#pragma once
// The public record of the draws (docs/fairness.md, "The public record of every draw"):
//   GET /api/v1/ledger                          origin, key, witnesses, quorum, beacon
//   GET /ledger/checkpoint                      the ledger's newest checkpoint, cosigned
//   GET /ledger/tile/...                        its tiles and entry bundles (tlog-tiles)
//   GET /ledger/lobbies/{room}/checkpoint       a closed lobby's checkpoint
//   GET /ledger/lobbies/{room}/tile/...         its tiles and bundles, read from the lobby tree
//   GET /ledger/lobbies/{room}/proof/{index}    an entrant's inclusion proof (tlog-proof)
//   GET /ledger/lobbies/{room}/lanes/{lane}/... the same for a lane's own lobby
// Every file that can never change is served to be cached forever.

#include <optional>
#include <string_view>
#include <vector>

#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

response ledger_info(const context& ctx, const request& req);
response ledger_checkpoint(const context& ctx, const request& req);
response ledger_file(const context& ctx, const request& req, std::string_view path);
// The lane a lobby request names ("" for the general lane's, the room's own): its index
// if it draws in the room, else nullopt with `answer` set to the refusal.
std::optional<std::uint8_t> drawing_lane(const request& req, const room& r, std::string_view lane, response& answer);

response lobby_checkpoint(const context& ctx, const request& req, const room& r, std::uint8_t lane);
task<response> lobby_file(context& ctx, const request& req, const room& r, std::uint8_t lane, std::string_view path);
task<response> lobby_proof(context& ctx, const request& req, const room& r, std::uint8_t lane, std::string_view index);

// Entrant `index`'s id and audit path in the closed lobby of `r`'s `lane`, read from the
// stored lobby tree; nullopt with `answer` set to the refusal (not written yet, store down).
struct lobby_path {
  std::string entrant_id;
  std::vector<digest> path;
};
task<std::optional<lobby_path>> read_lobby_path(context& ctx, const request& req, const room& r, std::uint8_t lane,
                                                std::uint64_t index, response& answer);

}  // namespace foyer::http::handlers
