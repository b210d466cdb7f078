#pragma once
// The guard's fetch of Foyer's discovery document and JWKS: delivery::http_get, beside the
// other outbound calls.

#include "delivery/http_get.hpp"

namespace foyer::http {

using delivery::http_get;
using foyer::http_url;

}  // namespace foyer::http
