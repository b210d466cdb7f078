#pragma once
// Resume links ("Keep my place"): a link that restores a visitor's ticket, and so their
// place, in another browser or on another device. The token in it is
//   base64url(u8 version (1) ‖ 16-byte link id ‖ ticket bytes ‖ first 16 bytes of
//             HMAC-SHA256(resume key, "foyer/resume/v1" ‖ all that precedes))
// where the ticket bytes are the visitor's ticket (core/gate/ticket.hpp), MACed on its
// own and naming its room: the token is bound to the room and the ticket and carries no
// personal data. It opens only while its link id is the visitor's live one in the room's
// resume_book: one live link per ticket, revoked by a resume_link_changed without one.
// A resumed browser holds the same ticket, so two devices share one place and one pass.
//
// To hand a visitor a link (the waiting page's button, a notifier's message):
//   auto step = keep_place(room, ticket.visitor, random_array<16>(), now_ms);
// commit the events of a commit step, decide again, and with the answer's link:
//   resume_codec(key).mint(ticket_text, answer.link)
// gives the token of GET /r/{room}/resume/{token}.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "core/base/crypto.hpp"
#include "core/desk.hpp"
#include "core/gate/ticket.hpp"
#include "core/rooms/room.hpp"

namespace foyer {

struct resume_token {
  std::string ticket;  // the ticket's text, as visitors send it
  id16 link{};
};

class resume_codec {
 public:
  explicit resume_codec(byte_view key) : key_(key) {}

  // The token for `ticket_text` (a ticket as ticket_codec encodes it) under `link`;
  // empty if the ticket text is not base64url.
  std::string mint(std::string_view ticket_text, const id16& link) const;
  // The ticket text and link id if the token's MAC is good; the ticket's own MAC and its
  // room are the caller's checks (open_resume does them all).
  std::optional<resume_token> open(std::string_view token) const;

 private:
  hmac_key key_;
};

// The visitor's live link: answered as it is, or after the commit that makes `fresh`
// their live link when they hold none. Refused once they made resume_book::max_links.
struct resume_link_answer {
  id16 link{};
};
using resume_step = step<resume_link_answer>;
resume_step keep_place(const room& r, const id16& visitor, const id16& fresh, std::int64_t now_ms);

// Revokes the visitor's live link: no events when they hold none. Answers no link.
using revoke_step = step<std::monostate>;
revoke_step forget_link(const room& r, const id16& visitor, std::int64_t now_ms);

// The ticket `token` restores in room `r`, or why it does not: malformed or forged
// (invalid_resume_link), for another room, or no longer the visitor's live link.
struct resumed {
  ticket t;
  std::string text;  // the ticket as it was sent
};
std::variant<desk_refusal, resumed> open_resume(const room& r, const resume_codec& links, const ticket_codec& tickets,
                                                std::string_view token);

}  // namespace foyer
