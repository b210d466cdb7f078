#include "http/router.hpp"

#include <algorithm>
#include <stdexcept>

#include <boost/beast/core/string.hpp>
#include <fmt/core.h>

#include "http/problem.hpp"

namespace foyer::http {

task<response> ready(response res) { co_return res; }

namespace {

constexpr router::method_set bit(router::verb v) { return router::method_set{1} << static_cast<unsigned>(v); }
static_assert(static_cast<unsigned>(router::verb::unlink) < 64, "a method_set holds every verb");

// Every body this API reads is JSON, and must say so: `application/json`, parameters
// (`; charset=utf-8`) allowed. One rule for every route; a request without a body needs none.
bool declared_json(const request& req) {
  std::string_view type = req[beast::http::field::content_type];
  type = type.substr(0, type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  return beast::iequals(type, "application/json");
}


}  // namespace

std::string_view route_params::operator[](std::string_view name) const {
  for (std::size_t i = 0; i < size_; ++i) {
    if (items_[i].first == name) return items_[i].second;
  }
  return {};
}

router::path_segments router::split(std::string_view path) {
  path_segments out;
  out.end = path.data() + path.size();
  out.canonical = path == "/" || (path.starts_with('/') && !path.ends_with('/'));
  if (path.starts_with('/')) path.remove_prefix(1);
  while (!path.empty()) {
    auto end = path.find('/');
    auto part = path.substr(0, end);
    path = end == std::string_view::npos ? std::string_view() : path.substr(end + 1);
    if (part.empty()) {
      out.canonical = false;
      continue;
    }
    if (out.size == max_segments) {
      out.fits = false;
      break;
    }
    out.items[out.size++] = part;
  }
  return out;
}

void router::add(std::initializer_list<verb> methods, std::string_view pattern, route_handler handler) {
  auto parts = split(pattern);
  if (!parts.fits || methods.size() == 0) {
    throw std::invalid_argument(fmt::format("route '{}': too many segments or no methods", pattern));
  }
  route r;
  // Listed as "{name}" (as OpenAPI writes a path parameter), whatever it captures.
  r.pattern = pattern;
  if (auto rest = r.pattern.rfind("...}"); rest != std::string::npos) r.pattern.erase(rest, 3);
  r.handler = std::move(handler);
  for (auto m : methods) r.methods |= bit(m);
  if (r.methods & bit(verb::get)) r.methods |= bit(verb::head);
  std::size_t captures = 0;
  for (std::size_t i = 0; i < parts.size; ++i) {
    auto part = parts.items[i];
    bool capture = part.size() > 2 && part.front() == '{' && part.back() == '}';
    if (capture && ++captures > route_params::capacity) {
      throw std::invalid_argument(fmt::format("route '{}': more than {} captures", pattern, route_params::capacity));
    }
    auto name = capture ? part.substr(1, part.size() - 2) : part;
    bool rest = capture && name.ends_with("...");
    if (rest && i + 1 != parts.size) {
      throw std::invalid_argument(fmt::format("route '{}': only the last segment captures the rest", pattern));
    }
    if (rest) name.remove_suffix(3);
    r.segments.push_back({std::string(name), capture, rest});
  }
  routes_.push_back(std::move(r));
}

std::vector<std::string> router::segments_of(std::string_view prefix) {
  auto parts = split(prefix);
  return {parts.items.begin(), parts.items.begin() + static_cast<std::ptrdiff_t>(parts.size)};
}

void router::guard(std::string_view prefix, check c) { guards_.push_back({segments_of(prefix), std::move(c)}); }

void router::exact(std::string_view prefix) { exact_.push_back(segments_of(prefix)); }

bool router::below(const std::vector<std::string>& prefix, const path_segments& path) {
  if (prefix.size() > path.size) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (prefix[i] != path.items[i]) return false;
  }
  return true;
}

router::match_result router::match(verb method, std::string_view path) const { return match(method, split(path)); }

router::match_result router::match(verb method, const path_segments& path) const {
  match_result out;
  if (!path.fits) return out;
  for (std::size_t index = 0; index < routes_.size(); ++index) {
    const auto& r = routes_[index];
    bool rest = !r.segments.empty() && r.segments.back().rest;
    if (rest ? path.size < r.segments.size() : r.segments.size() != path.size) continue;
    route_params params;
    bool same = true;
    for (std::size_t i = 0; i < r.segments.size() && same; ++i) {
      const auto& s = r.segments[i];
      if (s.rest) {
        params.items_[params.size_++] = {s.text, std::string_view(path.items[i].data(), path.end - path.items[i].data())};
      } else if (s.capture) {
        params.items_[params.size_++] = {s.text, path.items[i]};
      } else {
        same = s.text == path.items[i];
      }
    }
    if (!same) continue;
    if (out.route == unmatched) out.route = index;
    out.allowed |= r.methods;
    if (r.methods & bit(method)) {
      out.handler = &r.handler;
      out.params = params;
      return out;
    }
  }
  return out;
}

task<response> router::handle(request& req, const peer& who, std::size_t* route) const {
  std::string_view target = req.target();
  auto path = split(target.substr(0, target.find('?')));
  auto m = match(req.method(), path);
  if (!path.canonical && std::any_of(exact_.begin(), exact_.end(), [&](const auto& p) { return below(p, path); })) {
    m = match_result();
  }
  if (route) *route = m.route;
  for (const auto& g : guards_) {
    if (!below(g.segments, path)) continue;
    if (auto refused = g.c(req)) return ready(std::move(*refused));
  }
  if (m.handler && !req.body().empty() && !declared_json(req)) {
    return ready(problem(req, errc::unsupported_media_type, "Send the body as Content-Type: application/json."));
  }
  if (m.handler) return (*m.handler)(req, who, m.params);
  if (!m.allowed) return ready(problem(req, errc::not_found, "No such path."));
  auto allowed = allow(m.allowed);
  auto res = problem(req, errc::method_not_allowed, fmt::format("Use {} for this path.", allowed));
  res.set(beast::http::field::allow, allowed);
  return ready(std::move(res));
}

std::vector<std::string> router::patterns() const {
  std::vector<std::string> out;
  for (const auto& r : routes_) out.push_back(r.pattern);
  return out;
}

std::vector<std::string> router::table() const {
  std::vector<std::string> out;
  for (const auto& r : routes_) {
    for (unsigned v = 1; v < 64; ++v) {
      if (!(r.methods & (method_set{1} << v))) continue;
      out.push_back(fmt::format("{} {}", beast::http::to_string(static_cast<verb>(v)), r.pattern));
    }
  }
  return out;
}

std::string router::allow(method_set methods) {
  std::string out;
  for (unsigned v = 1; v < 64; ++v) {
    if (!(methods & (method_set{1} << v))) continue;
    if (!out.empty()) out += ", ";
    out += beast::http::to_string(static_cast<verb>(v));
  }
  return out;
}

}  // namespace foyer::http
