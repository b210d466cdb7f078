<?php
// Foyer pass connector for PHP 8 (sodium, openssl and posix, all in Debian's php-cli): checks the
// visitor's pass offline with the rules of `foyer guard`. Require it at the top of each
// protected page, before any output:
//
//   require_once __DIR__ . '/foyer-pass.php';
//   $pass = foyer_pass_protect([
//       'issuer'    => 'https://queue.example.com',
//       'room'      => 'spring-sale',
//       'jwks_url'  => 'https://queue.example.com/.well-known/jwks.json',
//       'login_url' => 'https://queue.example.com/r/spring-sale',
//   ]);
//   // Only admitted visitors get here: $pass = ['visitor' => ..., 'jti' => ..., 'exp' => ...]
//
// Visitors without a good pass are redirected to the waiting room (and the script exits); a
// pass in the URL moves into the foyer_pass cookie. The JWKS is cached in a file (default:
// in a directory of the system's temp dir made for this user alone, mode 0700), refreshed every `refresh` seconds and early, at most every 10 s,
// when a pass names an unknown kid. FoyerPassMiddleware.php wraps the same for PSR-15.

declare(strict_types=1);

const FOYER_PASS_COOKIE = 'foyer_pass';
const FOYER_MAX_TOKEN_SIZE = 8192;
const FOYER_MAX_JWKS_SIZE = 65536;
const FOYER_MAX_HEAD_SIZE = 16384;
const FOYER_MAX_DONE_ANSWER_SIZE = 4096;
const FOYER_MAX_NEXT_SIZE = 2048;
const FOYER_MAX_DECODE_ROUNDS = 3;
const FOYER_MAX_PASS_COOKIES = 4;
const FOYER_MAX_DATE = 253402300799;
// A stream of made-up kids must not become a stream of requests to Foyer.
const FOYER_MIN_EARLY_REFRESH = 10;

/** kid => ['alg' => 'EdDSA'|'ES256', 'key' => raw Ed25519 key | PEM] from a JWKS text. */
function foyer_load_keys(string $jwks): array
{
    if (strlen($jwks) > FOYER_MAX_JWKS_SIZE) throw new RuntimeException('JWKS: larger than 64 KiB');
    $set = json_decode($jwks, true, 8, JSON_THROW_ON_ERROR);
    $keys = [];
    foreach ($set['keys'] ?? [] as $jwk) {
        if (isset($jwk['d'])) throw new RuntimeException('JWKS: contains a private key');
        $type = ($jwk['kty'] ?? '') . '/' . ($jwk['crv'] ?? '');
        $alg = ['OKP/Ed25519' => 'EdDSA', 'EC/P-256' => 'ES256'][$type] ?? null;
        if ($alg === null || ($jwk['use'] ?? 'sig') !== 'sig' || ($jwk['alg'] ?? $alg) !== $alg) continue;
        $kid = $jwk['kid'] ?? null;
        if (!is_string($kid) || isset($keys[$kid])) throw new RuntimeException('JWKS: a key without kid, or a duplicate kid');
        $x = foyer_b64url((string)($jwk['x'] ?? ''));
        if ($alg === 'EdDSA') {
            if ($x === null || strlen($x) !== 32) throw new RuntimeException("JWKS: key $kid has a bad x");
            $keys[$kid] = ['alg' => $alg, 'key' => $x];
        } else {
            $y = foyer_b64url((string)($jwk['y'] ?? ''));
            if ($x === null || $y === null || strlen($x) !== 32 || strlen($y) !== 32) throw new RuntimeException("JWKS: key $kid has a bad point");
            // SubjectPublicKeyInfo of an uncompressed P-256 point.
            $der = hex2bin('3059301306072a8648ce3d020106082a8648ce3d030107034200') . "\x04" . $x . $y;
            $pem = "-----BEGIN PUBLIC KEY-----\n" . chunk_split(base64_encode($der), 64, "\n") . "-----END PUBLIC KEY-----\n";
            $key = openssl_pkey_get_public($pem);
            if ($key === false) throw new RuntimeException("JWKS: key $kid is not on P-256");
            $keys[$kid] = ['alg' => $alg, 'key' => $pem];
        }
    }
    if (!$keys) throw new RuntimeException('JWKS: no Ed25519 or P-256 key');
    return $keys;
}

function foyer_b64url(string $text): ?string
{
    if (!preg_match('/^[A-Za-z0-9_-]*$/D', $text) || strlen($text) % 4 === 1) return null;
    $bytes = base64_decode(strtr($text, '-_', '+/'), true);
    return $bytes === false ? null : $bytes;
}

function foyer_json_object(?string $bytes): ?array
{
    // json_decode refuses text that is not UTF-8.
    if ($bytes === null) return null;
    $value = json_decode($bytes, false, 8);
    if (!($value instanceof stdClass)) return null;
    return json_decode($bytes, true, 8);
}

function foyer_numeric_date(mixed $v): ?int
{
    return is_int($v) && $v >= 0 && $v <= FOYER_MAX_DATE ? $v : null;
}

// DER for an ECDSA signature r || s, as openssl_verify wants it.
function foyer_der_signature(string $rs): string
{
    $int = function (string $n): string {
        $n = ltrim($n, "\0");
        if ($n === '' || ord($n[0]) >= 0x80) $n = "\0" . $n;
        return "\x02" . chr(strlen($n)) . $n;
    };
    $body = $int(substr($rs, 0, 32)) . $int(substr($rs, 32));
    return "\x30" . chr(strlen($body)) . $body;
}

/** The verdict: ['ok' => true, 'sub', 'jti', 'exp'] or ['ok' => false, 'error' => code]. */
function foyer_verify_pass(string $token, array $keys, string $issuer, string $room, int $leeway, int $now): array
{
    $refuse = fn (string $code) => ['ok' => false, 'error' => $code];
    if (strlen($token) > FOYER_MAX_TOKEN_SIZE) return $refuse('too_large');
    $parts = explode('.', $token);
    if (count($parts) !== 3) return $refuse('malformed');
    $header = foyer_json_object(foyer_b64url($parts[0]));
    if ($header === null) return $refuse('malformed');
    foreach (['jwk', 'jku', 'x5u', 'x5c', 'crit'] as $name) {
        if (array_key_exists($name, $header)) return $refuse('forbidden_header');
    }
    $alg = $header['alg'] ?? null;
    if ($alg !== 'EdDSA' && $alg !== 'ES256') return $refuse('unsupported_alg');
    $kid = $header['kid'] ?? null;
    $key = is_string($kid) ? ($keys[$kid] ?? null) : null;
    if ($key === null) return $refuse('unknown_kid');
    // The key pins the algorithm: a token never chooses it.
    if ($alg !== $key['alg']) return $refuse('unsupported_alg');
    $payload = foyer_b64url($parts[1]);
    $signature = foyer_b64url($parts[2]);
    if ($payload === null || $signature === null || strlen($signature) !== 64) return $refuse('malformed');
    $input = $parts[0] . '.' . $parts[1];
    $good = $alg === 'EdDSA'
        ? sodium_crypto_sign_verify_detached($signature, $input, $key['key'])
        : openssl_verify($input, foyer_der_signature($signature), $key['key'], OPENSSL_ALGO_SHA256) === 1;
    if (!$good) return $refuse('bad_signature');
    // The claims are read only once the signature vouches for them.
    $c = foyer_json_object($payload);
    if ($c === null) return $refuse('malformed');
    $exp = foyer_numeric_date($c['exp'] ?? null);
    if (!is_string($c['iss'] ?? null) || !array_key_exists('aud', $c) || !is_string($c['sub'] ?? null)
        || !is_string($c['jti'] ?? null) || $exp === null
        || (array_key_exists('nbf', $c) && foyer_numeric_date($c['nbf']) === null)
        || (array_key_exists('iat', $c) && foyer_numeric_date($c['iat']) === null)) {
        return $refuse('invalid_claims');
    }
    if ($c['iss'] !== $issuer) return $refuse('wrong_issuer');
    if (is_string($c['aud'])) {
        if ($c['aud'] !== $room) return $refuse('wrong_audience');
    } elseif (is_array($c['aud']) && array_is_list($c['aud'])) {
        foreach ($c['aud'] as $a) {
            if (!is_string($a)) return $refuse('invalid_claims');
        }
        if (!in_array($room, $c['aud'], true)) return $refuse('wrong_audience');
    } else {
        return $refuse('invalid_claims');
    }
    if ($now >= $exp + $leeway) return $refuse('expired');
    if (array_key_exists('nbf', $c) && $now < $c['nbf'] - $leeway) return $refuse('not_yet_valid');
    return ['ok' => true, 'sub' => $c['sub'], 'jti' => $c['jti'], 'exp' => $exp];
}

// --- Where visitors go: the guard's same-site rules. ---

/** [key, value, raw] for each '&'-separated pair of the target's query, values still escaped. */
function foyer_query_pairs(string $target): array
{
    $q = strpos($target, '?');
    if ($q === false) return [];
    $out = [];
    foreach (explode('&', substr($target, $q + 1)) as $raw) {
        $eq = strpos($raw, '=');
        $out[] = $eq === false ? [$raw, '', $raw] : [substr($raw, 0, $eq), substr($raw, $eq + 1), $raw];
    }
    return $out;
}

function foyer_query_param(string $target, string $name): ?string
{
    foreach (foyer_query_pairs($target) as [$key, $value]) {
        if ($key === $name) return $value;
    }
    return null;
}

function foyer_without_query_param(string $target, string $name): string
{
    $path = explode('?', $target, 2)[0];
    $rest = [];
    foreach (foyer_query_pairs($target) as [$key, , $raw]) {
        if ($key !== $name && $raw !== '') $rest[] = $raw;
    }
    return $rest ? $path . '?' . implode('&', $rest) : $path;
}

/** Strict decoding of a query value ('+' is a space); null for a bad escape. */
function foyer_percent_decode(string $text): ?string
{
    if (preg_match('/%(?![0-9A-Fa-f]{2})/', $text)) return null;
    return urldecode($text);
}

function foyer_names_host(string $path): bool
{
    $rest = str_replace(["\t", "\n", "\r", '\\'], ['', '', '', '/'], $path);
    while (str_starts_with($rest, '/./') || str_starts_with($rest, '/../')) $rest = substr($rest, $rest[2] === '/' ? 2 : 3);
    return str_starts_with($rest, '//');
}

/** The target itself if it is a path of this site however a browser or the site reads it. */
function foyer_same_site_path(string $target): ?string
{
    if ($target === '' || strlen($target) > FOYER_MAX_NEXT_SIZE || $target[0] !== '/') return null;
    if (preg_match('/[\x00-\x20\x7f-\xff\\\\]/', $target)) return null;
    if (foyer_names_host($target)) return null;
    $path = preg_split('/[?#]/', $target, 2)[0];
    for ($round = 1; str_contains($path, '%'); $round++) {
        $decoded = preg_replace_callback('/%([0-9A-Fa-f]{2})/', fn ($m) => chr(hexdec($m[1])), $path);
        if ($decoded === $path) break;
        if ($round > FOYER_MAX_DECODE_ROUNDS || foyer_names_host($decoded)) return null;
        $path = $decoded;
    }
    return $target;
}

/** The page asked for at $target: its same-site `next`, else the target without the pass. */
function foyer_wanted_page(string $target): ?string
{
    $next = foyer_query_param($target, 'next');
    $decoded = $next === null ? null : foyer_percent_decode($next);
    return ($decoded !== null ? foyer_same_site_path($decoded) : null)
        ?? foyer_same_site_path(foyer_without_query_param($target, FOYER_PASS_COOKIE));
}

/** Where a visitor with a good pass in the URL goes: `next`, the URL without the pass, or /. */
function foyer_entry_location(string $target): string
{
    return foyer_wanted_page($target) ?? '/';
}

/** $url with $name=$value added to its query, before any fragment. */
function foyer_with_query_param(string $url, string $name, string $value): string
{
    [$base, $fragment] = array_pad(explode('#', $url, 2), 2, null);
    $sep = !str_contains($base, '?') ? '?' : (str_ends_with($base, '?') || str_ends_with($base, '&') ? '' : '&');
    return $base . $sep . $name . '=' . $value . ($fragment === null ? '' : '#' . $fragment);
}

/**
 * The waiting room, with the refusal's code when a pass was refused, and in `next` the page
 * asked for at $target (every byte but the unreserved ones escaped, as the guard does).
 */
function foyer_refusal_location(string $login, ?string $error, string $target): string
{
    $refused = $error === null || $error === '' ? $login : foyer_with_query_param($login, 'foyer_refused', $error);
    $wanted = foyer_wanted_page($target);
    return $wanted === null ? $refused : foyer_with_query_param($refused, 'next', rawurlencode($wanted));
}

/**
 * The file the keys are cached in: the operator's `cache_file`, else one in a directory of the
 * system's temp dir that the connector makes for this user alone (mode 0700). Null when that
 * directory is someone else's or open to others: then nothing is cached.
 */
function foyer_cache_file(array $config): ?string
{
    if (isset($config['cache_file'])) return $config['cache_file'];
    $dir = sys_get_temp_dir() . '/foyer-pass-' . posix_geteuid();
    @mkdir($dir, 0700);
    $st = @lstat($dir);
    if ($st === false || ($st['mode'] & 0170000) !== 0040000 || $st['uid'] !== posix_geteuid() || ($st['mode'] & 0077) !== 0) {
        error_log("foyer-pass: $dir is not this user's alone (mode 0700): the keys are not cached");
        return null;
    }
    return "$dir/jwks-" . md5($config['jwks_url']) . '.json';
}

/**
 * The cache's [time, text] if only this user can have written it, else null: a symlink, a file
 * of another owner or one that others may write, or one dated in the future (it would stay
 * fresh for ever) is not trusted, and the keys are fetched again.
 */
function foyer_read_cache(?string $file): ?array
{
    $link = $file === null ? false : @lstat($file);
    if ($link === false || ($link['mode'] & 0170000) !== 0100000) return null;
    $handle = @fopen($file, 'rb');
    if ($handle === false) return null;
    try {
        $st = fstat($handle);
        if ($st['ino'] !== $link['ino'] || $st['dev'] !== $link['dev'] || $st['uid'] !== posix_geteuid() ||
            ($st['mode'] & 0022) !== 0 || $st['mtime'] > time()) {
            error_log("foyer-pass: ignoring the key cache $file: not a file of this user's alone, or dated in the future");
            return null;
        }
        $text = stream_get_contents($handle, FOYER_MAX_JWKS_SIZE + 1);
        return $text === false ? null : [$st['mtime'], $text];
    } finally {
        fclose($handle);
    }
}

/**
 * A 200 answer's body, read within 5 s in all, headers included (however slowly they come),
 * and never past $max + 1 bytes of body, whatever the answer's size. HTTP/1.0 over a socket
 * of its own, so that no wrapper waits without the deadline; no redirect is followed and
 * nothing is decoded: the answer comes from the URL itself, as sent.
 */
function foyer_fetch(string $url, int $max, string $method = 'GET', string $body = '', string $headers = ''): string
{
    $deadline = microtime(true) + 5;
    $u = parse_url($url);
    $scheme = strtolower($u['scheme'] ?? '');
    if (($scheme !== 'http' && $scheme !== 'https') || !isset($u['host'])) throw new RuntimeException("$url: not an http(s) URL");
    $port = $u['port'] ?? ($scheme === 'https' ? 443 : 80);
    $stream = @stream_socket_client(($scheme === 'https' ? 'tls' : 'tcp') . "://{$u['host']}:$port", $errno, $error, 5,
        STREAM_CLIENT_CONNECT, stream_context_create(['ssl' => ['peer_name' => trim($u['host'], '[]')]]));
    if ($stream === false) throw new RuntimeException("cannot fetch $url: $error");
    try {
        $target = ($u['path'] ?? '/') . (isset($u['query']) ? "?{$u['query']}" : '');
        $host = $u['host'] . (isset($u['port']) ? ":$port" : '');
        $length = $method === 'GET' ? '' : 'Content-Length: ' . strlen($body) . "\r\n";
        fwrite($stream, "$method $target HTTP/1.0\r\nHost: $host\r\nAccept-Encoding: identity\r\n$headers$length" .
            "Connection: close\r\n\r\n$body");
        // Not blocking: each read takes what has come, and the wait for more has the time left.
        stream_set_blocking($stream, false);
        $text = '';
        $limit = FOYER_MAX_HEAD_SIZE;
        while (!feof($stream) && strlen($text) <= $limit) {
            $left = $deadline - microtime(true);
            $read = [$stream];
            $none = null;
            if ($left <= 0 || !stream_select($read, $none, $none, (int)$left, (int)(($left - (int)$left) * 1e6))) {
                throw new RuntimeException("$url: not read within 5 s");
            }
            $chunk = fread($stream, $limit + 1 - strlen($text));
            if ($chunk === false) throw new RuntimeException("cannot read $url");
            $text .= $chunk;
            $end = strpos($text, "\r\n\r\n");
            if ($end !== false) $limit = $end + 4 + $max;
        }
        $end = strpos($text, "\r\n\r\n");
        if ($end === false) throw new RuntimeException("$url: no answer's head within " . FOYER_MAX_HEAD_SIZE . ' bytes');
        if (!preg_match('#^HTTP/1\.[01] 200[ \r]#', $text)) throw new RuntimeException("$url: not 200 OK");
        $answer = substr($text, $end + 4);
        if (strlen($answer) > $max) throw new RuntimeException("$url: larger than $max bytes");
        return $answer;
    } finally {
        fclose($stream);
    }
}

/** The keys from the file cache, fetched again when the last attempt is $max_age seconds old. */
function foyer_keys(array $config, int $max_age): array
{
    $file = foyer_cache_file($config);
    $cached = foyer_read_cache($file);
    if ($cached !== null && time() - $cached[0] < $max_age) {
        try {
            return foyer_load_keys($cached[1]);
        } catch (Throwable) {
            // A damaged cache is fetched again.
        }
    }
    try {
        $text = foyer_fetch($config['jwks_url'], FOYER_MAX_JWKS_SIZE);
        $keys = foyer_load_keys($text);
        if ($file !== null) {
            // A new file of this user's (tempnam makes it 0600), then renamed over the cache.
            $tmp = tempnam(dirname($file), 'foyer-jwks-');
            if ($tmp !== false && file_put_contents($tmp, $text) === strlen($text)) {
                @rename($tmp, $file) || @unlink($tmp);
            }
        }
        return $keys;
    } catch (Throwable $e) {
        // Keep the last good keys. The file's time is that of the last attempt, so the next
        // comes at the next refresh, or in 10 s for an unknown kid: never once per request.
        error_log("foyer-pass: cannot refresh the keys, keeping the last: {$e->getMessage()}");
        if ($cached === null) throw $e;
        @touch($file);
        return foyer_load_keys($cached[1]);
    }
}

/** The verdict on a pass now; one under an unknown kid waits for one bounded refresh. */
function foyer_check(array $config, string $token): array
{
    $verify = fn (array $keys) => foyer_verify_pass($token, $keys, $config['issuer'], $config['room'],
        $config['leeway'] ?? 5, time());
    $result = $verify(foyer_keys($config, $config['refresh'] ?? 300));
    if (($result['error'] ?? null) === 'unknown_kid') $result = $verify(foyer_keys($config, FOYER_MIN_EARLY_REFRESH));
    return $result;
}

/**
 * What to do with a request: ['pass' => [...]] to serve it, or ['status' => 302, 'headers' =>
 * [name => value]]. $target is the raw request target, $cookie the Cookie header.
 */
function foyer_decide(array $config, string $target, ?string $cookie, ?string $authorization): array
{
    $away = fn (?string $error) => ['status' => 302, 'headers' => [
        'Location' => foyer_refusal_location($config['login_url'], $error, $target), 'Cache-Control' => 'no-store']];
    $raw = foyer_query_param($target, FOYER_PASS_COOKIE);
    if ($raw !== null) {
        $token = foyer_percent_decode($raw);
        $result = $token === null ? ['ok' => false, 'error' => 'malformed'] : foyer_check($config, $token);
        if (!$result['ok']) return $away($result['error']);
        $max_age = max(1, $result['exp'] - time());
        $secure = !empty($config['secure_cookie']) ? '; Secure' : '';
        return ['status' => 302, 'headers' => [
            'Location' => foyer_entry_location($target), 'Cache-Control' => 'no-store',
            'Set-Cookie' => FOYER_PASS_COOKIE . "=$token; Path=/; Max-Age=$max_age; HttpOnly; SameSite=Lax$secure"]];
    }
    $presented = [];
    foreach (explode(';', $cookie ?? '') as $part) {
        [$name, $value] = array_pad(explode('=', ltrim($part, ' '), 2), 2, null);
        if ($value !== null && $name === FOYER_PASS_COOKIE && count($presented) < FOYER_MAX_PASS_COOKIES) $presented[] = $value;
    }
    if ($authorization !== null && str_starts_with($authorization, 'Bearer ') && strlen($authorization) > 7) {
        $presented[] = substr($authorization, 7);
    }
    $refusal = null;
    foreach ($presented as $token) {
        $result = foyer_check($config, $token);
        if ($result['ok']) return ['pass' => ['visitor' => $result['sub'], 'jti' => $result['jti'], 'exp' => $result['exp']]];
        $refusal ??= $result['error'];
    }
    return $away($refusal);
}

/** For a plain PHP page: the admitted visitor's pass, or a redirect and exit. */
function foyer_pass_protect(array $config): array
{
    $d = foyer_decide($config, $_SERVER['REQUEST_URI'] ?? '/', $_SERVER['HTTP_COOKIE'] ?? null,
        $_SERVER['HTTP_AUTHORIZATION'] ?? null);
    if (isset($d['pass'])) return $d['pass'];
    http_response_code($d['status']);
    foreach ($d['headers'] as $name => $value) header("$name: $value");
    exit;
}

/** Reports finished passes (their jti) so that their slots free at once: ['done', 'active']. */
function foyer_pass_done(array $config, array $jtis): array
{
    $text = foyer_fetch("{$config['foyer_url']}/api/v1/rooms/" . rawurlencode($config['room']) . '/passes/done',
        FOYER_MAX_DONE_ANSWER_SIZE, 'POST', json_encode(['passes' => array_values($jtis)]),
        "Authorization: Bearer {$config['site_token']}\r\nContent-Type: application/json\r\n");
    return json_decode($text, true, 8, JSON_THROW_ON_ERROR);
}
