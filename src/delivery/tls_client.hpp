#pragma once
// The TLS rules of every outbound call (the sinks' webhooks, the guard's keys, and the
// store's etcd client in cluster mode): the system's trusted roots, and a certificate for
// the host the URL names.

#include <string>

#include <openssl/ssl.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>

namespace foyer::delivery {

// A client context that checks the peer's certificate against the system's roots.
inline boost::asio::ssl::context verifying_client_context() {
  boost::asio::ssl::context context(boost::asio::ssl::context::tls_client);
  context.set_default_verify_paths();
  context.set_verify_mode(boost::asio::ssl::verify_peer);
  return context;
}

// Names `host` to the peer by SNI (never an address: RFC 6066 forbids it), and requires the
// certificate to be for that host or address. False if OpenSSL refused the name.
template <typename SslStream>
bool name_tls_peer(SslStream& stream, const std::string& host) {
  boost::system::error_code not_address;
  boost::asio::ip::make_address(host, not_address);
  if (not_address && !SSL_set_tlsext_host_name(stream.native_handle(), host.c_str())) return false;
  stream.set_verify_callback(boost::asio::ssl::host_name_verification(host));
  return true;
}

}  // namespace foyer::delivery
