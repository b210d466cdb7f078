#pragma once
// The admin API's room operations, decided here: the handler reads the body into
// settings, asks, writes the events it is given, and answers.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/desk.hpp"
#include "core/rooms/journal.hpp"
#include "core/rooms/opening_check.hpp"

namespace foyer {

// The seats a room's holds take, for a refusal that is about them.
seat_counts seats_taken(const room& r);

// The answer to an admin decision: the room as its events (if any) leave it.
struct answer_from_room {};
using admin_decision = step<answer_from_room>;

// A room the API creates, from settings read over the defaults; owned by the API. An
// opening in the past or within a minute is refused unless `opening` accepts it.
admin_decision create_room(const journal& rooms, room_config config, const digest& seed, std::int64_t now_ms,
                           past_opening opening = past_opening::refuse);

// `next` replaces the settings of room `id`; no events if it changes nothing. A changed
// opening is checked as on create.
admin_decision change_room(const journal& rooms, std::string_view id, room_config next, std::int64_t now_ms,
                           past_opening opening = past_opening::refuse);

// Removes a room. With visitors waiting, or seats held or confirmed, only when forced: it
// is closed first.
admin_decision remove_room(const journal& rooms, std::string_view id, bool force, std::int64_t now_ms);

// The operator's way back from a frozen seat ledger (seat_ledger::recount): refused with
// the recounted numbers while a leg's total is below them (raise the total first); no
// events when the counts are right already.
admin_decision recount_seats(const journal& rooms, std::string_view id, std::int64_t now_ms);
// A batch of access codes for a lane that takes codes. The same batch again (a retry)
// writes nothing and answers as the first did; other codes under its id are refused.
admin_decision add_codes(const journal& rooms, codes_added batch);
// Revokes a batch, or one of its codes; revoking what is revoked writes nothing.
admin_decision revoke_codes(const journal& rooms, codes_revoked revocation);

// Why a recount that does not fit is refused, with its numbers.
desk_refusal recount_refusal(std::string_view id, const seat_recount& counted);

}  // namespace foyer
