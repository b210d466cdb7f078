#pragma once
// An answer as the server writes it: a status, header lines already in wire form, and a
// body. Beast's message keeps a separately allocated node per field; an answer here is
// two strings, which at the rate of status polls is a visible share of the work.

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/status.hpp>

namespace foyer::http {

// A field name as RFC 9110 has it (5.1): a non-empty token of letters, digits and
// !#$%&'*+-.^_`|~.
bool is_field_name(std::string_view name);
// A value that cannot end its line or the header: no control characters but HTAB (CR, LF
// and NUL among them). Obs-text (bytes from 0x80) passes.
bool is_field_value(std::string_view value);

class response {
 public:
  using status = boost::beast::http::status;

  response() = default;
  response(status code, unsigned version) : status_(code), version_(version) {}
  // An API answer: JSON, not to be cached or sniffed.
  static response json(status code, unsigned version, std::string body);

  status result() const { return status_; }
  void result(status code) { status_ = code; }
  unsigned result_int() const { return static_cast<unsigned>(status_); }
  unsigned version() const { return version_; }

  bool keep_alive() const { return keep_alive_; }
  void keep_alive(bool on) { keep_alive_ = on; }

  // Sets a field, replacing one of the same name. Content-Length and Connection are
  // written by `serialize` and are not set here. Throws std::invalid_argument for a name
  // that is not `is_field_name` or a value that is not `is_field_value`, so that no value
  // can split the header; callers check what a client could have chosen beforehand and
  // answer it cleanly.
  void set(boost::beast::http::field name, std::string_view value);
  void set(std::string_view name, std::string_view value);
  // A value given in parts, written one after the other without a copy of the whole.
  void set_parts(boost::beast::http::field name, std::initializer_list<std::string_view> parts);
  std::string& body() { return body_; }
  const std::string& body() const { return body_; }
  // The length to announce instead of the body's own: a HEAD answer names the size of
  // the body a GET would get and sends none.
  void content_length(std::size_t n) { content_length_ = n; }

  // The bytes on the wire: status line, fields, Content-Length and Connection as the
  // status and keep-alive call for, then the body.
  void serialize(std::string& out) const;

 private:
  void set_parts(std::string_view name, std::initializer_list<std::string_view> parts);
  // Removes the line of field `name`, if there is one.
  void erase(std::string_view name);

  status status_ = status::ok;
  unsigned version_ = 11;
  bool keep_alive_ = true;
  std::optional<std::size_t> content_length_;
  std::string fields_;  // "Name: value\r\n" lines
  std::string body_;
};

}  // namespace foyer::http
