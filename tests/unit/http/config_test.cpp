// The config loader's refusals of numbers, from text (app/config.cpp). Runs in the server's
// test binary, which links the loader; the sanitized build makes the float case exact.
#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>

#include <fmt/core.h>

#include "app/config.hpp"
#include "core/ops/cores.hpp"

using namespace foyer;

TEST_CASE("a float where a whole number belongs is refused, however large") {
  // 1e105 overflowed toml++'s float-to-integer conversion (undefined behaviour), found by
  // the config fuzz target (tests/fuzz/corpus/config/float-beyond-int64-as-integer).
  for (const char* value : {"1e105", "-1e105", "2.5", "500.0", "nan", "inf"}) {
    INFO(value);
    CHECK_THROWS_WITH(app::parse_config(std::string("[server]\nheader_timeout_ms = ") + value + "\n", "t.toml"),
                      Catch::Contains("config: server.header_timeout_ms: must be a whole number from"));
  }
  CHECK(app::parse_config("[server]\nheader_timeout_ms = 5000\n", "t.toml").limits.header_timeout.count() == 5000);
}

TEST_CASE("text that is not TOML names the source, line and column") {
  CHECK_THROWS_WITH(app::parse_config("[server\n", "t.toml"), Catch::StartsWith("config: t.toml:1:"));
}

TEST_CASE("a room's opens_at_in_past takes \"accept\" only, and is no room setting") {
  auto c = app::parse_config(
      "[[rooms]]\nid = \"a\"\ntarget_url = \"/go\"\nopens_at = 2020-01-01T00:00:00Z\nopens_at_in_past = \"accept\"\n"
      "[[rooms]]\nid = \"b\"\ntarget_url = \"/go\"\n",
      "t.toml");
  CHECK(c.past_opening_accepted == std::set<std::string>{"a"});
  CHECK_THROWS_WITH(app::parse_config("[[rooms]]\nid = \"a\"\ntarget_url = \"/go\"\nopens_at_in_past = true\n", "t.toml"),
                    Catch::Contains("config: rooms[0].opens_at_in_past: must be \"accept\""));
}

TEST_CASE("the embedded demo has fresh admin and site tokens; a config file has none unless it says so") {
  auto demo = app::embedded_demo_config();
  CHECK(demo.api.admin_token.size() >= 32);
  CHECK(demo.api.site_token.size() >= 32);
  CHECK(demo.api.admin_token != demo.api.site_token);
  CHECK(app::embedded_demo_config().api.admin_token != demo.api.admin_token);
  auto file = app::parse_config("[server]\nlisten = \"127.0.0.1:8080\"\n", "t.toml");
  CHECK(file.api.admin_token.empty());
  CHECK(file.api.site_token.empty());
}

TEST_CASE("a sink URL with a control character is refused with the field named") {
  constexpr const char* secret = "whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
  for (const char* url : {R"(https://hooks.example.com/foyer\r\nX-Injected: 1)", R"(http://127.0.0.1/a\u0000b)",
                          "https://hooks.example.com/a b"}) {
    INFO(url);
    auto text = fmt::format("[[sinks]]\ntype = \"webhook\"\nurl = \"{}\"\nsecret = \"{}\"\n", url, secret);
    CHECK_THROWS_WITH(app::parse_config(text, "t.toml"), Catch::Contains("config: sinks[0].url: must be an http://"));
  }
}

TEST_CASE("the limits on a chunked body and on the kept answer buffer are read from [server]") {
  auto c = app::parse_config("[server]\nmax_trailer_bytes = 512\nmax_chunk_line_bytes = 128\nkept_answer_buffer_bytes = 2048\n",
                             "t.toml");
  CHECK(c.limits.trailer_limit == 512);
  CHECK(c.limits.chunk_line_limit == 128);
  CHECK(c.limits.kept_answer_buffer == 2048);
  CHECK_THROWS_WITH(app::parse_config("[server]\nmax_trailer_bytes = 1\n", "t.toml"),
                    Catch::Contains("config: server.max_trailer_bytes: must be a whole number from 64"));
}

TEST_CASE("I/O threads and their queue to the loop are read from [server]; by default as many threads as the usable cores call for") {
  CHECK(app::parse_config("[server]\nio_threads = 3\n", "t.toml").limits.io_threads == 3);
  CHECK(app::parse_config("[server]\nio_threads = 0\n", "t.toml").limits.io_threads == 0);
  auto cores = app::usable_cores();
  CHECK(cores >= 1);
  CHECK(cores <= std::max(1u, std::thread::hardware_concurrency()));
  CHECK(app::parse_config("", "t.toml").limits.io_threads == foyer::ops::default_io_threads(cores));
  CHECK(app::parse_config("", "t.toml").limits.loop_queue == 1024);
  CHECK(app::parse_config("[server]\nloop_queue = 8\n", "t.toml").limits.loop_queue == 8);
  CHECK_THROWS_WITH(app::parse_config("[server]\nloop_queue = 0\n", "t.toml"),
                    Catch::Contains("config: server.loop_queue: must be a whole number from 1 to 1000000"));
  CHECK_THROWS_WITH(app::parse_config("[server]\nio_threads = 65\n", "t.toml"),
                    Catch::Contains("config: server.io_threads: must be a whole number from 0 to 64"));
}

TEST_CASE("the ledger's witnesses are bounded so that their cosigned checkpoint fits one ledger entry") {
  std::string many = "[ledger]\nwitnesses = [";
  for (int i = 0; i < 17; ++i) many += "{ name = \"w\", vkey = \"v\", url = \"http://127.0.0.1\" },";
  many += "]\n";
  CHECK_THROWS_WITH(app::parse_config(many, "t.toml"), Catch::Contains("ledger.witnesses: lists at most 16 witnesses"));
  CHECK_THROWS_WITH(app::parse_config("[ledger]\norigin = \"" + std::string(256, 'o') + "\"\n", "t.toml"),
                    Catch::Contains("ledger.origin: must be at most 255 bytes"));
  CHECK_THROWS_WITH(app::parse_config("[ledger]\nwitnesses = [{ name = \"" + std::string(129, 'n') +
                                          "\", vkey = \"v\", url = \"http://127.0.0.1\" }]\n",
                                      "t.toml"),
                    Catch::Contains("name: must be at most 128 bytes"));
}

TEST_CASE("[cluster] turns on replicated mode; without it a node is alone") {
  CHECK_FALSE(app::parse_config("", "t.toml").cluster);
  const std::string good =
      "[cluster]\netcd = [\"http://127.0.0.1:2379\", \"http://[::1]:2379\"]\nnode_id = \"a-1\"\n"
      "secrets_dir = \"/etc/foyer/shared\"\n";
  auto c = app::parse_config(good, "t.toml");
  REQUIRE(c.cluster);
  CHECK(c.cluster->settings.etcd.size() == 2);
  CHECK(c.cluster->settings.node_id == "a-1");
  CHECK(c.cluster->settings.prefix == "/foyer");
  CHECK(c.cluster->settings.lease_ttl_seconds == 2);
  CHECK(c.cluster->secrets_dir == "/etc/foyer/shared");
  CHECK(c.cluster->settings.retained_entries == 20000);
  CHECK(app::parse_config(good + "retained_entries = 1\n", "t.toml").cluster->settings.retained_entries == 1);
  auto refused = [](const std::string& text, const std::string& message) {
    CHECK_THROWS_WITH(app::parse_config(text, "t.toml"), Catch::Contains(message));
  };
  refused("[cluster]\nnode_id = \"a\"\nsecrets_dir = \"/s\"\n", "config: cluster.etcd: is required");
  refused("[cluster]\netcd = [\"ftp://e:2379\"]\nnode_id = \"a\"\nsecrets_dir = \"/s\"\n",
          "config: cluster.etcd[0]: etcd endpoint 'ftp://e:2379': expected http://HOST:PORT or https://HOST:PORT");
  refused("[cluster]\netcd = [\"http://e\"]\nnode_id = \"a\"\nsecrets_dir = \"/s\"\n", "expected http://HOST:PORT");
  refused("[cluster]\netcd = [\"http://e:1\"]\nnode_id = \"a b\"\nsecrets_dir = \"/s\"\n", "config: cluster.node_id:");
  refused("[cluster]\netcd = [\"http://e:1\"]\nnode_id = \"a\"\n", "config: cluster.secrets_dir: is required");
  refused(good + "prefix = \"/foyer/\"\n", "config: cluster.prefix:");
  refused(good + "lease_ttl_seconds = 1\n", "config: cluster.lease_ttl_seconds: must be a whole number from 2 to 60");
  refused(good + "lease = 2\n", "cluster.lease");
  refused(good + "retained_entries = 0\n", "config: cluster.retained_entries: must be a whole number from 1 to");
}

TEST_CASE("[cluster] reaches etcd over TLS and as an etcd user when asked") {
  const std::string tls = "[cluster]\netcd = [\"https://10.0.0.5:2379\", \"https://e2:2379\"]\nnode_id = \"a\"\n"
                          "secrets_dir = \"/s\"\n";
  auto c = app::parse_config(tls + "etcd_ca_file = \"/ca.pem\"\netcd_cert_file = \"/c.pem\"\netcd_key_file = \"/k.pem\"\n"
                             "etcd_user = \"foyer\"\netcd_password = \"pw\"\n", "t.toml");
  const auto& access = c.cluster->settings.access;
  CHECK(access.ca_file == "/ca.pem");
  CHECK(access.cert_file == "/c.pem");
  CHECK(access.key_file == "/k.pem");
  CHECK(access.user == "foyer");
  CHECK(access.password == "pw");
  // Without any, none: the system's roots verify etcd, and no user is sent.
  const auto plain = app::parse_config(tls, "t.toml").cluster->settings.access;
  CHECK(plain.ca_file.empty());
  CHECK(plain.user.empty());
  auto refused = [](const std::string& text, const std::string& message) {
    CHECK_THROWS_WITH(app::parse_config(text, "t.toml"), Catch::Contains(message));
  };
  refused("[cluster]\netcd = [\"https://e:1\", \"http://f:1\"]\nnode_id = \"a\"\nsecrets_dir = \"/s\"\n",
          "config: cluster.etcd: must be all https:// or all http://");
  refused("[cluster]\netcd = [\"http://e:1\"]\nnode_id = \"a\"\nsecrets_dir = \"/s\"\netcd_ca_file = \"/ca.pem\"\n",
          "config: cluster.etcd_ca_file: needs https:// etcd endpoints");
  refused(tls + "etcd_cert_file = \"/c.pem\"\n", "config: cluster.etcd_key_file: goes with etcd_cert_file and etcd_key_file both");
  refused(tls + "etcd_user = \"foyer\"\n", "config: cluster.etcd_user: goes with a password");
  refused(tls + "etcd_password = \"pw\"\n", "config: cluster.etcd_user: goes with a password");
  refused(tls + "etcd_user = \"u\"\netcd_password = \"pw\"\netcd_password_env = \"X\"\n",
          "config: cluster.etcd_password: give it once: etcd_password, etcd_password_file or etcd_password_env");
  refused(tls + "etcd_user = \"u\"\netcd_password_file = \"/nonexistent/pw\"\n",
          "config: cluster.etcd_password_file: cannot read /nonexistent/pw");
}

TEST_CASE("[server] public_url is an http(s) origin; without it, an issuer that is one, else none") {
  auto c = app::parse_config("[server]\npublic_url = \"https://Queue.example.com:8443/\"\n", "t.toml");
  REQUIRE(c.public_url);
  CHECK(c.public_url->origin() == "https://queue.example.com:8443");
  for (const char* bad : {"queue.example.com", "https://queue.example.com/r/demo", "https://queue.example.com/?x=1"}) {
    INFO(bad);
    CHECK_THROWS_WITH(app::parse_config(fmt::format("[server]\npublic_url = \"{}\"\n", bad), "t.toml"),
                      Catch::Contains("config: server.public_url: must be the http:// or https:// origin"));
  }
  CHECK(app::parse_config("[server]\nissuer = \"https://queue.example.com\"\n", "t.toml").public_url->origin() ==
        "https://queue.example.com");
  CHECK_FALSE(app::parse_config("[server]\nissuer = \"foyer\"\n", "t.toml").public_url);
  CHECK_FALSE(app::embedded_demo_config().public_url);
}
