#include "core/fairness/checkpoint.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace foyer::checkpoint {
namespace {

// The next line of `text` without its newline, taken off the front; nullopt if no
// newline is left.
std::optional<std::string_view> take_line(std::string_view& text) {
  auto end = text.find('\n');
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view line = text.substr(0, end);
  text.remove_prefix(end + 1);
  return line;
}

std::optional<std::uint64_t> parse_size(std::string_view digits) {
  if (digits.empty() || (digits.size() > 1 && digits.front() == '0')) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || end != digits.data() + digits.size() || value >= max_tree_size) return std::nullopt;
  return value;
}

}  // namespace

std::string text(const tree_head& head) {
  if (!note::valid_key_name(head.origin) || head.size >= max_tree_size) {
    throw std::invalid_argument("checkpoint: invalid origin or size");
  }
  return head.origin + "\n" + std::to_string(head.size) + "\n" + base64_encode(head.root) + "\n";
}

std::optional<tree_head> parse(std::string_view text) {
  auto origin = take_line(text);
  auto size_line = take_line(text);
  auto root_line = take_line(text);
  if (!origin || origin->empty() || !size_line || !root_line) return std::nullopt;
  auto size = parse_size(*size_line);
  auto root = base64_decode(*root_line);
  if (!size || !root || root->size() != std::tuple_size_v<digest>) return std::nullopt;
  // Extension lines are opaque, but never empty.
  while (auto extension = take_line(text)) {
    if (extension->empty()) return std::nullopt;
  }
  if (!text.empty()) return std::nullopt;
  tree_head head{std::string(*origin), *size, {}};
  std::copy(root->begin(), root->end(), head.root.begin());
  return head;
}

std::string sign(const tree_head& head, const note::signer& log_key) {
  const note::signer signers[] = {log_key};
  return note::sign(text(head), signers);
}

std::variant<tree_head, note::open_error> verify(std::string_view checkpoint, std::span<const note::verifier> log_keys) {
  auto opened = note::open(checkpoint, log_keys);
  if (auto* error = std::get_if<note::open_error>(&opened)) return *error;
  auto head = parse(std::get<note::opened_note>(opened).text);
  if (!head) return note::open_error::malformed;
  return *head;
}

}  // namespace foyer::checkpoint
