#include "http/handlers/desk_runner.hpp"

#include "core/base/json.hpp"
#include "core/rooms/site_reports.hpp"

namespace foyer::http {

response refused(const request& req, const desk_refusal& why) {
  // Kept here while the problem is built: each member refers to its text.
  std::string field = json_quote(why.field);
  std::string held = why.seats ? std::to_string(why.seats->held) : "";
  std::string confirmed = why.seats ? std::to_string(why.seats->confirmed) : "";
  std::string waiting = why.waiting ? std::to_string(*why.waiting) : "";
  std::string offer = why.offer ? challenge_json(*why.offer) : "";
  std::vector<problem_member> members;
  if (!why.field.empty()) members.push_back({"field", field});
  if (why.seats) {
    members.push_back({"held", held});
    members.push_back({"confirmed", confirmed});
  }
  if (why.waiting) members.push_back({"waiting", waiting});
  if (why.offer) members.push_back({"new_challenge", offer});
  auto res = problem(req, why.code, why.detail, members);
  if (why.retry_after_s) res.set(beast::http::field::retry_after, std::to_string(*why.retry_after_s));
  return res;
}

std::string challenge_json(const pow::challenge& c) {
  return json_object()
      .str("challenge", c.token)
      .num("difficulty_bits", c.difficulty_bits)
      .num("expires_at", c.expires_at_ms)
      .done();
}

std::variant<std::string, response> idempotency_key(const request& req) {
  auto key = req["Idempotency-Key"];
  if (key.empty()) {
    return problem(req, errc::idempotency_key_required,
                   "Send an Idempotency-Key header: a retry with the same key counts once.");
  }
  std::string text(key.data(), key.size());
  if (!valid_idempotency_key(text)) {
    return problem(req, errc::bad_request, "The Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  return text;
}

}  // namespace foyer::http
