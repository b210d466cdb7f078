#pragma once
// Client networks for proof-of-work pricing: the /24 or /48 a client joins from,
// and operator-listed CIDR ranges with fixed extra difficulty.
//
// Pure: parses text with inet_pton and touches no socket.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foyer {

enum class ip_family : std::uint8_t { v4 = 4, v6 = 6 };

// An address as the server saw it. IPv4-mapped IPv6 (::ffff:a.b.c.d) is stored as
// IPv4, so a dual-stack socket and a plain IPv4 socket price a client alike.
struct ip_address {
  ip_family family = ip_family::v4;
  std::array<std::uint8_t, 16> bytes{};  // network order; IPv4 uses the first 4

  friend bool operator==(const ip_address&, const ip_address&) = default;
};

// Accepts dotted IPv4 and any RFC 4291 IPv6 text, optionally with a zone suffix
// ("fe80::1%eth0", dropped). Nothing else: no brackets, no ports.
std::optional<ip_address> parse_ip(std::string_view text);
// An IPv6 address from its 16 bytes; an IPv4-mapped one becomes IPv4, as in parse_ip.
ip_address from_v6_bytes(const std::array<std::uint8_t, 16>& bytes);

// The network a client is counted and priced by: IPv4 /24, IPv6 /48 (one site).
// Fixed width so it can sit under a MAC as is: byte 0 is the family (4 or 6),
// bytes 1..6 the prefix, an IPv4 /24 zero-padded.
struct network_key {
  static constexpr std::size_t size = 7;
  std::array<std::uint8_t, size> bytes{};

  friend bool operator==(const network_key&, const network_key&) = default;
};

network_key network_of(const ip_address& address);

// "203.0.113.0/24" or "2001:db8:1::/48", for logs and metrics.
std::string to_string(const network_key& key);

struct cidr {
  ip_address base;  // host bits are zero
  std::uint8_t prefix_length = 0;

  bool contains(const ip_address& address) const;
};

// Parses "203.0.113.0/24" or "2001:db8::/32". Throws std::invalid_argument with a
// message that quotes the text and names the problem (no slash, bad address,
// prefix out of range, host bits set, IPv4-mapped form). Meant for config loading.
cidr parse_cidr(std::string_view text);

// Whether `host` is "localhost" or a name under it ("app.localhost", any case, a trailing dot
// allowed). RFC 6761 §6.3: such names are loopback and are never asked of DNS, so they mean
// the same on every machine, /etc/hosts or not.
bool loopback_name(std::string_view host);

// Whether plain http:// to `host` stays on this machine or a private network:
// a loopback name, or an address in 127.0.0.0/8, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, ::1 or fc00::/7.
// Any other name is not: what it resolves to can change.
bool loopback_or_private(std::string_view host);

// Whether an address is one on the public internet: not loopback, private (RFC 1918, fc00::/7,
// 100.64.0.0/10), link-local, unspecified, multicast, reserved or documentation, nor an IPv6
// form that carries an IPv4 address a router may map to one of those (NAT64, 6to4, Teredo).
// What a request a visitor can aim (a push endpoint) may reach after resolving its name.
bool public_address(const ip_address& address);

// The client behind trusted proxies (a CDN, a load balancer). `forwarded_for` is the
// X-Forwarded-For list, each hop appending the address it received from. Walking it from
// the right, every entry added by a trusted proxy is passed over; the first address a
// trusted proxy did not vouch for is the client. Entries may carry a port
// ("203.0.113.7:443", "[2001:db8::7]:443"). With `peer` untrusted, or an entry that is
// not an address, the walk stops at the last address known good: a client cannot
// choose who it is counted as by sending the header itself.
ip_address forwarded_client(const ip_address& peer, std::string_view forwarded_for,
                            const std::vector<cidr>& trusted_proxies);

// Operator-listed networks with fixed extra difficulty bits. The most specific
// matching range wins, so a narrow entry with 0 bits can exempt part of a wide one.
class network_rules {
 public:
  // Throws std::invalid_argument as parse_cidr does, or when the range is listed twice.
  void add(std::string_view cidr_text, std::uint32_t extra_bits);

  // 0 when no range matches. Linear in the number of entries (an operator's
  // short list), no allocation.
  std::uint32_t extra_bits(const ip_address& address) const;

  std::size_t size() const { return rules_.size(); }

 private:
  struct rule {
    cidr range;
    std::uint32_t extra_bits;
  };
  std::vector<rule> rules_;  // most specific first
};

}  // namespace foyer
