#pragma once
namespace foyer {
// How one notification delivery attempt ended.
enum class delivery_outcome { delivered, gone, refused, failed };
// delivered: accepted by the push service or relay; gone: the subscription or address no longer
// exists (push 404/410, SMTP 5xx on the recipient): never retry; refused: not allowed to send there
// (SSRF rules, bad endpoint): never retry; failed: try again later.
}  // namespace foyer
