#include "store/etcd_client.hpp"

#include <stdexcept>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <fmt/core.h>
#include <simdjson.h>

#include "core/base/bytes.hpp"
#include "core/base/json.hpp"
#include "delivery/tls_client.hpp"

namespace foyer::store::etcd {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

struct endpoint {
  std::string host;
  std::string port;
  bool tls = false;
};

endpoint parse_endpoint(const std::string& url) {
  const bool tls = std::string_view(url).starts_with("https://");
  if (!tls && !std::string_view(url).starts_with("http://")) {
    throw std::invalid_argument(fmt::format("etcd endpoint '{}': expected http://HOST:PORT or https://HOST:PORT", url));
  }
  auto rest = url.substr(tls ? 8 : 7);
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size() || rest.find('/') != std::string::npos) {
    throw std::invalid_argument(fmt::format("etcd endpoint '{}': expected http://HOST:PORT", url));
  }
  auto host = rest.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, rest.substr(colon + 1), tls};
}

std::string b64(std::string_view bytes) { return base64_encode(as_bytes(bytes)); }

std::string decoded(simdjson::dom::element field) {
  std::string_view text;
  if (field.get(text)) return {};
  auto bytes = base64_decode(text);
  return bytes ? std::string(as_chars(*bytes)) : std::string();
}

// The gateway writes 64-bit integers as strings, and leaves out fields that are zero.
std::int64_t number(simdjson::dom::object object, std::string_view name) {
  std::string_view text;
  if (object[name].get(text)) return 0;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::vector<key_value> key_values(simdjson::dom::object holder) {
  std::vector<key_value> out;
  simdjson::dom::array kvs;
  if (holder["kvs"].get(kvs)) return out;
  for (auto kv : kvs) {
    simdjson::dom::object o;
    if (kv.get(o)) continue;
    out.push_back({decoded(o["key"]), decoded(o["value"]), number(o, "create_revision")});
  }
  return out;
}

std::string compares(const std::vector<guard>& guards) {
  std::string out;
  for (const auto& g : guards) {
    if (!out.empty()) out += ',';
    out += g.on == guard::target::create_revision
               ? fmt::format(R"({{"target":"CREATE","key":"{}","create_revision":"{}"}})", b64(g.key), g.value)
               : fmt::format(R"({{"target":"VERSION","key":"{}","version":"{}"}})", b64(g.key), g.value);
  }
  return out;
}

// gRPC codes after which a write may or may not have been applied: cancelled, unknown,
// deadline exceeded, unavailable (etcd's "request timed out" and "leader changed").
bool outcome_unknown(std::int64_t code) { return code == 1 || code == 2 || code == 4 || code == 14; }
// etcd's "invalid auth token": the token lapsed; nothing was applied.
constexpr std::int64_t unauthenticated = 16;
// Refused, nothing applied, because the token predates a change to etcd's users or roles:
// like a lapsed token, it is signed in again (etcd's own client does the same).
constexpr std::string_view old_auth_revision = "etcdserver: revision of auth store is old";

// Verifies etcd's certificate against `ca_file` (or the system's roots), and presents
// this node's own when one is given. Throws std::invalid_argument naming the file.
std::optional<net::ssl::context> tls_context(const std::vector<endpoint>& endpoints, const etcd_access& access) {
  bool any = false;
  for (const auto& e : endpoints) any = any || e.tls;
  if (!any) return std::nullopt;
  std::optional<net::ssl::context> ctx(std::in_place, net::ssl::context::tls_client);
  ctx->set_verify_mode(net::ssl::verify_peer);
  auto load = [](std::string_view what, const std::string& file, auto&& step) {
    boost::system::error_code ec;
    step(ec);
    if (ec) throw std::invalid_argument(fmt::format("etcd {} '{}': {}", what, file, ec.message()));
  };
  if (access.ca_file.empty()) {
    ctx->set_default_verify_paths();
  } else {
    load("CA file", access.ca_file, [&](auto& ec) { ctx->load_verify_file(access.ca_file, ec); });
  }
  if (!access.cert_file.empty()) {
    load("certificate", access.cert_file, [&](auto& ec) { ctx->use_certificate_chain_file(access.cert_file, ec); });
    load("key", access.key_file, [&](auto& ec) { ctx->use_private_key_file(access.key_file, net::ssl::context::pem, ec); });
  }
  return ctx;
}

}  // namespace

void check_endpoint(const std::string& url) { parse_endpoint(url); }

struct client::impl {
  std::vector<endpoint> endpoints;
  etcd_access access;
  std::optional<net::ssl::context> tls;
  std::size_t current = 0;
  std::chrono::milliseconds timeout;
  net::io_context ioc{1};
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;
  std::string token;    // etcd's auth token on this connection
  std::string problem;  // why the last call failed, the same whichever endpoint it was

  void drop() {
    plain.reset();
    secure.reset();
    buffer.clear();
    token.clear();
  }

  bool run_until(bool& done) {
    ioc.restart();
    ioc.run();
    return done;
  }

  bool connect() {
    const auto& at = endpoints[current];
    net::ip::tcp::resolver resolver(ioc);
    boost::system::error_code ec;
    auto found = resolver.resolve(at.host, at.port, ec);
    problem = "no answer";
    if (ec) return false;
    beast::tcp_stream tcp(ioc);
    tcp.expires_after(timeout);
    bool connected = false;
    tcp.async_connect(found, [&](boost::system::error_code e, const auto&) { connected = !e; });
    if (!run_until(connected)) return false;
    if (!at.tls) {
      plain.emplace(std::move(tcp));
    } else {
      secure.emplace(std::move(tcp), *tls);
      if (!delivery::name_tls_peer(*secure, at.host)) {
        problem = fmt::format("TLS: the name '{}' cannot be sent", at.host);
        drop();
        return false;
      }
      bool shaken = false;
      secure->async_handshake(net::ssl::stream_base::client, [&](boost::system::error_code e) {
        shaken = !e;
        if (e) problem = fmt::format("TLS: {}", e.message());
      });
      if (!run_until(shaken)) {
        drop();
        return false;
      }
    }
    if (!access.user.empty() && (!authenticate() || (!plain && !secure))) {
      drop();
      return false;
    }
    return true;
  }

  // A token for this connection's calls, from etcd's user and password.
  bool authenticate() {
    auto res = round_trip("/v3/auth/authenticate",
                          json_object().str("name", access.user).str("password", access.password).done());
    if (!res) return false;
    simdjson::dom::parser parser;
    simdjson::dom::element answer;
    std::string_view found;
    const bool parsed = !parser.parse(res->body()).get(answer);
    if (res->result() != http::status::ok || !parsed || answer["token"].get(found) || found.empty()) {
      std::string_view why = res->body();
      if (parsed && answer["message"].get(why)) why = res->body();
      problem = fmt::format("etcd refused the user '{}': {}", access.user, why);
      return false;
    }
    token = found;
    return true;
  }

  std::optional<http::response<http::string_body>> round_trip(std::string_view path, const std::string& body) {
    http::request<http::string_body> req{http::verb::post, path, 11};
    req.set(http::field::host, endpoints[current].host);
    req.set(http::field::content_type, "application/json");
    if (!token.empty()) req.set(http::field::authorization, token);
    req.keep_alive(true);
    req.body() = body;
    req.prepare_payload();
    http::response_parser<http::string_body> parser;
    parser.body_limit(std::uint64_t{64} << 20);
    bool read = false;
    auto exchange = [&](auto& stream) {
      beast::get_lowest_layer(stream).expires_after(timeout);
      http::async_write(stream, req, [&](boost::system::error_code ec, std::size_t) {
        if (ec) return;
        http::async_read(stream, buffer, parser, [&](boost::system::error_code e, std::size_t) { read = !e; });
      });
    };
    if (secure) {
      exchange(*secure);
    } else {
      exchange(*plain);
    }
    if (!run_until(read)) return std::nullopt;
    auto res = parser.release();
    if (!res.keep_alive()) drop();
    return res;
  }

  // One exchange with the current endpoint; a kept connection etcd closed meanwhile gets
  // one fresh try. After a failure the next call goes to the next endpoint.
  // `sent_before`: whether a failed try may have reached etcd before the answer came.
  std::optional<http::response<http::string_body>> exchange(std::string_view path, const std::string& body,
                                                            bool& sent_before) {
    sent_before = false;
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool fresh = !plain && !secure;
      if (fresh && !connect()) break;
      if (auto res = round_trip(path, body)) return res;
      drop();
      sent_before = true;
      if (fresh) break;
    }
    current = (current + 1) % endpoints.size();
    return std::nullopt;
  }

  reply call(std::string_view path, const std::string& body) {
    reply out;
    bool may_have_landed = false;  // a try was lost on the way: it may have been applied
    for (int attempt = 0; attempt < 2; ++attempt) {
      // A second attempt's answer is the whole answer: a refused first one marks nothing.
      out = reply{};
      bool sent_before = false;
      auto res = exchange(path, body, sent_before);
      may_have_landed = may_have_landed || sent_before;
      if (!res) {
        out.problem = problem;
        return out;
      }
      if (res->result() == http::status::ok) {
        out.answered = true;
        out.body = std::move(res->body());
        return out;
      }
      simdjson::dom::parser parser;
      simdjson::dom::object error;
      std::int64_t code = 0;
      std::string_view message;
      if (!parser.parse(res->body()).get(error) && !error["code"].get(code)) {
        if (error["message"].get(message)) message = "";
        // A refusal tells of its own try only: one lost before it may have been applied.
        out.refused = !outcome_unknown(code) && !may_have_landed;
      }
      out.problem = fmt::format("etcd answered {}: {}", res->result_int(), message.empty() ? res->body() : message);
      problem = out.problem;
      // A lapsed or outdated token: a new connection authenticates again, and the call is
      // made once more.
      if ((code != unauthenticated && message != old_auth_revision) || access.user.empty()) return out;
      drop();
    }
    return out;
  }
};

client::client(const std::vector<std::string>& endpoints, const etcd_access& access, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<impl>()) {
  if (endpoints.empty()) throw std::invalid_argument("no etcd endpoint");
  for (const auto& url : endpoints) impl_->endpoints.push_back(parse_endpoint(url));
  impl_->access = access;
  impl_->tls = tls_context(impl_->endpoints, access);
  impl_->timeout = timeout;
}

client::~client() = default;

std::optional<std::int64_t> client::grant(std::int64_t ttl_seconds) {
  auto r = impl_->call("/v3/lease/grant", fmt::format(R"({{"TTL":"{}"}})", ttl_seconds));
  simdjson::dom::parser parser;
  simdjson::dom::object answer;
  if (!r.answered || parser.parse(r.body).get(answer)) return std::nullopt;
  auto id = number(answer, "ID");
  if (id == 0) return std::nullopt;
  return id;
}

std::optional<std::int64_t> client::keep_alive(std::int64_t lease) {
  auto r = impl_->call("/v3/lease/keepalive", fmt::format(R"({{"ID":"{}"}})", lease));
  simdjson::dom::parser parser;
  simdjson::dom::object result;
  if (!r.answered || parser.parse(r.body)["result"].get(result)) return std::nullopt;
  return number(result, "TTL");
}

void client::revoke(std::int64_t lease) { impl_->call("/v3/lease/revoke", fmt::format(R"({{"ID":"{}"}})", lease)); }

reply client::txn(const std::vector<guard>& guards, const std::string& key, const std::string& value, std::int64_t lease,
                  const std::string& read_on_failure) {
  auto put = fmt::format(R"({{"key":"{}","value":"{}"{}}})", b64(key), b64(value),
                         lease ? fmt::format(R"(,"lease":"{}")", lease) : std::string());
  return impl_->call("/v3/kv/txn",
                     fmt::format(R"({{"compare":[{}],"success":[{{"request_put":{}}}],"failure":[{{"request_range":{{"key":"{}"}}}}]}})",
                                 compares(guards), put, b64(read_on_failure)));
}

reply client::delete_range_if(const std::vector<guard>& guards, const std::string& key, const std::string& range_end) {
  return impl_->call("/v3/kv/txn",
                     fmt::format(R"({{"compare":[{}],"success":[{{"request_delete_range":{{"key":"{}","range_end":"{}"}}}}]}})",
                                 compares(guards), b64(key), b64(range_end)));
}

const std::string& client::last_problem() const { return impl_->problem; }

std::optional<txn_reply> client::parse_txn(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::object answer;
  if (parser.parse(body).get(answer)) return std::nullopt;
  txn_reply out;
  bool succeeded = false;
  out.succeeded = !answer["succeeded"].get(succeeded) && succeeded;
  simdjson::dom::object header;
  if (!answer["header"].get(header)) out.revision = number(header, "revision");
  simdjson::dom::array responses;
  if (!out.succeeded && !answer["responses"].get(responses)) {
    for (auto response : responses) {
      simdjson::dom::object range;
      if (!response["response_range"].get(range)) out.found = key_values(range);
    }
  }
  return out;
}

std::optional<std::vector<key_value>> client::range(const std::string& key, const std::string& range_end,
                                                    std::int64_t limit) {
  auto r = impl_->call("/v3/kv/range", fmt::format(R"({{"key":"{}","range_end":"{}","limit":"{}"}})", b64(key),
                                                  b64(range_end), limit));
  simdjson::dom::parser parser;
  simdjson::dom::object answer;
  if (!r.answered || parser.parse(r.body).get(answer)) return std::nullopt;
  return key_values(answer);
}

}  // namespace foyer::store::etcd
