#pragma once
// The visitors who asked to be told of their turn, and how: side records kept in memory and
// in the store's contacts (event_store::write_contacts, one record per visitor of a room,
// core/notify/contact_codec.hpp), never in the event log, its snapshots, backups, the audit,
// the event sinks or the logs. An address is held from the opt-in until the "turn" notice is
// handed to the outbox, the visitor opts out, the push service says the subscription is gone,
// or the room ends or is removed (plan() drops it then), whichever comes first; each of these
// deletes the stored record too. A restart loads the records back (restore), so a visitor who
// opted in and closed the tab still hears of their turn.
//
// The book does no I/O: every change it makes marks the visitor's record, and its owner takes
// the changed records (take_changes, take_change) and writes them.
//
// Notices can't be aimed at strangers: a ticket gives one address per room. Without
// confirmation an address hears "soon" and "turn" once each per room, from the first ticket
// that names it. With confirmation asked, each ticket's address hears nothing but that
// ticket's confirmation mail (at most one mail per address and room every ten minutes) until
// its holder confirms that ticket; each confirmed ticket then hears its own "soon" and "turn",
// so no other ticket naming the address can use them up. For this each room keeps keyed
// hashes of its addresses (never the text), bounded with the contacts, in memory.
//
// Nothing in admission reads this book, so replaying the log decides the same without it, and
// with or without the stored contacts: they only choose who is told, never who is admitted.
//
// Single-threaded: the event loop owns it.

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/base/ids.hpp"
#include "core/notify/contact.hpp"
#include "core/notify/contact_codec.hpp"
#include "foyer/store.hpp"
#include "core/notify/notice.hpp"
#include "core/rooms/journal.hpp"

namespace foyer::notify {

// A notice to send: a copy of the contact travels with it, so that the book can forget it.
struct notice {
  std::string room;
  id16 visitor{};
  std::uint64_t place = 0;  // the room's place (lane_place)
  notice_kind kind = notice_kind::soon;
  std::uint32_t minutes = 0;  // of a `soon` notice
  contact to;
};

// Per channel (push, email).
using per_channel = std::array<std::uint64_t, 2>;

// A room's opt-ins and notices, for its info and the console.
struct room_counts {
  per_channel opted_in{};   // opt-ins taken (a contact replaced is not another)
  per_channel held{};       // contacts held now
  per_channel sent{};       // notices handed to the outbox
  per_channel delivered{};  // notices the push service or relay accepted
  // Notices never accepted: refused, the contact gone, failed on every attempt, or dropped
  // from a full outbox. An "it's your turn" among them told nobody: no turn_notified.
  per_channel refused{};
  // Visitors told "it's your turn" whose claim window closed without a claim: no-shows in
  // admission as any other (claim_book), counted here too.
  std::uint64_t notified_no_shows = 0;
  // Confirmation mails ([notifications] confirm) handed to the outbox, and those the relay
  // accepted: counted here only, never in sent, delivered or refused, which count notices.
  std::uint64_t confirmations_sent = 0;
  std::uint64_t confirmations_delivered = 0;
};

// Why an opt-in is refused.
enum class opt_in_refusal : std::uint8_t {
  room_full,      // the room holds max_per_room visitors' contacts, or remembers as many addresses
  address_taken,  // the ticket gave another address before: one address per ticket and room
};

// What an opt-in or opt-out would do, decided before anything changes (durable first: the
// caller writes `write`, then applies the change once it is durable).
struct contact_decision {
  std::optional<opt_in_refusal> refused;
  std::optional<record_change> write;  // nullopt: nothing to write (the same contact again)
};

class contact_book {
 public:
  // At most `max_per_room` visitors of one room hold contacts at once. Addresses are
  // remembered as HMAC-SHA-256 under `address_key` (their first 16 bytes), never as text.
  // `confirm`: addresses are added with a confirm_link ([notifications] confirm).
  contact_book(std::size_t max_per_room, const digest& address_key, bool confirm = false)
      : max_per_room_(max_per_room), address_key_(address_key), confirm_(confirm) {}

  // Decides the opt-in of add(): refused if the room is full, or if `c` is an address and the
  // visitor gave another one in this room before (even if they opted out since: a ticket
  // can't be aimed at one address after another). Changes nothing.
  contact_decision decide_add(std::string_view room, const id16& visitor, std::optional<std::uint64_t> place,
                              std::optional<std::uint64_t> lobby_index, const contact& c) const;
  // The visitor of `room` at `place` (or lobby index, before the draw placed them) is to be
  // told through `c`, replacing their earlier contact of that channel. False, and nothing
  // changed, if decide_add would refuse it now.
  bool add(std::string_view room, const id16& visitor, std::optional<std::uint64_t> place,
           std::optional<std::uint64_t> lobby_index, contact c);
  // Decides an opt-out: the visitor's record deleted, if they hold one. Changes nothing.
  contact_decision decide_remove(std::string_view room, const id16& visitor) const;
  // Opt-out: every contact of the visitor is forgotten. False if there was none.
  bool remove(std::string_view room, const id16& visitor);

  // Confirmation ([notifications] confirm): a ticket whose address is added with a
  // confirm_link gets one confirmation mail (plan; an address gets at most one every
  // `confirm_spacing_ms` in a room, the newest opt-in's first) and no other notice until the
  // address's holder confirms that ticket. The link's path for `visitor`'s `address` in
  // `room`: /r/{room}/notify/confirm/{token}, the token a MAC of the room, the address's
  // keyed hash and the visitor (64 hex digits): it names no address nor visitor, confirms
  // that one ticket only, and can't be made without the key.
  static constexpr std::int64_t confirm_spacing_ms = 10 * 60'000;
  std::string confirm_path(std::string_view room, std::string_view address, const id16& visitor) const;
  // The record that confirming `token` changes, as it would be written (none if confirmed
  // already); nullopt if the token is not one confirm_path made for a ticket of this room
  // that holds its address. Changes nothing.
  std::optional<std::vector<record_change>> decide_confirm(std::string_view room, std::string_view token) const;
  // Confirms the ticket of `token`: its notices may go from now on. False if decide_confirm
  // would say nullopt.
  bool confirm(std::string_view room, std::string_view token);
  // The push service or relay said the contact is gone.
  void forget(std::string_view room, const id16& visitor, channel ch);
  // Every contact of `ch`: the server no longer sends on it.
  void forget_channel(channel ch);
  std::optional<contact> find(std::string_view room, const id16& visitor, channel ch) const;

  // The notices due at `now_ms` on the rooms' clock, each once per visitor; `soon_seconds`
  // as due_notice. Rooms that are gone, closed or sold out are forgotten, contacts and
  // counts; a visitor's contacts go once their "turn" notice is planned. Visitors told "it's
  // your turn" (told()) are judged: those who lapsed are notified no-shows.
  std::vector<notice> plan(const journal& rooms, std::int64_t now_ms, std::uint32_t soon_seconds);

  // What became of a notice of `kind` for `room` on `ch`.
  void record(std::string_view room, channel ch, notice_kind kind, outcome o);
  // The visitor at `place` was told "it's your turn" (turn_notified is durable): watched
  // until they claim their pass or lapse, a notified no-show.
  void told(std::string_view room, std::uint64_t place);

  // Zeros for a room nobody opted into.
  room_counts counts(std::string_view room) const;
  // Every notice's outcome since start: [channel][outcome]. Confirmation mails are not
  // notices: theirs are apart, [outcome].
  const std::array<std::array<std::uint64_t, outcome_count>, 2>& outcomes() const { return outcomes_; }
  const std::array<std::uint64_t, outcome_count>& confirmation_outcomes() const { return confirmation_outcomes_; }
  std::size_t size() const;
  // The visitors the last plan() looked at: those admitted or within reach of the "soon"
  // window, however many contacts are held (foyer_notification_plan_visitors).
  std::size_t looked_at() const { return looked_at_; }
  // Notified no-shows in every room since start.
  std::uint64_t notified_no_shows() const { return notified_no_shows_; }

  // Puts back a record an earlier run stored, before the book serves: false, and nothing
  // kept, if the key or value is malformed or the visitor is held already. Not held to
  // max_per_room: an opt-in that was acknowledged stays. Counted as opted in and held.
  bool restore(std::string_view key, std::string_view value);
  // The visitor's record as it would be stored now; nullopt if they hold no contact.
  std::optional<std::string> stored(std::string_view room, const id16& visitor) const;
  // Every record changed since it was last taken, as it is now (no value: delete it).
  std::vector<record_change> take_changes();
  // Changes whose write failed, or that were written and then not applied: taken again, as
  // they are then, by the next take_changes().
  void unwritten(const std::vector<record_change>& changes);

 private:
  using entry = contact_record;
  using address_id = id16;
  // What was mailed to one address in a room, whoever opted it in: without confirmation,
  // its one "soon" and one "turn"; with it, when its last confirmation mail went.
  static constexpr std::uint8_t mailed_soon = 1, mailed_turn = 2;
  struct mailing {
    std::uint8_t sent = 0;
    std::optional<std::int64_t> confirm_at_ms;
  };
  struct room_book {
    std::map<id16, entry> visitors;
    // The visitors with a place (their own, or a lobby member's once the draw gave it), by
    // place: a pass looks only at those admitted or within reach of the "soon" window, so
    // its cost follows the window, not the contacts held.
    std::set<std::pair<std::uint64_t, id16>> by_place;
    // Lobby members the draw has not placed yet: placed in one pass once the room drew.
    std::set<id16> unplaced;
    room_counts counts;
    // Places told "it's your turn", until they claim or lapse: at most one per "turn"
    // notice planned and not yet judged.
    std::vector<std::uint64_t> told;
    // The addresses opted in to the room (keyed hashes), and what was mailed to each. With
    // `addressed`, the address each visitor gave. Kept until the room ends, at most
    // 2 x max_per_room entries each (48 bytes an entry or so): past that the room takes no
    // new address.
    std::unordered_map<address_id, mailing, id16_hash> mailed;
    std::unordered_map<id16, address_id, id16_hash> addressed;
    // The tickets given a confirmation link, by the token's first half: (visitor, address).
    // And those whose confirmation mail is yet to be planned, oldest first. At most one
    // entry each per visitor in `addressed`.
    std::unordered_map<id16, std::pair<id16, address_id>, id16_hash> confirming;
    std::vector<id16> to_confirm;
  };

  address_id address_of(const contact& c) const;
  // The MAC of a confirmation token (32 bytes; its first half keys `confirming`).
  digest confirm_tag(std::string_view room, const address_id& address, const id16& visitor) const;
  // The ticket a token confirms, if it is one confirm_path made for a ticket of `room` that
  // holds its address, with that ticket's entry.
  const entry* confirming_entry(std::string_view room, std::string_view token, id16& visitor) const;
  // The confirmation mails due at `now_ms`: at most one per address every confirm_spacing_ms.
  void plan_confirmations(const std::string& room, room_book& book, std::int64_t now_ms, std::vector<notice>& out);
  std::optional<opt_in_refusal> refusal(std::string_view room, const id16& visitor, const contact& c) const;
  // Whether a notice of `kind` may be mailed to `address`: with confirmation, to every
  // confirmed ticket; without, once per kind and room, to the first ticket due.
  bool mail_once(room_book& book, const address_id& address, notice_kind kind) const;
  static void index_place(room_book& book, const id16& visitor, const entry& e);
  static void unindex(room_book& book, const id16& visitor, const entry& e);
  static void place_drawn(room_book& book, const room& r);
  static void hold(room_book& book, const id16& visitor, entry e);
  static void drop(room_book& book, std::map<id16, entry>::iterator found);
  void changed(std::string_view room, const id16& visitor) { changed_.insert(encode_contact_key(room, visitor)); }

  std::size_t max_per_room_;
  digest address_key_;
  bool confirm_;
  std::map<std::string, room_book, std::less<>> rooms_;
  std::array<std::array<std::uint64_t, outcome_count>, 2> outcomes_{};
  std::array<std::uint64_t, outcome_count> confirmation_outcomes_{};
  std::uint64_t notified_no_shows_ = 0;
  std::size_t looked_at_ = 0;
  // The keys of the records changed and not yet taken.
  std::set<std::string, std::less<>> changed_;
};

}  // namespace foyer::notify
