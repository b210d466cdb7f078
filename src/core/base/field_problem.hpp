#pragma once

#include <string>

namespace foyer {

// Which setting is wrong and why, in words for the person who wrote it.
struct field_problem {
  std::string field;
  std::string message;
};

}  // namespace foyer
