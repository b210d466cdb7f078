#include "http/static_files.hpp"

#include <zlib.h>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "http/request_fields.hpp"
#include "http/web_assets.hpp"

namespace foyer::http {
namespace {

namespace bhttp = beast::http;

std::string_view content_type_of(std::string_view path) {
  auto ends = [&](std::string_view ext) { return path.ends_with(ext); };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".json")) return "application/json";
  if (ends(".ico")) return "image/x-icon";
  if (ends(".txt")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

std::string gzip(std::string_view in) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip wrapper rather than zlib's.
  if (deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&zs, in.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return rc == Z_STREAM_END ? out : std::string();
}

}  // namespace

// docs/security.md states the CSP exactly; keep the two alike.
void add_security_headers(response& res) {
  res.set("Content-Security-Policy",
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
          "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
          "form-action 'self'; frame-ancestors 'none'");
  res.set("X-Content-Type-Options", "nosniff");
  res.set("X-Frame-Options", "DENY");
  res.set("Referrer-Policy", "no-referrer");
  res.set("Cross-Origin-Opener-Policy", "same-origin");
}

namespace {

// A coding's weight is zero when its q parameter is: "0", "0.", "0.0" up to "0.000".
bool weighs_nothing(std::string_view params) {
  while (!params.empty()) {
    auto semi = params.find(';');
    auto param = trim_ows(params.substr(0, semi));
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
      auto q = param.substr(2);
      return q.starts_with('0') && q.find_first_not_of("0.") == std::string_view::npos;
    }
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
  }
  return false;
}

}  // namespace

bool accepts_gzip(const request& req) {
  std::optional<bool> gzip;
  std::optional<bool> any;
  for (const auto& field : req) {
    if (field.name() != bhttp::field::accept_encoding) continue;
    std::string_view codings = field.value();
    while (!codings.empty()) {
      auto comma = codings.find(',');
      auto coding = codings.substr(0, comma);
      auto semi = coding.find(';');
      auto name = trim_ows(coding.substr(0, semi));
      bool wanted = semi == std::string_view::npos || !weighs_nothing(coding.substr(semi + 1));
      if (beast::iequals(name, "gzip") || beast::iequals(name, "x-gzip")) {
        gzip = wanted;
      } else if (name == "*") {
        any = wanted;
      }
      codings = comma == std::string_view::npos ? std::string_view() : codings.substr(comma + 1);
    }
  }
  return gzip.value_or(any.value_or(false));
}

static_files::static_files() {
  for (const auto& asset : web_assets()) {
    file f;
    f.body = asset.body;
    f.content_type = content_type_of(asset.path);
    // Appended, not concatenated: GCC 12 at -O3 misreads `"\"" + s + "\""` as an
    // overlapping copy (-Wrestrict), which -Werror builds refuse.
    f.etag = to_hex(byte_view(sha256(as_bytes(asset.body))).first(12));
    f.etag.insert(f.etag.begin(), '"');
    f.etag.push_back('"');
    // Compression pays for text over a kilobyte that shrinks by at least a tenth.
    if (asset.body.size() > 1024 && !f.content_type.starts_with("image/png")) {
      auto z = gzip(asset.body);
      if (!z.empty() && z.size() < asset.body.size() * 9 / 10) f.gzipped = std::move(z);
    }
    files_.emplace(std::string(asset.path), std::move(f));
  }
}

std::optional<response> static_files::serve(const request& req, std::string_view path, bhttp::status status) const {
  auto it = files_.find(std::string(path));
  if (it == files_.end()) return std::nullopt;
  const file& f = it->second;
  response res{status, req.version()};
  res.set(bhttp::field::etag, f.etag);
  // Library files are at paths that name their version (cmake/embed_web.cmake), so they
  // never change. The rest revalidates every time: cheap with the ETag, and a new
  // binary is seen at once.
  res.set(bhttp::field::cache_control,
          path.starts_with("/vendor/") ? "public, max-age=31536000, immutable" : "no-cache");
  res.set(bhttp::field::vary, "Accept-Encoding");
  add_security_headers(res);
  if (auto inm = req.find(bhttp::field::if_none_match);
      status == bhttp::status::ok && inm != req.end() && inm->value() == f.etag) {
    res.result(bhttp::status::not_modified);
    return res;
  }
  res.set(bhttp::field::content_type, f.content_type);
  if (!f.gzipped.empty() && accepts_gzip(req)) {
    res.set(bhttp::field::content_encoding, "gzip");
    res.body() = f.gzipped;
  } else {
    res.body() = std::string(f.body);
  }
  if (req.method() == bhttp::verb::head) {
    res.content_length(res.body().size());
    res.body().clear();
  }
  return res;
}

}  // namespace foyer::http
