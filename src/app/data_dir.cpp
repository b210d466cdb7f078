#include "app/data_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/core.h>
#include <simdjson.h>

#include "core/base/json.hpp"

namespace foyer::app {
namespace {

constexpr std::string_view secret_file = "secret";
constexpr std::string_view incarnation_file = "incarnation.json";
// Far above any real file here (a room's entry is about 60 bytes); refuses to slurp a wrong one.
constexpr std::uintmax_t max_small_file = 1 << 20;

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what) {
  throw std::runtime_error(fmt::format("data dir: {}: {}", path.string(), what));
}

std::string read_small_file(const std::filesystem::path& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, fmt::format("cannot be read: {}", ec.message()));
  if (size > max_small_file) fail(path, "is too large to be written by foyer");
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) fail(path, "cannot be read");
  return bytes;
}

std::string encode_cuts(const std::map<std::string, ticket_cut, std::less<>>& rooms) {
  std::string out = "[";
  for (const auto& [room, cut] : rooms) {
    if (out.size() > 1) out.push_back(',');
    json_object entry;
    entry.str("room", room).num("places", cut.places).num("lobby", cut.lobby);
    if (!cut.lanes.empty()) {
      std::string lanes = "[";
      for (const auto& lane : cut.lanes) {
        if (lanes.size() > 1) lanes.push_back(',');
        lanes += json_object().num("places", lane.places).num("lobby", lane.lobby).done();
      }
      entry.raw("lanes", lanes + "]");
    }
    out += entry.done();
  }
  return out + "]";
}

}  // namespace

void prepare_data_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  bool created = std::filesystem::create_directories(dir, ec);
  if (ec) fail(dir, fmt::format("cannot create it: {}", ec.message()));
  // Keys and the secret live here: only the owner may look inside.
  if (created) std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  if (ec) fail(dir, fmt::format("cannot restrict its permissions: {}", ec.message()));
  if (!std::filesystem::is_directory(dir)) fail(dir, "exists but is not a directory");
  if (::access(dir.c_str(), R_OK | W_OK | X_OK) != 0) fail(dir, fmt::format("not usable: {}", std::strerror(errno)));
}

std::filesystem::path secret_path(const std::filesystem::path& dir) { return dir / secret_file; }

digest load_secret(const std::filesystem::path& dir) {
  auto path = secret_path(dir);
  auto bytes = read_small_file(path);
  auto decoded = from_hex_fixed<32>(bytes.substr(0, bytes.find_last_not_of("\n") + 1));
  if (!decoded) fail(path, "is not a secret written by foyer (64 hex digits); restore it from a backup");
  return *decoded;
}

digest load_or_create_secret(const std::filesystem::path& dir, bool* created) {
  auto path = secret_path(dir);
  if (created) *created = false;
  if (std::filesystem::exists(path)) return load_secret(dir);
  digest secret;
  random_bytes(secret);
  auto temp = path;
  temp += ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail(temp, fmt::format("cannot be created: {}", std::strerror(errno)));
  std::string text = to_hex(secret) + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) fail(path, "cannot be written");
  if (created) *created = true;
  return secret;
}

std::filesystem::path incarnation_path(const std::filesystem::path& dir) { return dir / incarnation_file; }

std::string encode_incarnation(const incarnation& i) {
  std::string before = "[";
  for (const auto& e : i.before) {
    if (before.size() > 1) before.push_back(',');
    before += json_object().str("id", e.id).raw("rooms", encode_cuts(e.rooms)).done();
  }
  return json_object().str("id", i.id).raw("before", before + "]").done() + "\n";
}

incarnation load_incarnation(const std::filesystem::path& dir) {
  auto path = incarnation_path(dir);
  if (!std::filesystem::exists(path)) return {};
  auto text = read_small_file(path);
  incarnation out;
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  simdjson::dom::array before;
  std::string_view id;
  auto bad = [&]() -> incarnation { fail(path, "is not an incarnation written by foyer restore"); };
  if (parser.parse(text).get_object().get(object) || object["id"].get_string().get(id) ||
      object["before"].get_array().get(before)) {
    return bad();
  }
  out.id = id;
  for (auto entry : before) {
    simdjson::dom::array rooms;
    if (entry["id"].get_string().get(id) || entry["rooms"].get_array().get(rooms)) return bad();
    auto& earlier = out.before.emplace_back(incarnation::earlier{std::string(id), {}});
    for (auto room : rooms) {
      std::string_view room_id;
      ticket_cut cut;
      if (room["room"].get_string().get(room_id) || room["places"].get_uint64().get(cut.places) ||
          room["lobby"].get_uint64().get(cut.lobby)) {
        return bad();
      }
      // A room with lanes: the other lanes' counts, in lane order.
      simdjson::dom::array lanes;
      if (room["lanes"].get_array().get(lanes) == simdjson::SUCCESS) {
        for (auto lane : lanes) {
          ticket_cut::counts counts;
          if (lane["places"].get_uint64().get(counts.places) || lane["lobby"].get_uint64().get(counts.lobby)) return bad();
          cut.lanes.push_back(counts);
        }
      }
      earlier.rooms.emplace(room_id, cut);
    }
  }
  return out;
}

incarnation next_incarnation(incarnation previous, std::map<std::string, ticket_cut, std::less<>> cuts) {
  incarnation next{to_hex(random_array<16>()), std::move(previous.before)};
  next.before.push_back({std::move(previous.id), std::move(cuts)});
  return next;
}

cluster::log_identity log_identity_of(const digest& secret, const incarnation& i, bool secret_new) {
  cluster::log_identity self{cluster::incarnation_mark(secret, i.id), {}, secret_new};
  for (const auto& e : i.before) self.earlier.push_back(cluster::incarnation_mark(secret, e.id));
  return self;
}

ticket_codec make_ticket_codec(const digest& secret, const incarnation& i) {
  std::vector<earlier_tickets> earlier;
  for (const auto& e : i.before) earlier.push_back({ticket_key(secret, e.id), e.rooms});
  return ticket_codec(ticket_key(secret, i.id), std::move(earlier));
}

}  // namespace foyer::app
