#include "core/gate/network.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace foyer {
namespace {

constexpr std::size_t v4_key_bytes = 3;  // /24
constexpr std::size_t v6_key_bytes = 6;  // /48
constexpr std::uint8_t v4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

// inet_pton needs a NUL-terminated string; anything longer cannot be an address.
constexpr std::size_t max_address_text = 64;

bool is_v4_mapped(const std::uint8_t* v6) {
  return std::equal(std::begin(v4_mapped_prefix), std::end(v4_mapped_prefix), v6);
}

std::optional<ip_address> parse_plain(std::string_view text) {
  if (text.empty() || text.size() >= max_address_text) return std::nullopt;
  char buf[max_address_text] = {};
  std::copy(text.begin(), text.end(), buf);
  ip_address out;
  if (text.find(':') == std::string_view::npos) {
    if (inet_pton(AF_INET, buf, out.bytes.data()) != 1) return std::nullopt;
    out.family = ip_family::v4;
    return out;
  }
  if (inet_pton(AF_INET6, buf, out.bytes.data()) != 1) return std::nullopt;
  return from_v6_bytes(out.bytes);
}

unsigned address_bits(ip_family family) { return family == ip_family::v4 ? 32 : 128; }

// Do the first `bits` bits of a and b agree?
bool same_prefix(const std::array<std::uint8_t, 16>& a, const std::array<std::uint8_t, 16>& b,
                 unsigned bits) {
  unsigned whole = bits / 8;
  if (!std::equal(a.begin(), a.begin() + whole, b.begin())) return false;
  unsigned rest = bits % 8;
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

[[noreturn]] void bad_cidr(std::string_view text, std::string_view problem) {
  throw std::invalid_argument("invalid network \"" + std::string(text) + "\": " + std::string(problem));
}

}  // namespace

ip_address from_v6_bytes(const std::array<std::uint8_t, 16>& bytes) {
  ip_address out;
  if (is_v4_mapped(bytes.data())) {
    std::copy_n(bytes.begin() + 12, 4, out.bytes.begin());
    return out;
  }
  out.family = ip_family::v6;
  out.bytes = bytes;
  return out;
}

std::optional<ip_address> parse_ip(std::string_view text) {
  if (auto zone = text.find('%'); zone != std::string_view::npos && text.find(':') != std::string_view::npos) {
    text = text.substr(0, zone);
  }
  return parse_plain(text);
}

network_key network_of(const ip_address& address) {
  network_key key;
  key.bytes[0] = static_cast<std::uint8_t>(address.family);
  std::size_t n = address.family == ip_family::v4 ? v4_key_bytes : v6_key_bytes;
  std::copy_n(address.bytes.begin(), n, key.bytes.begin() + 1);
  return key;
}

std::string to_string(const network_key& key) {
  ip_address base;
  base.family = static_cast<ip_family>(key.bytes[0]);
  std::copy(key.bytes.begin() + 1, key.bytes.end(), base.bytes.begin());
  char buf[INET6_ADDRSTRLEN] = {};
  bool v4 = base.family == ip_family::v4;
  inet_ntop(v4 ? AF_INET : AF_INET6, base.bytes.data(), buf, sizeof buf);
  return std::string(buf) + (v4 ? "/24" : "/48");
}

namespace {

// One X-Forwarded-For entry: an address, optionally with a port, IPv6 then in brackets.
std::optional<ip_address> parse_forwarded_entry(std::string_view entry) {
  while (!entry.empty() && (entry.front() == ' ' || entry.front() == '\t')) entry.remove_prefix(1);
  while (!entry.empty() && (entry.back() == ' ' || entry.back() == '\t')) entry.remove_suffix(1);
  if (entry.starts_with('[')) {
    auto close = entry.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    auto rest = entry.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return std::nullopt;
    return parse_ip(entry.substr(1, close - 1));
  }
  // One colon is an IPv4 address with a port; more are a bare IPv6 address.
  if (auto colon = entry.find(':'); colon != std::string_view::npos && entry.find(':', colon + 1) == std::string_view::npos) {
    entry = entry.substr(0, colon);
  }
  return parse_ip(entry);
}

bool is_trusted(const ip_address& address, const std::vector<cidr>& trusted_proxies) {
  return std::any_of(trusted_proxies.begin(), trusted_proxies.end(),
                     [&](const cidr& range) { return range.contains(address); });
}

}  // namespace

ip_address forwarded_client(const ip_address& peer, std::string_view forwarded_for,
                            const std::vector<cidr>& trusted_proxies) {
  ip_address client = peer;
  while (is_trusted(client, trusted_proxies) && !forwarded_for.empty()) {
    auto comma = forwarded_for.rfind(',');
    auto entry = comma == std::string_view::npos ? forwarded_for : forwarded_for.substr(comma + 1);
    forwarded_for = comma == std::string_view::npos ? std::string_view() : forwarded_for.substr(0, comma);
    auto hop = parse_forwarded_entry(entry);
    if (!hop) break;
    client = *hop;
  }
  return client;
}

bool cidr::contains(const ip_address& address) const {
  return address.family == base.family && same_prefix(address.bytes, base.bytes, prefix_length);
}

cidr parse_cidr(std::string_view text) {
  auto slash = text.find('/');
  if (slash == std::string_view::npos) bad_cidr(text, "expected address/prefix-length");
  auto address_text = text.substr(0, slash);
  auto length_text = text.substr(slash + 1);
  if (address_text.find('%') != std::string_view::npos) bad_cidr(text, "zone suffixes are not allowed");
  auto address = parse_plain(address_text);
  if (!address) bad_cidr(text, "not an IPv4 or IPv6 address");
  if (address->family == ip_family::v4 && address_text.find(':') != std::string_view::npos) {
    bad_cidr(text, "write IPv4-mapped networks in IPv4 form (clients are matched as IPv4)");
  }
  unsigned length = 0;
  auto [end, ec] = std::from_chars(length_text.data(), length_text.data() + length_text.size(), length);
  if (ec != std::errc() || end != length_text.data() + length_text.size() || length_text.empty()) {
    bad_cidr(text, "prefix length is not a number");
  }
  if (length > address_bits(address->family)) {
    bad_cidr(text, address->family == ip_family::v4 ? "prefix length above 32" : "prefix length above 128");
  }
  // A set host bit is most likely a typo for another network; refuse it rather than guess.
  for (unsigned bit = length; bit < address_bits(address->family); ++bit) {
    if (address->bytes[bit / 8] & (0x80 >> (bit % 8))) bad_cidr(text, "host bits are set after the prefix");
  }
  return cidr{*address, static_cast<std::uint8_t>(length)};
}

void network_rules::add(std::string_view cidr_text, std::uint32_t extra_bits) {
  cidr range = parse_cidr(cidr_text);
  for (const auto& r : rules_) {
    if (r.range.base == range.base && r.range.prefix_length == range.prefix_length) {
      bad_cidr(cidr_text, "listed twice");
    }
  }
  auto at = std::find_if(rules_.begin(), rules_.end(),
                         [&](const rule& r) { return r.range.prefix_length < range.prefix_length; });
  rules_.insert(at, rule{range, extra_bits});
}

std::uint32_t network_rules::extra_bits(const ip_address& address) const {
  for (const auto& r : rules_) {
    if (r.range.contains(address)) return r.extra_bits;
  }
  return 0;
}

bool loopback_name(std::string_view host) {
  if (host.ends_with('.')) host.remove_suffix(1);
  constexpr std::string_view name = "localhost";
  if (host.size() < name.size()) return false;
  auto tail = host.substr(host.size() - name.size());
  bool named = std::equal(tail.begin(), tail.end(), name.begin(),
                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return named && (host.size() == name.size() || host[host.size() - name.size() - 1] == '.');
}

bool loopback_or_private(std::string_view host) {
  if (loopback_name(host)) return true;
  auto address = parse_ip(host);
  if (!address) return false;
  for (const char* range : {"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "::1/128", "fc00::/7"}) {
    if (parse_cidr(range).contains(*address)) return true;
  }
  return false;
}

bool public_address(const ip_address& address) {
  static const std::vector<cidr> special = [] {
    std::vector<cidr> out;
    for (const char* range : {"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
                              "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
                              "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/3", "::/96",
                              "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32",
                              "2002::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8"}) {
      out.push_back(parse_cidr(range));
    }
    return out;
  }();
  return std::none_of(special.begin(), special.end(), [&](const cidr& range) { return range.contains(address); });
}

}  // namespace foyer
