// The TOML config loader (app/config.cpp) from text, as load_config reads a file: any text
// is a config or a config_error naming the problem, never a crash or another exception.
#include <string>

#include "app/config.hpp"
#include "fixtures.hpp"

using namespace foyer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)app::parse_config(fuzz::text_of(data, size), "fuzz.toml");
  } catch (const app::config_error&) {
  }
  return 0;
}
