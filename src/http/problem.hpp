#pragma once
// Error answers as RFC 9457 problem details, in one place: the HTTP status, title and
// Retry-After of every domain error (core/errc.hpp), and the body
//
//   {"type":"urn:foyer:problem:<code>","title":..,"status":N,"detail":..,
//    "error":"<code>","message":<detail>, ..extensions}
//
// served as application/problem+json, not cached, not sniffed. `error` and `message` are
// extension members that clients of the first API read.

#include <initializer_list>
#include <span>
#include <string_view>

#include "core/errc.hpp"
#include "http/server.hpp"

namespace foyer::http {

struct problem_type {
  unsigned status = 500;
  std::string_view title;      // a short summary of the problem type, the same every time
  unsigned retry_after_s = 0;  // sent as Retry-After when not 0
};

problem_type type_of(errc e);

// An extension member: its name, and its value as JSON text ("\"rate_per_minute\"", "3").
struct problem_member {
  std::string_view name;
  std::string_view json;
};

// The answer for `e`: `detail` says what happened in this case, for people.
response problem(const request& req, errc e, std::string_view detail,
                 std::initializer_list<problem_member> extensions = {});
// The same, with extensions gathered at run time.
response problem(const request& req, errc e, std::string_view detail, std::span<const problem_member> extensions);
// The same, for answers given before a request could be read.
response problem(unsigned version, bool keep_alive, errc e, std::string_view detail,
                 std::initializer_list<problem_member> extensions = {});
// A problem of a type outside errc (or a status other than its own); `code` is written as is.
response problem(unsigned version, bool keep_alive, unsigned status, std::string_view code, std::string_view title,
                 std::string_view detail, std::initializer_list<problem_member> extensions = {});

}  // namespace foyer::http
