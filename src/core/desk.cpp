#include "core/desk.hpp"

#include <fmt/format.h>

namespace foyer {

desk_refusal not_durable() {
  return {errc::storage_unavailable,
          "The server could not make this change durable; nothing was recorded. Retry shortly."};
}

desk_refusal no_such_room(std::string_view id) {
  return {errc::unknown_room, fmt::format("There is no room '{}'.", id)};
}

}  // namespace foyer
