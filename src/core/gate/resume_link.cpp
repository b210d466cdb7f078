#include "core/gate/resume_link.hpp"

#include <array>

#include <fmt/core.h>

#include "core/base/codec.hpp"

namespace foyer {
namespace {

constexpr std::uint8_t token_version = 1;
constexpr std::size_t resume_mac_size = 16;
constexpr std::size_t link_size = 16;
constexpr std::string_view resume_mac_label = "foyer/resume/v1";
// A ticket's text is at most 256 characters (192 bytes): anything longer is refused unread.
constexpr std::size_t max_ticket_bytes = 192;
constexpr std::size_t max_token_bytes = 1 + link_size + max_ticket_bytes + resume_mac_size;
constexpr std::size_t max_token_text = (max_token_bytes * 4 + 2) / 3;

}  // namespace

std::string resume_codec::mint(std::string_view ticket_text, const id16& link) const {
  auto ticket_bytes = base64url_decode(ticket_text);
  if (!ticket_bytes || ticket_bytes->size() > max_ticket_bytes) return {};
  writer w(1 + link_size + ticket_bytes->size() + resume_mac_size);
  w.u8(token_version);
  w.raw(link);
  w.raw(*ticket_bytes);
  auto payload = w.take();
  auto mac = key_.mac({as_bytes(resume_mac_label), as_bytes(payload)});
  payload.append(reinterpret_cast<const char*>(mac.data()), resume_mac_size);
  return base64url_encode(as_bytes(payload));
}

std::optional<resume_token> resume_codec::open(std::string_view token) const {
  if (token.size() > max_token_text) return std::nullopt;
  std::array<std::uint8_t, max_token_text * 3 / 4> buffer;
  auto raw = std::span(buffer).first(token.size() * 3 / 4);
  if (!base64url_decode_into(token, raw) || raw.size() <= 1 + link_size + resume_mac_size || raw[0] != token_version) {
    return std::nullopt;
  }
  std::string_view all = as_chars(raw);
  std::string_view payload = all.substr(0, all.size() - resume_mac_size);
  auto expected = key_.mac({as_bytes(resume_mac_label), as_bytes(payload)});
  if (!equal_constant_time(byte_view(expected).first(resume_mac_size), as_bytes(all.substr(payload.size())))) {
    return std::nullopt;
  }
  resume_token out;
  std::copy_n(raw.begin() + 1, link_size, out.link.begin());
  out.ticket = base64url_encode(as_bytes(payload.substr(1 + link_size)));
  return out;
}

resume_step keep_place(const room& r, const id16& visitor, const id16& fresh, std::int64_t now_ms) {
  const auto& book = r.resume_links();
  if (auto live = book.live(visitor)) return resume_link_answer{*live};
  if (book.made(visitor) >= resume_book::max_links) {
    return desk_refusal{errc::resume_links_used_up,
                        fmt::format("This ticket made its {} resume links already.", resume_book::max_links)};
  }
  return std::vector<event>{resume_link_changed{r.config().id, visitor, fresh, now_ms}};
}

revoke_step forget_link(const room& r, const id16& visitor, std::int64_t now_ms) {
  if (!r.resume_links().live(visitor)) return std::monostate{};
  return std::vector<event>{resume_link_changed{r.config().id, visitor, std::nullopt, now_ms}};
}

std::variant<desk_refusal, resumed> open_resume(const room& r, const resume_codec& links, const ticket_codec& tickets,
                                                std::string_view token) {
  auto opened = links.open(token);
  if (!opened) return desk_refusal{errc::invalid_resume_link, "This resume link is malformed, or was altered."};
  ticket_error why{};
  auto t = tickets.decode(opened->ticket, &why);
  if (t && t->room == r.config().id && !r.gave(*t)) {
    why = ticket_error::lost_in_restore;
    t.reset();
  }
  if (!t && why == ticket_error::lost_in_restore) {
    return desk_refusal{errc::ticket_lost_in_restore,
                        "This server was restored from a backup taken before the place was taken: join again."};
  }
  if (!t) return desk_refusal{errc::invalid_resume_link, "This resume link's ticket is not one this server gave."};
  if (t->room != r.config().id) {
    return desk_refusal{errc::ticket_for_other_room, fmt::format("This resume link is for room '{}'.", t->room)};
  }
  auto live = r.resume_links().live(t->visitor);
  if (!live || !equal_constant_time(*live, opened->link)) {
    return desk_refusal{errc::resume_link_revoked, "This resume link was revoked, or replaced by a newer one."};
  }
  return resumed{std::move(*t), std::move(opened->ticket)};
}

}  // namespace foyer
