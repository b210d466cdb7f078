#pragma once
// Files, shell commands and the Go programs of tests/go, built offline (GOPATH mode on
// Debian's Go sources, no module proxy; packaging/deps.sh installs Go and
// golang-golang-x-mod-dev), for the tests that check Foyer against Go's reference code.

#include <catch2/catch.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace foyer::test {

inline std::string shell_quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Runs a shell command; returns its exit status, with its output in `output`.
inline int run(const std::string& command, const std::filesystem::path& log, std::string& output) {
  int status = std::system((command + " >" + shell_quoted(log) + " 2>&1").c_str());
  output = read_file(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Builds the Go program in `source` to `binary`; fails the test with Go's output if it can't.
inline void go_build(const std::filesystem::path& source, const std::filesystem::path& binary) {
  std::string output;
  int status = run("cd " + shell_quoted(source) + " && GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOPROXY=off GOCACHE=" +
                       shell_quoted(std::filesystem::temp_directory_path() / "foyer-go-cache") + " go build -o " +
                       shell_quoted(binary) + " .",
                   binary.string() + ".build.log", output);
  INFO("go build: " << output << "(Go and golang-golang-x-mod-dev come from packaging/deps.sh)");
  REQUIRE(status == 0);
}

}  // namespace foyer::test
