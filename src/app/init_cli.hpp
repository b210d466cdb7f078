#pragma once
// `foyer init`: a working foyer.toml for one room in front of a shop, an nginx file that
// puts the waiting room and the guarded shop behind nginx, and the matching `foyer guard`
// command, all agreeing on the issuer, the room (the passes' audience) and the URLs.
//
//   foyer init --room ID --name NAME --shop-url URL --foyer-url URL --rate N
//              [--opens-at RFC3339] [--seats N] [--dir DIR] [--listen HOST:PORT]
//              [--guard-listen HOST:PORT] [--shop-backend HOST:PORT]
//
// A missing required flag is asked for when stdin is a terminal, else named in the error.
// Existing files are never overwritten. What to do next is printed on stdout.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace foyer::app {

struct init_answers {
  std::string room;        // the room's id: /r/{room}, the passes' aud
  std::string name;        // shown on the waiting page
  std::string shop_url;    // where admitted visitors go (target_url); its path is guarded
  std::string foyer_url;   // where visitors reach the waiting room: the issuer too
  std::string rate;        // visitors admitted per minute
  std::string opens_at;    // the lottery opening, RFC 3339; empty: first come, first served
  std::string seats;       // seats that can't be oversold; empty: none
  std::string data_dir = "foyer-data";
  std::string listen = "127.0.0.1:8080";        // foyer serve
  std::string guard_listen = "127.0.0.1:8081";  // foyer guard
  std::string shop_backend = "127.0.0.1:3000";  // the shop's own server, behind nginx
};

// Generated per install; the caller draws them (app: libsodium's CSPRNG).
struct init_secrets {
  std::string admin_token;
  std::string site_token;
  std::string account_hint_secret;
};

struct init_output {
  std::string issuer;  // the foyer URL's origin
  std::string config_toml;
  std::string nginx_conf;
  std::string guard_command;  // one shell line
};

// An answer that cannot make a working room: the message names the flag.
class init_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The files and the command for `answers`, checked by the rooms' own validator (an
// opening must be a minute ahead of `now_ms`). Throws init_error.
init_output plan_init(const init_answers& answers, const init_secrets& secrets, std::int64_t now_ms);

void add_init_command(CLI::App& app);

}  // namespace foyer::app
