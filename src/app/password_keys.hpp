#pragma once
// A password in the config file, from the one source given: `PREFIXpassword` (the password
// itself), `PREFIXpassword_file` (a file holding it on one line; a trailing newline is
// dropped) or `PREFIXpassword_env` (the name of an environment variable holding it). Read
// once, at start. Used by [notifications.email] (no prefix) and [cluster] ("etcd_").

#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "app/table_reader.hpp"

namespace foyer::app {

// The password, or "" when none of the keys is given. Throws config_error naming the key:
// more than one source, an unreadable file, an unset variable, an empty password, or one
// with a NUL or a line break (which would end an SMTP command).
std::string read_password(table_reader& t, const toml::table& table, std::string_view prefix = {});

}  // namespace foyer::app
