// foyer: argv -> config -> app.

#include <CLI/CLI.hpp>

#include <iostream>

#include "app/audit_cli.hpp"
#include "app/backup_cli.hpp"
#include "app/config.hpp"
#include "app/guard.hpp"
#include "app/init_cli.hpp"
#include "app/keyring.hpp"
#include "app/log.hpp"
#include "app/lottery_cli.hpp"
#include "app/notify_cli.hpp"
#include "app/serve.hpp"
#include "app/solve_cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Foyer: a fair virtual waiting room in one binary."};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("foyer ") + FOYER_VERSION);

  std::string config_file, listen, data_dir;
  auto* serve = app.add_subcommand("serve", "Run the waiting room server.");
  serve->add_option("--config", config_file, "TOML config file (see config/foyer.toml)")->check(CLI::ExistingFile);
  serve->add_option("--listen", listen, "HOST:PORT to listen on (default 127.0.0.1:8080)");
  serve->add_option("--data-dir", data_dir, "Directory for the log, keys and secret (default ./foyer-data)");

  auto* routes = app.add_subcommand("routes", "Print the HTTP routes, \"METHOD /pattern\" a line, and exit.");

  foyer::app::add_init_command(app);
  foyer::app::add_keygen_command(app);
  foyer::app::add_guard_command(app);
  foyer::app::add_lottery_commands(app);
  foyer::app::add_backup_commands(app);
  foyer::app::add_notify_commands(app);
  foyer::app::add_audit_command(app);
  foyer::app::add_solve_command(app);

  CLI11_PARSE(app, argc, argv);

  if (app.get_subcommands().empty()) {
    std::cout << app.help() << "\nTo try the demo waiting room: foyer serve\n"
              << "To put a room in front of your shop: foyer init --help\n";
    return 1;
  }

  if (routes->parsed() || serve->parsed()) {
    try {
      if (routes->parsed()) {
        for (const auto& line : foyer::app::route_table()) std::cout << line << '\n';
        return 0;
      }
      auto config = config_file.empty() ? foyer::app::embedded_demo_config() : foyer::app::load_config(config_file);
      if (!listen.empty()) {
        foyer::app::check_listen(listen);
        config.listen = listen;
      }
      if (!data_dir.empty()) config.data_dir = data_dir;
      return foyer::app::serve(config, config_file.empty() ? std::nullopt
                                                           : std::optional<std::filesystem::path>(config_file));
    } catch (const std::exception& e) {
      foyer::app::log::error(e.what());
      return 1;
    }
  }
  return 0;
}
