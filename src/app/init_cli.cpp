#include "app/init_cli.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <vector>

#include <fmt/core.h>

#include "app/config.hpp"
#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "core/base/url.hpp"
#include "core/rooms/opening_check.hpp"

namespace foyer::app {
namespace {

constexpr std::string_view config_name = "foyer.toml";
constexpr std::string_view nginx_name = "foyer-nginx.conf";

// A flag of `foyer init`, what to ask for it, and where its answer goes.
struct question {
  std::string_view flag;
  std::string_view prompt;
  std::string init_answers::*answer;
  bool required;
};

const question questions[] = {
    {"--room", "Room id (a-z, 0-9, '-', '_'; the waiting room is /r/ID)", &init_answers::room, true},
    {"--name", "Room name, as visitors see it", &init_answers::name, true},
    {"--shop-url", "Shop URL admitted visitors go to (its path is guarded), e.g. https://shop.example.com/sale/",
     &init_answers::shop_url, true},
    {"--foyer-url", "Waiting room URL visitors reach, e.g. https://queue.example.com", &init_answers::foyer_url,
     true},
    {"--rate", "Visitors admitted per minute", &init_answers::rate, true},
    {"--opens-at", "Opening time for a lottery, RFC 3339 (empty: first come, first served from now)",
     &init_answers::opens_at, false},
    {"--seats", "Seats that can't be oversold (empty: none)", &init_answers::seats, false},
};

[[noreturn]] void bad_flag(std::string_view flag, std::string_view problem) {
  throw init_error(fmt::format("{}: {}", flag, problem));
}

// The flag a room setting comes from, for messages.
std::string_view flag_of(std::string_view setting) {
  if (setting == "id") return "--room";
  if (setting == "name") return "--name";
  if (setting == "target_url") return "--shop-url";
  if (setting == "rate_per_minute") return "--rate";
  if (setting == "opens_at") return "--opens-at";
  return "--seats";
}

std::int64_t whole_number(std::string_view flag, const std::string& text) {
  std::size_t used = 0;
  std::int64_t n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || n <= 0) {
    bad_flag(flag, fmt::format("'{}' is not a whole number above 0", text));
  }
  return n;
}

room_config room_of(const init_answers& a, std::int64_t now_ms) {
  room_config c;
  auto set = [&](std::string_view key, room_value value) {
    if (auto p = set_room_setting(c, key, value)) bad_flag(flag_of(p->field), p->message);
  };
  set("id", a.room);
  set("name", a.name);
  set("target_url", a.shop_url);
  set("rate_per_minute", whole_number("--rate", a.rate));
  if (!a.opens_at.empty()) set("opens_at", a.opens_at);
  if (!a.seats.empty()) set("inventory.total", whole_number("--seats", a.seats));
  if (auto p = check_room(c)) bad_flag(flag_of(p->field), p->message);
  if (auto p = check_opening(std::nullopt, c.opens_at_ms, now_ms, past_opening::refuse)) {
    bad_flag("--opens-at", p->message);
  }
  return c;
}

http_url url_of(std::string_view flag, const std::string& text) {
  auto url = parse_url(text);
  if (!url) bad_flag(flag, fmt::format("'{}' is not an http:// or https:// URL", text));
  return *url;
}

// nginx's listen line (and, for https, where certbot puts the certificate).
std::string listen_lines(const http_url& url) {
  if (!url.tls) return fmt::format("    listen {};\n", url.port);
  return fmt::format(
      "    listen {} ssl;\n"
      "    # The certificate, e.g. from `certbot certonly --nginx -d {}`.\n"
      "    ssl_certificate /etc/letsencrypt/live/{}/fullchain.pem;\n"
      "    ssl_certificate_key /etc/letsencrypt/live/{}/privkey.pem;\n",
      url.port, url.host, url.host, url.host);
}

// Plain http:// to an https:// host goes to https.
std::string https_redirect(const http_url& url) {
  if (!url.tls) return {};
  return fmt::format("server {{\n    listen 80;\n    server_name {};\n    return 301 https://$host$request_uri;\n}}\n\n",
                     url.host);
}

std::string nginx_conf(const init_answers& a, const room_config& room, const http_url& foyer, const http_url& shop,
                       std::string_view shop_path) {
  // The same location twice is an nginx error: a guarded "/" is the whole shop.
  std::string open_shop = shop_path == "/" ? std::string()
                                           : fmt::format(
                                                 "    # Open to all: the front page, images, styles.\n"
                                                 "    location / {{\n"
                                                 "        proxy_pass http://foyer_shop_{0};\n"
                                                 "    }}\n\n",
                                                 room.id);
  return fmt::format(
      "# Written by `foyer init` for the room '{id}'. Include it in nginx's http {{}} block, e.g.\n"
      "#   cp {file} /etc/nginx/conf.d/foyer-{id}.conf && nginx -t && systemctl reload nginx\n"
      "# The waiting room: {foyer_url}, served by `foyer serve` on {listen}.\n"
      "# The shop: {shop_url}, its own server on {backend}; only visitors with a\n"
      "# pass reach {shop_path}, checked by `foyer guard` on {guard}.\n"
      "# /metrics is served to this machine only (127.0.0.1 and ::1; everyone else gets 403):\n"
      "# scrape it here, or from Foyer's own {listen}. The console (/admin) and the admin API\n"
      "# answer only with the admin token.\n"
      "\n"
      "{redirects}"
      "upstream foyer_{id} {{\n    server {listen};\n    keepalive 32;\n}}\n\n"
      "upstream foyer_guard_{id} {{\n    server {guard};\n    keepalive 32;\n}}\n\n"
      "upstream foyer_shop_{id} {{\n    server {backend};\n    keepalive 32;\n}}\n\n"
      "# The waiting room.\n"
      "server {{\n"
      "{foyer_listen}"
      "    server_name {foyer_host};\n\n"
      "    proxy_http_version 1.1;\n"
      "    proxy_set_header Connection \"\";\n"
      "    proxy_set_header Host $host;\n"
      "    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n\n"
      "    location / {{\n"
      "        proxy_pass http://foyer_{id};\n"
      "    }}\n\n"
      "    # The server's metrics name its rooms, rates and load: for this machine only. Every\n"
      "    # path starting /metrics once nginx has decoded it (/metrics/, //metrics, /%6Detrics).\n"
      "    location ^~ /metrics {{\n"
      "        allow 127.0.0.1;\n"
      "        allow ::1;\n"
      "        deny all;\n"
      "        proxy_pass http://foyer_{id};\n"
      "    }}\n"
      "}}\n\n"
      "# The shop: {shop_path} only with a pass.\n"
      "server {{\n"
      "{shop_listen}"
      "    server_name {shop_host};\n\n"
      "    proxy_http_version 1.1;\n"
      "    proxy_set_header Connection \"\";\n"
      "    proxy_set_header Host $host;\n\n"
      "{open_shop}"
      "    location {shop_path} {{\n"
      "        auth_request /.foyer/auth;\n"
      "        error_page 401 = @foyer_enter;\n"
      "        # The visitor id (the pass's sub) for the shop; a client's own header is replaced.\n"
      "        auth_request_set $foyer_visitor $upstream_http_x_foyer_visitor;\n"
      "        proxy_set_header X-Foyer-Visitor $foyer_visitor;\n"
      "        # Set here again: nginx inherits none once a location sets one.\n"
      "        proxy_set_header Connection \"\";\n"
      "        proxy_set_header Host $host;\n"
      "        proxy_pass http://foyer_shop_{id};\n"
      "    }}\n\n"
      "    # The pass check, asked before every guarded request. Only headers go to the guard.\n"
      "    location = /.foyer/auth {{\n"
      "        internal;\n"
      "        proxy_pass http://foyer_guard_{id}/auth;\n"
      "        proxy_set_header Connection \"\";\n"
      "        proxy_pass_request_body off;\n"
      "        proxy_set_header Content-Length \"\";\n"
      "        proxy_set_header X-Original-URI $request_uri;\n"
      "    }}\n\n"
      "    # Refused requests end here: a URL with ?foyer_pass=<pass> (where the waiting room sends\n"
      "    # admitted visitors) gets the pass as a cookie; anyone else goes to the waiting room.\n"
      "    location @foyer_enter {{\n"
      "        rewrite ^ /enter break;\n"
      "        proxy_pass http://foyer_guard_{id};\n"
      "        proxy_set_header Connection \"\";\n"
      "        proxy_pass_request_body off;\n"
      "        proxy_set_header Content-Length \"\";\n"
      "        proxy_set_header X-Original-URI $request_uri;\n"
      "    }}\n"
      "}}\n",
      fmt::arg("id", room.id), fmt::arg("file", nginx_name), fmt::arg("foyer_url", a.foyer_url),
      fmt::arg("listen", a.listen), fmt::arg("shop_url", a.shop_url), fmt::arg("backend", a.shop_backend),
      fmt::arg("guard", a.guard_listen), fmt::arg("foyer_listen", listen_lines(foyer)),
      fmt::arg("foyer_host", foyer.host), fmt::arg("shop_listen", listen_lines(shop)), fmt::arg("shop_host", shop.host),
      fmt::arg("shop_path", shop_path), fmt::arg("open_shop", open_shop),
      fmt::arg("redirects", https_redirect(foyer) + https_redirect(shop)));
}

std::string config_toml(const init_answers& a, const init_secrets& s, const room_config& room,
                        const std::string& issuer, bool https) {
  std::string text = fmt::format(
      "# Written by `foyer init`: one room in front of {shop}\n"
      "# Every setting and its default: config/foyer.toml in Foyer's source, and its README.\n"
      "# Keep this file private: it holds the tokens.\n"
      "\n"
      "[server]\n"
      "listen = {listen}\n"
      "data_dir = {data_dir}\n"
      "# The `iss` of every pass: `foyer guard --issuer` says the same, and\n"
      "# /.well-known/foyer.json publishes it.\n"
      "issuer = {issuer}\n"
      "# Where visitors reach the waiting room: every link Foyer makes (resume links, their QR\n"
      "# codes, notices, /.well-known/foyer.json) starts here, whatever Host a request names.\n"
      "public_url = {issuer}\n"
      "# The console ({console}) and /api/v1/admin/...\n"
      "admin_token = {admin}\n"
      "# The shop's server confirms and releases held seats, and reports stock and finished\n"
      "# passes, with this bearer token.\n"
      "site_token = {site}\n"
      "# The shop signs account hints with it: one entry per account (README: \"One entry per\n"
      "# visitor, one per account\").\n"
      "account_hint_secret = {hint}\n"
      "secure_cookies = {secure}\n"
      "# nginx on this machine passes the visitor's own address on.\n"
      "trusted_proxies = [\"127.0.0.1/32\", \"::1/128\"]\n"
      "\n"
      "[[rooms]]\n"
      "id = {id}\n"
      "name = {name}\n"
      "rate_per_minute = {rate}\n"
      "target_url = {shop_quoted}\n",
      fmt::arg("shop", a.shop_url), fmt::arg("listen", json_quote(a.listen)),
      fmt::arg("data_dir", json_quote(a.data_dir)), fmt::arg("issuer", json_quote(issuer)),
      fmt::arg("console", issuer + "/admin"), fmt::arg("admin", json_quote(s.admin_token)),
      fmt::arg("site", json_quote(s.site_token)), fmt::arg("hint", json_quote(s.account_hint_secret)),
      fmt::arg("secure", https ? "true" : "false"), fmt::arg("id", json_quote(room.id)),
      fmt::arg("name", json_quote(room.name)), fmt::arg("rate", room.rate_per_minute),
      fmt::arg("shop_quoted", json_quote(room.target_url)));
  if (room.opens_at_ms) {
    text += fmt::format(
        "# The lottery: everyone who joins before this is drawn in a verifiable random order.\n"
        "opens_at = {}\n",
        format_rfc3339_ms(*room.opens_at_ms));
  }
  if (room.inventory) {
    text += fmt::format(
        "# Seats that can't be oversold: admission follows them (README: \"Holds\").\n"
        "[rooms.inventory]\n"
        "total = {}\n",
        room.inventory->total);
  }
  return text;
}

// `text` as one shell word.
std::string shell_word(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "-_./:=@%+,") == std::string::npos) {
    return text;
  }
  std::string quoted = "'";
  for (char ch : text) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return quoted + "'";
}

}  // namespace

init_output plan_init(const init_answers& a, const init_secrets& s, std::int64_t now_ms) {
  auto room = room_of(a, now_ms);
  auto shop = url_of("--shop-url", a.shop_url);
  auto foyer = url_of("--foyer-url", a.foyer_url);
  if (foyer.target != "/") {
    bad_flag("--foyer-url", "must be the root of its host (the waiting room's pages are at /r/..., /js/...), e.g. "
                            "https://queue.example.com");
  }
  if (foyer.host == shop.host && foyer.port == shop.port) {
    bad_flag("--foyer-url", fmt::format("needs its own host name (or port) apart from the shop's ({}), e.g. "
                                        "queue.example.com beside shop.example.com",
                                        shop.authority));
  }
  auto shop_path = shop.target.substr(0, shop.target.find('?'));
  for (const auto& [flag, value] : {std::pair{"--listen", a.listen}, std::pair{"--guard-listen", a.guard_listen},
                                    std::pair{"--shop-backend", a.shop_backend}}) {
    try {
      check_listen(value);
    } catch (const config_error& e) {
      bad_flag(flag, e.what());
    }
  }
  auto issuer = fmt::format("{}://{}", foyer.tls ? "https" : "http", foyer.authority);
  init_output out;
  out.issuer = issuer;
  out.config_toml = config_toml(a, s, room, issuer, foyer.tls);
  out.nginx_conf = nginx_conf(a, room, foyer, shop, shop_path);
  out.guard_command = fmt::format("foyer guard --jwks {} --listen {} --room {} --issuer {} --login-url {}{}",
                                  shell_word(fmt::format("http://{}/.well-known/jwks.json", a.listen)),
                                  shell_word(a.guard_listen), shell_word(room.id), shell_word(issuer),
                                  shell_word(fmt::format("{}/r/{}", issuer, room.id)),
                                  shop.tls ? " --secure-cookie" : "");
  return out;
}

namespace {

// Writes a new file; throws if it exists or cannot be written.
void write_new(const std::filesystem::path& path, const std::string& text, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) throw init_error(fmt::format("{}: cannot be created: {}", path.string(), std::strerror(errno)));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw init_error(fmt::format("{}: cannot be written", path.string()));
}

// Fills the missing answers from the terminal, or names them all when there is none.
void ask_for_missing(init_answers& a) {
  bool interactive = ::isatty(STDIN_FILENO) != 0;
  std::vector<std::string_view> missing;
  bool asked = false;
  for (const auto& q : questions) {
    auto& answer = a.*q.answer;
    if (!answer.empty() || (!q.required && !asked)) continue;
    if (!interactive) {
      if (q.required) missing.push_back(q.flag);
      continue;
    }
    std::cout << q.prompt << ": " << std::flush;
    std::getline(std::cin, answer);
    asked = true;
    if (answer.empty() && q.required) throw init_error(fmt::format("{} is required", q.flag));
  }
  if (!missing.empty()) {
    std::string names;
    for (auto flag : missing) names += fmt::format("{}{}", names.empty() ? "" : ", ", flag);
    throw init_error(fmt::format("missing {} (stdin is not a terminal to ask on: give them as flags)", names));
  }
}

void run_init(init_answers a, const std::filesystem::path& dir) {
  ask_for_missing(a);
  auto config_path = dir / config_name;
  auto nginx_path = dir / nginx_name;
  for (const auto& path : {config_path, nginx_path}) {
    if (std::filesystem::exists(path)) {
      throw init_error(fmt::format("{} exists: nothing was written (move it away, or choose another --dir)",
                                   path.string()));
    }
  }
  std::filesystem::create_directories(dir);
  if (a.data_dir == init_answers{}.data_dir) a.data_dir = (std::filesystem::absolute(dir) / a.data_dir).string();
  auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  auto out = plan_init(a, {random_token(), random_token(), random_token()}, now_ms);
  write_new(config_path, out.config_toml, 0600);
  write_new(nginx_path, out.nginx_conf, 0644);
  fmt::print(
      "Wrote {config} (the server's settings and tokens: keep it private)\n"
      "  and {nginx} (nginx in front of the waiting room and the shop).\n"
      "\n"
      "Next:\n"
      "1. Start the waiting room:\n"
      "     foyer serve --config {config}\n"
      "   It answers at http://{listen}/r/{room}; http://{listen}/.well-known/foyer.json\n"
      "   shows the issuer ({issuer}) and the room.\n"
      "2. Start the guard beside it: nginx asks it about every request to the shop's guarded path:\n"
      "     {guard}\n"
      "3. Put nginx in front (point the DNS of both hosts here first):\n"
      "     cp {nginx} /etc/nginx/conf.d/foyer-{room}.conf && nginx -t && systemctl reload nginx\n"
      "4. Send visitors to {foyer_url}/r/{room}: once admitted they reach\n"
      "   {shop_url} with a pass; without one nginx sends them to the waiting room.\n"
      "5. Watch and steer the sale at {foyer_url}/admin with admin_token from {config}.\n"
      "   The shop's server uses site_token from the same file (README: \"Holds\").\n",
      fmt::arg("config", config_path.string()), fmt::arg("nginx", nginx_path.string()),
      fmt::arg("listen", a.listen), fmt::arg("room", a.room), fmt::arg("issuer", out.issuer),
      fmt::arg("guard", out.guard_command), fmt::arg("foyer_url", a.foyer_url), fmt::arg("shop_url", a.shop_url));
}

}  // namespace

void add_init_command(CLI::App& app) {
  auto answers = std::make_shared<init_answers>();
  auto dir = std::make_shared<std::string>(".");
  auto* cmd = app.add_subcommand("init", "Write a foyer.toml for one room in front of a shop, an nginx file and "
                                         "the matching `foyer guard` command.");
  for (const auto& q : questions) cmd->add_option(std::string(q.flag), (*answers).*q.answer, std::string(q.prompt));
  cmd->add_option("--dir", *dir, "Where to write foyer.toml and foyer-nginx.conf (default: here)");
  cmd->add_option("--listen", answers->listen, "HOST:PORT foyer serve listens on (default 127.0.0.1:8080)");
  cmd->add_option("--guard-listen", answers->guard_listen, "HOST:PORT foyer guard listens on (default 127.0.0.1:8081)");
  cmd->add_option("--shop-backend", answers->shop_backend,
                  "HOST:PORT of the shop's own server, behind nginx (default 127.0.0.1:3000)");
  cmd->callback([answers, dir] {
    try {
      run_init(*answers, *dir);
    } catch (const std::exception& e) {
      fmt::print(stderr, "foyer init: {}\n", e.what());
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace foyer::app
