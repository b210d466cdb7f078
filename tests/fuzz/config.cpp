// The TOML config loader (app/config.cpp), from a file as at start: any text is a config
// or a config_error naming the problem, never a crash or another exception.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "app/config.hpp"
#include "fixtures.hpp"

using namespace foyer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/foyer-fuzz-config-" + std::to_string(getpid()) + ".toml";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    (void)app::load_config(path);
  } catch (const app::config_error&) {
  }
  std::remove(path.c_str());
  return 0;
}
