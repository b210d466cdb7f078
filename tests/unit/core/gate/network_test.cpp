#include <catch2/catch.hpp>

#include <stdexcept>

#include "core/gate/network.hpp"

using namespace foyer;

namespace {

ip_address ip(std::string_view text) {
  auto a = parse_ip(text);
  REQUIRE(a);
  return *a;
}

std::string cidr_error(std::string_view text) {
  try {
    parse_cidr(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("addresses parse as IPv4 or IPv6, IPv4-mapped counting as IPv4") {
  auto v4 = ip("203.0.113.7");
  CHECK(v4.family == ip_family::v4);
  CHECK(v4.bytes[0] == 203);
  CHECK(v4.bytes[3] == 7);

  auto v6 = ip("2001:db8:1:2::9");
  CHECK(v6.family == ip_family::v6);
  CHECK(v6.bytes[0] == 0x20);
  CHECK(v6.bytes[15] == 9);

  CHECK(ip("::ffff:203.0.113.7") == v4);
  CHECK(ip("::FFFF:cb00:7107") == v4);
  CHECK(ip("fe80::1%eth0") == ip("fe80::1"));
  // The server reads a socket's address as bytes: the same addresses as from text.
  CHECK(from_v6_bytes(v6.bytes) == v6);
  std::array<std::uint8_t, 16> mapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 203, 0, 113, 7};
  CHECK(from_v6_bytes(mapped) == v4);

  for (auto bad : {"", "203.0.113", "203.0.113.7.1", "203.0.113.256", " 203.0.113.7", "203.0.113.7:80",
                   "[2001:db8::1]", "2001:db8::g", "2001:db8:::1", "localhost"}) {
    INFO(bad);
    CHECK_FALSE(parse_ip(bad));
  }
}

TEST_CASE("network keys are the IPv4 /24 or IPv6 /48 as fixed-width bytes") {
  auto k = network_of(ip("203.0.113.7"));
  CHECK(k.bytes == std::array<std::uint8_t, network_key::size>{4, 203, 0, 113, 0, 0, 0});
  CHECK(network_of(ip("203.0.113.250")) == k);
  CHECK(network_of(ip("::ffff:203.0.113.1")) == k);
  CHECK_FALSE(network_of(ip("203.0.114.7")) == k);
  CHECK(to_string(k) == "203.0.113.0/24");

  auto k6 = network_of(ip("2001:db8:abcd:12::1"));
  CHECK(k6.bytes == std::array<std::uint8_t, network_key::size>{6, 0x20, 0x01, 0x0d, 0xb8, 0xab, 0xcd});
  CHECK(network_of(ip("2001:db8:abcd:ffff:ffff::")) == k6);
  CHECK_FALSE(network_of(ip("2001:db8:abce::1")) == k6);
  CHECK(to_string(k6) == "2001:db8:abcd::/48");

  // The family byte keeps an IPv4 /24 apart from an IPv6 /48 that starts with the same bytes.
  CHECK_FALSE(network_of(ip("cb00:7100::1")) == network_of(ip("203.0.113.1")));
}

TEST_CASE("CIDR ranges parse and match") {
  auto r = parse_cidr("203.0.113.0/24");
  CHECK(r.prefix_length == 24);
  CHECK(r.contains(ip("203.0.113.0")));
  CHECK(r.contains(ip("203.0.113.255")));
  CHECK(r.contains(ip("::ffff:203.0.113.9")));
  CHECK_FALSE(r.contains(ip("203.0.112.255")));
  CHECK_FALSE(r.contains(ip("203.0.114.0")));

  auto r6 = parse_cidr("2001:db8::/32");
  CHECK(r6.contains(ip("2001:db8:ffff::1")));
  CHECK_FALSE(r6.contains(ip("2001:db9::1")));
  CHECK_FALSE(r6.contains(ip("32.1.13.184")));  // same leading bytes, other family

  auto odd = parse_cidr("10.128.0.0/9");
  CHECK(odd.contains(ip("10.255.1.1")));
  CHECK_FALSE(odd.contains(ip("10.127.1.1")));

  CHECK(parse_cidr("0.0.0.0/0").contains(ip("198.51.100.1")));
  CHECK_FALSE(parse_cidr("0.0.0.0/0").contains(ip("2001:db8::1")));
  CHECK(parse_cidr("198.51.100.1/32").contains(ip("198.51.100.1")));
  CHECK_FALSE(parse_cidr("198.51.100.1/32").contains(ip("198.51.100.2")));
  CHECK(parse_cidr("2001:db8::1/128").contains(ip("2001:db8::1")));
}

TEST_CASE("CIDR errors quote the text and name the problem") {
  CHECK(cidr_error("203.0.113.0") == "invalid network \"203.0.113.0\": expected address/prefix-length");
  CHECK(cidr_error("203.0.113/24") == "invalid network \"203.0.113/24\": not an IPv4 or IPv6 address");
  CHECK(cidr_error("203.0.113.0/33") == "invalid network \"203.0.113.0/33\": prefix length above 32");
  CHECK(cidr_error("2001:db8::/129") == "invalid network \"2001:db8::/129\": prefix length above 128");
  CHECK(cidr_error("203.0.113.0/") == "invalid network \"203.0.113.0/\": prefix length is not a number");
  CHECK(cidr_error("203.0.113.0/2x") == "invalid network \"203.0.113.0/2x\": prefix length is not a number");
  CHECK(cidr_error("203.0.113.0/-1") == "invalid network \"203.0.113.0/-1\": prefix length is not a number");
  CHECK(cidr_error("203.0.113.7/24") == "invalid network \"203.0.113.7/24\": host bits are set after the prefix");
  CHECK(cidr_error("2001:db8::1/32") == "invalid network \"2001:db8::1/32\": host bits are set after the prefix");
  CHECK(cidr_error("fe80::%eth0/64") == "invalid network \"fe80::%eth0/64\": zone suffixes are not allowed");
  CHECK(cidr_error("::ffff:203.0.113.0/120") ==
        "invalid network \"::ffff:203.0.113.0/120\": write IPv4-mapped networks in IPv4 form "
        "(clients are matched as IPv4)");
}

TEST_CASE("network rules: the most specific range wins, whatever the listing order") {
  network_rules rules;
  rules.add("2001:db8:1::/48", 0);
  rules.add("2001:db8::/32", 4);
  rules.add("198.51.100.0/24", 2);
  rules.add("198.51.0.0/16", 1);
  rules.add("198.51.100.128/25", 3);
  CHECK(rules.size() == 5);

  CHECK(rules.extra_bits(ip("2001:db8:2::1")) == 4);
  CHECK(rules.extra_bits(ip("2001:db8:1::1")) == 0);  // carved out of the /32
  CHECK(rules.extra_bits(ip("2001:db9::1")) == 0);
  CHECK(rules.extra_bits(ip("198.51.100.200")) == 3);
  CHECK(rules.extra_bits(ip("198.51.100.1")) == 2);
  CHECK(rules.extra_bits(ip("198.51.7.1")) == 1);
  CHECK(rules.extra_bits(ip("::ffff:198.51.7.1")) == 1);
  CHECK(rules.extra_bits(ip("192.0.2.1")) == 0);

  CHECK_THROWS_WITH(rules.add("198.51.100.0/24", 5), "invalid network \"198.51.100.0/24\": listed twice");
  CHECK_THROWS_AS(rules.add("nonsense", 1), std::invalid_argument);
  CHECK(rules.size() == 5);
}

TEST_CASE("the client behind trusted proxies is the first hop from the right they did not add") {
  const std::vector<cidr> trusted{parse_cidr("10.0.0.0/8"), parse_cidr("2001:db8:cd::/48")};
  const auto proxy = ip("10.1.2.3");

  SECTION("an untrusted peer is the client, whatever it claims") {
    CHECK(forwarded_client(ip("198.51.100.4"), "203.0.113.7", trusted) == ip("198.51.100.4"));
    CHECK(forwarded_client(proxy, "203.0.113.7", {}) == proxy);
  }
  SECTION("one proxy: the address it received from") {
    CHECK(forwarded_client(proxy, "203.0.113.7", trusted) == ip("203.0.113.7"));
    CHECK(forwarded_client(proxy, " 203.0.113.7 ", trusted) == ip("203.0.113.7"));
  }
  SECTION("a chain of proxies is passed over; what the client wrote itself is not believed") {
    CHECK(forwarded_client(proxy, "192.0.2.66, 203.0.113.7, 10.9.9.9", trusted) == ip("203.0.113.7"));
    CHECK(forwarded_client(ip("2001:db8:cd::1"), "203.0.113.7,10.0.0.5", trusted) == ip("203.0.113.7"));
  }
  SECTION("ports and brackets are taken off") {
    CHECK(forwarded_client(proxy, "203.0.113.7:51234", trusted) == ip("203.0.113.7"));
    CHECK(forwarded_client(proxy, "[2001:db8::7]:443", trusted) == ip("2001:db8::7"));
    CHECK(forwarded_client(proxy, "2001:db8::7", trusted) == ip("2001:db8::7"));
  }
  SECTION("a hop that is not an address ends the walk at the last one known") {
    CHECK(forwarded_client(proxy, "unknown", trusted) == proxy);
    CHECK(forwarded_client(proxy, "203.0.113.7, 10.0.0.9, bogus", trusted) == proxy);
    CHECK(forwarded_client(proxy, "bogus, 10.0.0.9", trusted) == ip("10.0.0.9"));
    CHECK(forwarded_client(proxy, "[2001:db8::7", trusted) == proxy);
    CHECK(forwarded_client(proxy, "", trusted) == proxy);
  }
}

TEST_CASE("plain http stays on loopback or a private network") {
  for (const char* host : {"localhost", "LocalHost.", "app.localhost", "127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255",
                           "192.168.1.1", "::1", "fd00::1"}) {
    INFO(host);
    CHECK(loopback_or_private(host));
  }
  for (const char* host : {"203.0.113.7", "8.8.8.8", "172.32.0.1", "192.169.0.1", "2001:db8::1", "keys.example.com",
                           "localhost.example.com", "notlocalhost", "app.localhost.example", ".", "", "[::1]"}) {
    INFO(host);
    CHECK_FALSE(loopback_or_private(host));
  }
}
