#include "app/ledger_service.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/fairness/cosignature.hpp"
#include "core/rooms/draw_steps.hpp"
#include "delivery/drand_relay.hpp"

namespace foyer::app {
namespace {

std::vector<delivery::witness_endpoint> endpoints(const ledger_settings& settings) {
  std::vector<delivery::witness_endpoint> out;
  for (const auto& w : settings.witnesses) out.push_back({*cosignature::parse_vkey(w.vkey), *parse_url(w.url)});
  return out;
}

}  // namespace

ledger_service::ledger_service(boost::asio::io_context& ioc, journal& rooms, ledger::publisher& publisher,
                               const clock& clock, const ledger_settings& settings)
    : ioc_(ioc), timer_(ioc), rooms_(rooms), publisher_(publisher), clock_(clock), relays_(settings.beacon_relays) {
  if (!settings.witnesses.empty()) {
    witnesses_ = std::make_unique<delivery::witness_client>(ioc, endpoints(settings), settings.quorum);
  }
}

void ledger_service::start() {
  if (relays_.size() == 1) {
    log::warn(fmt::format("one drand relay configured ({}): a single relay gives no guarantee; a drand room draws "
                          "on its word alone and claims no grinding guarantee. List two independent relays in "
                          "[ledger] beacon_relays for one",
                          origin_of(relays_.front())),
              {});
  }
  step();
  schedule();
}

void ledger_service::stop() {
  stopped_ = true;
  timer_.cancel();
  if (witnesses_) witnesses_->stop();
}

void ledger_service::schedule() {
  timer_.expires_after(period);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    step();
    schedule();
  });
}

void ledger_service::step() {
  failures_.flush(clock_.steady_ms());
  if (witnesses_) {
    submit_checkpoint();
    write_witnessed();
  }
  fetch_beacons();
}

void ledger_service::submit_checkpoint() {
  const auto& log = rooms_.public_ledger();
  bool retry = resubmit_at_ms_ != 0 && clock_.steady_ms() >= resubmit_at_ms_;
  if (submitting_ || log.size() == 0 || (log.size() == submitted_size_ && !retry)) return;
  resubmit_at_ms_ = 0;
  submitting_ = true;
  submitted_size_ = log.size();
  // The proofs are made when a witness is asked, between the sizes it asks about.
  auto proofs = [this](std::uint64_t old_size, std::uint64_t new_size) {
    return rooms_.public_ledger().consistency(old_size, new_size);
  };
  witnesses_->submit(publisher_.checkpoint(log.size(), log.root()), proofs,
                     [this](const delivery::witness_round& round) { record(round); });
}

void ledger_service::record(const delivery::witness_round& round) {
  submitting_ = false;
  publisher_.set_cosigned(round.size, round.cosigned_note);
  for (const auto& outcome : round.outcomes) {
    if (const auto* failed = std::get_if<witness::failure>(&outcome.answer)) {
      failures_.error("witness " + outcome.witness, clock_.steady_ms(),
                      fmt::format("witness '{}' did not cosign the ledger checkpoint of {} entries: {}", outcome.witness,
                                  round.size, failed->detail),
                      {{"witness", outcome.witness}});
    }
  }
  if (!round.quorum) resubmit_at_ms_ = clock_.steady_ms() + witness_retry_ms;
  if (round.quorum && round.size > quorum_size_) {
    quorum_size_ = round.size;
    quorum_note_ = round.cosigned_note;
  }
}

void ledger_service::write_witnessed() {
  if (quorum_size_ == 0) return;
  for (auto& e : witnessed_due(rooms_, quorum_size_, quorum_note_, clock_.steady_ms())) {
    if (writing_.contains(e.room)) continue;
    writing_.insert(e.room);
    std::string room = e.room;
    rooms_.submit(event{std::move(e)}, [this, room](std::error_code ec, const join_outcome&) {
      writing_.erase(room);
      if (ec) {
        failures_.error("witnessed " + room, clock_.steady_ms(),
                        fmt::format("room '{}': the witnesses' cosignature not durable: {}", room, ec.message()),
                        {{"room", room}});
      }
    });
  }
}

void ledger_service::fetch_beacons() {
  auto now = clock_.now_ms();
  for (const auto& wanted : beacons_due(rooms_, now)) {
    auto next = beacon_next_try_.find(wanted.room);
    if (next != beacon_next_try_.end() && now < next->second) continue;
    // Until this fetch ends, no other: the next try is set when it does.
    beacon_next_try_[wanted.room] = INT64_MAX;
    delivery::fetch_drand_round(
        ioc_, relays_, wanted.round, std::chrono::seconds(5), [this, wanted](delivery::drand_fetch fetched) {
          if (stopped_) return;
          auto now_ms = clock_.now_ms();
          auto decision = drand::decide_beacon(fetched.answers);
          if (!decision.value) {
            beacon_next_try_[wanted.room] = now_ms + beacon_retry_ms;
            auto given = std::count_if(fetched.answers.begin(), fetched.answers.end(),
                                       [](const auto& a) { return a.has_value(); });
            auto why = decision.contradicted
                           ? fmt::format("the relays gave different rounds that each pass the server's checks, so the "
                                         "draw waits for two that agree, or for the operator to supply the round "
                                         "(POST /api/v1/admin/rooms/{}/beacon)", wanted.room)
                       : given == 1 ? fmt::format("only one relay gave it, and the draw waits for a second to agree, "
                                                  "or for the operator to supply the round "
                                                  "(POST /api/v1/admin/rooms/{}/beacon); it never draws on one "
                                                  "relay's word",
                                                  wanted.room)
                                    : std::string("no relay gave it, and the draw waits");
            failures_.error("beacon " + wanted.room, clock_.steady_ms(),
                            fmt::format("room '{}': drand quicknet round {}: {}{}{}", wanted.room, wanted.round, why,
                                        fetched.problems.empty() ? "" : ": ", fmt::join(fetched.problems, "; ")),
                            {{"room", wanted.room}});
            return;
          }
          std::vector<std::string> agreed;
          for (auto i : decision.agreed) agreed.push_back(origin_of(relays_[i]));
          if (decision.check == drand::beacon_check::none) {
            log::warn(fmt::format("room '{}': drawing with drand quicknet round {} from the single configured relay, "
                                  "which nothing confirmed: the room claims no grinding guarantee",
                                  wanted.room, wanted.round),
                      {{"room", wanted.room}});
          } else {
            log::info(fmt::format("room '{}': drawing with drand quicknet round {}, on which relays {} agreed",
                                  wanted.room, wanted.round, fmt::join(agreed, " and ")),
                      {{"room", wanted.room}});
          }
          std::string signature(as_chars(decision.value->sig));
          rooms_.submit(event{beacon_supplied{wanted.room, std::move(signature), clock_.steady_ms(), decision.check,
                                              std::move(agreed)}},
                        [this, room = wanted.room](std::error_code ec, const join_outcome&) {
                          // Written or not, the room says what is next: drawn, or asked again.
                          beacon_next_try_[room] = ec ? clock_.now_ms() + beacon_retry_ms : 0;
                        });
        });
  }
}

}  // namespace foyer::app
