// The public lobby of a large draw: 1,000,000 entrant ids (16 bytes each) tiled as C2SP
// tlog-tiles and the checkpoint signed, in memory and with every file written to a temp
// directory; then the whole log checked back against the checkpoint, as an auditor does.
//
// Usage: tlog_tiles_bench [entries]   (default 1,000,000)
// Times are wall clock; compare runs on the same machine only.

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/fairness/checkpoint.hpp"
#include "core/fairness/tlog_tiles.hpp"

using namespace foyer;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t default_entries = 1'000'000;
const std::string origin = "foyer.example/lobby/bench";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::array<std::uint8_t, 16> entrant_id(std::uint64_t i) {
  std::array<std::uint8_t, 16> id{};
  put_be64(id.data(), i * 0x9E3779B97F4A7C15ULL);
  put_be64(id.data() + 8, i);
  return id;
}

void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Tiles `entries` ids and signs the checkpoint; `store` takes each file.
template <typename Store>
std::string tile_and_sign(std::uint64_t entries, const note::signer& key, Store&& store) {
  tiles::writer writer;
  for (std::uint64_t i = 0; i < entries; ++i) {
    writer.append(entrant_id(i));
    if (i % tiles::tile_width == tiles::tile_width - 1) {
      for (const auto& file : writer.take_full()) store(file);
    }
  }
  for (const auto& file : writer.take_full()) store(file);
  for (const auto& file : writer.partials()) store(file);
  return checkpoint::sign({origin, writer.size(), writer.root()}, key);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t entries = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : default_entries;
  note::signer key(origin, note::seed{});
  const note::verifier known[] = {key.public_part()};

  auto start = std::chrono::steady_clock::now();
  std::size_t bytes = 0;
  std::size_t files = 0;
  tile_and_sign(entries, key, [&](const tiles::tile_file& f) {
    bytes += f.bytes.size();
    ++files;
  });
  double in_memory = seconds_since(start);

  fs::path dir = fs::temp_directory_path() / fmt::format("foyer-tiles-bench-{}", ::getpid());
  start = std::chrono::steady_clock::now();
  std::string signed_checkpoint = tile_and_sign(entries, key, [&](const tiles::tile_file& f) { write_file(dir / f.path, f.bytes); });
  double to_disk = seconds_since(start);

  start = std::chrono::steady_clock::now();
  auto head = std::get<checkpoint::tree_head>(checkpoint::verify(signed_checkpoint, known));
  auto problem = tiles::check(head.size, head.root, [&](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(dir / path, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(in), {});
  });
  double checked = seconds_since(start);
  fs::remove_all(dir);

  fmt::print("entries {}: {} files, {:.1f} MB\n", entries, files, static_cast<double>(bytes) / 1e6);
  fmt::print("tile and sign, in memory:        {:.3f} s\n", in_memory);
  fmt::print("tile and sign, files written:    {:.3f} s\n", to_disk);
  fmt::print("check every file from disk:      {:.3f} s ({})\n", checked, problem ? problem->path + ": " + problem->what : "ok");
  return problem ? 1 : 0;
}
