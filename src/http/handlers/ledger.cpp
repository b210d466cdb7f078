#include "http/handlers/ledger.hpp"

#include <boost/beast/http/field.hpp>
#include <fmt/core.h>

#include "core/base/json.hpp"
#include "core/fairness/drand.hpp"
#include "core/fairness/merkle.hpp"
#include "core/fairness/tlog_tiles.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

constexpr std::string_view forever = "public, max-age=31536000, immutable";

response file(const request& req, std::string_view content_type, std::string_view cache, std::string body) {
  response res{bhttp::status::ok, req.version()};
  res.set(bhttp::field::content_type, content_type);
  res.set(bhttp::field::cache_control, cache);
  res.set(bhttp::field::access_control_allow_origin, "*");  // auditors may run anywhere
  res.set("X-Content-Type-Options", "nosniff");
  res.body() = std::move(body);
  return res;
}

response no_file(const request& req, std::string_view path) {
  return problem(req, errc::not_found, fmt::format("The log has no file '{}'.", path));
}

response lobby_not_closed(const request& req) {
  return problem(req, errc::lobby_open, "The lobby is published once it has closed.");
}

response not_written(const request& req) {
  return problem(req, errc::proof_unavailable, "The lobby tree is still being written; retry shortly.");
}

std::optional<digest> as_digest(const std::optional<std::string>& v) {
  if (!v || v->size() != 32) return std::nullopt;
  digest d;
  std::copy(v->begin(), v->end(), d.begin());
  return d;
}

}  // namespace

response ledger_info(const context& ctx, const request& req) {
  std::string witnesses = "[";
  for (const auto& w : ctx.ledger.witnesses()) {
    if (witnesses.size() > 1) witnesses += ',';
    witnesses += json_object().str("name", w.name).str("vkey", w.vkey).str("url", w.url).done();
  }
  witnesses += ']';
  const auto& log = ctx.rooms.public_ledger();
  auto body = json_object()
                  .str("origin", ctx.ledger.origin())
                  .str("vkey", ctx.ledger.vkey())
                  .raw("witnesses", witnesses)
                  .num("quorum", ctx.ledger.quorum())
                  .num("size", log.size())
                  // The C2SP tlog-tiles prefix: <tlog>/checkpoint, <tlog>/tile/…
                  .str("tlog", "/ledger")
                  .raw("beacon", json_object()
                                     .str("name", "drand-quicknet")
                                     .str("chain_hash", drand::chain_hash)
                                     .str("public_key", drand::public_key)
                                     .num("genesis", std::int64_t{drand::genesis_s})
                                     .num("period", std::int64_t{drand::period_s})
                                     .str("scheme", drand::scheme)
                                     .done())
                  .done();
  auto res = json_response(req, bhttp::status::ok, std::move(body));
  res.set(bhttp::field::cache_control, "no-cache");
  res.set(bhttp::field::access_control_allow_origin, "*");
  return res;
}

response ledger_checkpoint(const context& ctx, const request& req) {
  const auto& log = ctx.rooms.public_ledger();
  return file(req, "text/plain; charset=utf-8", "no-cache", ctx.ledger.checkpoint(log.size(), log.root()));
}

response ledger_file(const context& ctx, const request& req, std::string_view path) {
  const auto& log = ctx.rooms.public_ledger();
  auto ref = tiles::parse_path(path);
  auto bytes = ref ? log.file(path) : std::nullopt;
  if (!bytes) return no_file(req, path);
  // A full tile never changes; the partial one at the edge grows with the ledger.
  return file(req, "application/octet-stream", ref->width == tiles::tile_width ? forever : "no-cache",
              std::move(*bytes));
}

std::optional<std::uint8_t> drawing_lane(const request& req, const room& r, std::string_view lane, response& answer) {
  if (lane.empty()) return std::uint8_t{0};
  auto index = r.lanes().index_of(lane);
  if (index && *index > 0 && *index < r.draw_lanes()) return index;
  answer = problem(req, errc::unknown_lane, "No lane of that id draws its places in this room.");
  return std::nullopt;
}

response lobby_checkpoint(const context& ctx, const request& req, const room& r, std::uint8_t lane) {
  const auto& root = r.lobby_root(lane);
  if (!root) return lobby_not_closed(req);
  return file(req, "text/plain; charset=utf-8", forever,
              ctx.ledger.lobby_checkpoint(r.config().id, r.ledger_lane(lane), r.lobby_size(lane), *root));
}

task<response> lobby_file(context& ctx, const request& req, const room& r, std::uint8_t lane, std::string_view path) {
  if (!r.lobby_root(lane)) co_return lobby_not_closed(req);
  auto ref = tiles::parse_path(path);
  if (!ref || !tiles::has_file(*ref, r.lobby_size(lane))) co_return no_file(req, path);
  auto first = tiles::first_node(*ref);
  const std::string room_id = r.config().id;
  // Leaves are stored as entrant ids; every level above as its perfect subtrees' hashes,
  // a lane's under its lane's indexes.
  bool leaves = ref->entries || ref->level == 0;
  std::vector<std::string> keys;
  keys.reserve(ref->width);
  for (std::uint64_t i = 0; i < ref->width; ++i) {
    auto index = lane_place(lane, first.index + i);
    keys.push_back(leaves ? journal::lobby_leaf_key(room_id, index) : journal::lobby_node_key(room_id, first.level, index));
  }
  auto stored = co_await read_side_records(ctx, std::move(keys));
  if (!stored) co_return unavailable(req);
  std::string body;
  for (const auto& v : *stored) {
    if (leaves) {
      if (!v || v->size() != 16) co_return not_written(req);
      if (ref->entries) {
        body += '\0';
        body += '\x10';
        body += *v;
      } else {
        body += as_chars(merkle::leaf_hash(as_bytes(*v)));
      }
    } else {
      auto hash = as_digest(v);
      if (!hash) co_return not_written(req);
      body += as_chars(*hash);
    }
  }
  co_return file(req, "application/octet-stream", forever, std::move(body));
}

task<std::optional<lobby_path>> read_lobby_path(context& ctx, const request& req, const room& r, std::uint8_t lane,
                                                std::uint64_t index, response& answer) {
  std::uint64_t size = r.lobby_size(lane);
  std::string room_id = r.config().id;
  auto nodes = merkle::audit_path_nodes(index, size);
  std::vector<std::string> keys{journal::lobby_leaf_key(room_id, lane_place(lane, index))};
  for (const auto& n : nodes) {
    auto at = lane_place(lane, n.index);
    keys.push_back(n.level == 0 ? journal::lobby_leaf_key(room_id, at) : journal::lobby_node_key(room_id, n.level, at));
  }
  auto stored = co_await read_side_records(ctx, std::move(keys));
  if (!stored) {
    answer = unavailable(req);
    co_return std::nullopt;
  }
  const auto& values = *stored;
  std::vector<digest> hashes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& v = values[i + 1];
    auto hash = nodes[i].level == 0 ? (v && v->size() == 16 ? std::optional(merkle::leaf_hash(as_bytes(*v))) : std::nullopt)
                                    : as_digest(v);
    if (!hash) break;
    hashes.push_back(*hash);
  }
  if (hashes.size() != nodes.size() || !values[0] || values[0]->size() != 16) {
    answer = not_written(req);
    co_return std::nullopt;
  }
  co_return lobby_path{*values[0], merkle::audit_path(index, size, hashes)};
}

task<response> lobby_proof(context& ctx, const request& req, const room& r, std::uint8_t lane, std::string_view index_text) {
  // Copied: the room may be removed while its path is read.
  const auto root = r.lobby_root(lane);
  if (!root) co_return lobby_not_closed(req);
  auto index = parse_u64(index_text);
  if (!index) co_return problem(req, errc::bad_index, "Give the lobby index as a number.");
  auto size = r.lobby_size(lane);
  if (*index >= size) co_return problem(req, errc::no_such_entrant, fmt::format("The lobby has {} entrants.", size));
  const std::string room_id = r.config().id;
  const std::string ledger_lane(r.ledger_lane(lane));
  response refusal;
  auto found = co_await read_lobby_path(ctx, req, r, lane, *index, refusal);
  if (!found) co_return refusal;
  // c2sp.org/tlog-proof: header, index, the path's hashes, a blank line, the checkpoint.
  std::string body = fmt::format("c2sp.org/tlog-proof@v1\nindex {}\n", *index);
  for (const auto& h : found->path) body += base64_encode(h) + "\n";
  body += "\n" + ctx.ledger.lobby_checkpoint(room_id, ledger_lane, size, *root);
  co_return file(req, "text/plain; charset=utf-8", forever, std::move(body));
}

}  // namespace foyer::http::handlers
