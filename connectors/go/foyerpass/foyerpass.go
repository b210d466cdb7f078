// Package foyerpass checks Foyer passes offline in front of a net/http handler, with the
// standard library alone (crypto/ed25519, crypto/ecdsa): the rules of `foyer guard`.
//
//	checker, err := foyerpass.New(foyerpass.Config{
//		Issuer: "https://queue.example.com", Room: "spring-sale",
//		JWKSURL:  "https://queue.example.com/.well-known/jwks.json",
//		LoginURL: "https://queue.example.com/r/spring-sale",
//	})
//	http.Handle("/sale/", checker.Middleware(saleHandler))
//
// An admitted request's pass is foyerpass.FromContext(r.Context()).
package foyerpass

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

const (
	maxTokenSize    = 8 * 1024
	maxJWKSSize     = 64 * 1024
	maxNextSize     = 2048
	maxDecodeRounds = 3
	maxPassCookies  = 4
	maxDate         = 253402300799
	// A stream of made-up kids must not become a stream of requests to Foyer.
	minEarlyRefresh = 10 * time.Second
	// PassCookie is the cookie that carries the pass, as the guard sets it.
	PassCookie = "foyer_pass"
	passParam  = "foyer_pass"
)

// A public key of the JWKS; its type pins the one algorithm a token may name with it.
type key struct {
	alg string
	ed  ed25519.PublicKey
	ec  *ecdsa.PublicKey
}

// Keys maps kid to key.
type Keys map[string]key

// LoadKeys reads a JWKS: Ed25519 (EdDSA) and P-256 (ES256) signing keys; others are skipped.
func LoadKeys(jwks []byte) (Keys, error) {
	if len(jwks) > maxJWKSSize {
		return nil, errors.New("JWKS: larger than 64 KiB")
	}
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(jwks, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	keys := Keys{}
	for _, jwk := range set.Keys {
		str := func(name string) string { s, _ := jwk[name].(string); return s }
		if _, private := jwk["d"]; private {
			return nil, errors.New("JWKS: contains a private key")
		}
		var k key
		switch str("kty") + "/" + str("crv") {
		case "OKP/Ed25519":
			x, err := base64.RawURLEncoding.DecodeString(str("x"))
			if err != nil || len(x) != ed25519.PublicKeySize {
				return nil, errors.New("JWKS: a bad Ed25519 x")
			}
			k = key{alg: "EdDSA", ed: ed25519.PublicKey(x)}
		case "EC/P-256":
			x, errX := base64.RawURLEncoding.DecodeString(str("x"))
			y, errY := base64.RawURLEncoding.DecodeString(str("y"))
			pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
			if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 || !pub.Curve.IsOnCurve(pub.X, pub.Y) {
				return nil, errors.New("JWKS: a bad P-256 point")
			}
			k = key{alg: "ES256", ec: pub}
		default:
			continue
		}
		if use, has := jwk["use"]; has && use != "sig" {
			continue
		}
		if alg, has := jwk["alg"]; has && alg != k.alg {
			continue
		}
		kid := str("kid")
		if _, dup := keys[kid]; kid == "" || dup {
			return nil, errors.New("JWKS: a key without kid, or a duplicate kid")
		}
		keys[kid] = k
	}
	if len(keys) == 0 {
		return nil, errors.New("JWKS: no Ed25519 or P-256 key")
	}
	return keys, nil
}

// Result is the verdict on a pass: OK with the claims the site uses, or the refusal's code
// (the guard's codes: malformed, unsupported_alg, unknown_kid, bad_signature, expired, ...).
type Result struct {
	OK    bool
	Error string
	Sub   string
	JTI   string
	Exp   int64
}

var b64url = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)

func decodeSegment(s string) ([]byte, bool) {
	if !b64url.MatchString(s) {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	return b, err == nil
}

func object(b []byte) (map[string]any, bool) {
	if !utf8.Valid(b) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil || m == nil || d.More() {
		return nil, false
	}
	return m, true
}

func numericDate(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil && i >= 0 && i <= maxDate
}

// Verify checks a pass against the keys, the issuer, the room (aud) and the clock (unix
// seconds, with `leeway` seconds of skew), in the guard's order.
func Verify(token string, keys Keys, issuer, room string, leeway, now int64) Result {
	refuse := func(code string) Result { return Result{Error: code} }
	if len(token) > maxTokenSize {
		return refuse("too_large")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return refuse("malformed")
	}
	hb, ok := decodeSegment(parts[0])
	header, okh := object(hb)
	if !ok || !okh {
		return refuse("malformed")
	}
	for _, name := range []string{"jwk", "jku", "x5u", "x5c", "crit"} {
		if _, has := header[name]; has {
			return refuse("forbidden_header")
		}
	}
	alg, _ := header["alg"].(string)
	if alg != "EdDSA" && alg != "ES256" {
		return refuse("unsupported_alg")
	}
	kid, _ := header["kid"].(string)
	k, found := keys[kid]
	if !found {
		return refuse("unknown_kid")
	}
	if alg != k.alg {
		return refuse("unsupported_alg")
	}
	payload, okp := decodeSegment(parts[1])
	sig, oks := decodeSegment(parts[2])
	if !okp || !oks || len(sig) != 64 {
		return refuse("malformed")
	}
	input := []byte(parts[0] + "." + parts[1])
	if k.ed != nil {
		ok = ed25519.Verify(k.ed, input, sig)
	} else {
		h := sha256.Sum256(input)
		ok = ecdsa.Verify(k.ec, h[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
	}
	if !ok {
		return refuse("bad_signature")
	}
	// The claims are read only once the signature vouches for them.
	c, ok := object(payload)
	if !ok {
		return refuse("malformed")
	}
	iss, okIss := c["iss"].(string)
	sub, okSub := c["sub"].(string)
	jti, okJti := c["jti"].(string)
	exp, okExp := numericDate(c["exp"])
	aud, okAud := c["aud"]
	nbfValue, hasNbf := c["nbf"]
	nbf, okNbf := numericDate(nbfValue)
	iatValue, hasIat := c["iat"]
	_, okIat := numericDate(iatValue)
	if !okIss || !okSub || !okJti || !okExp || !okAud || (hasNbf && !okNbf) || (hasIat && !okIat) {
		return refuse("invalid_claims")
	}
	if iss != issuer {
		return refuse("wrong_issuer")
	}
	switch a := aud.(type) {
	case string:
		if a != room {
			return refuse("wrong_audience")
		}
	case []any:
		named := false
		for _, item := range a {
			s, isString := item.(string)
			if !isString {
				return refuse("invalid_claims")
			}
			named = named || s == room
		}
		if !named {
			return refuse("wrong_audience")
		}
	default:
		return refuse("invalid_claims")
	}
	if now >= exp+leeway {
		return refuse("expired")
	}
	if hasNbf && now < nbf-leeway {
		return refuse("not_yet_valid")
	}
	return Result{OK: true, Sub: sub, JTI: jti, Exp: exp}
}

// --- Where visitors go: the guard's same-site rules. ---

type pair struct{ key, value, raw string }

func queryPairs(target string) []pair {
	q := strings.IndexByte(target, '?')
	if q < 0 {
		return nil
	}
	var out []pair
	for _, raw := range strings.Split(target[q+1:], "&") {
		k, v, _ := strings.Cut(raw, "=")
		out = append(out, pair{k, v, raw})
	}
	return out
}

func queryParam(target, name string) (string, bool) {
	for _, p := range queryPairs(target) {
		if p.key == name {
			return p.value, true
		}
	}
	return "", false
}

func withoutQueryParam(target, name string) string {
	path, _, _ := strings.Cut(target, "?")
	var rest []string
	for _, p := range queryPairs(target) {
		if p.key != name && p.raw != "" {
			rest = append(rest, p.raw)
		}
	}
	if len(rest) == 0 {
		return path
	}
	return path + "?" + strings.Join(rest, "&")
}

func unhex(s string) (byte, bool) {
	if len(s) < 2 {
		return 0, false
	}
	b, err := strconv.ParseUint(s[:2], 16, 8)
	return byte(b), err == nil
}

// percentDecode decodes a query value strictly ('+' is a space); false for a bad escape.
func percentDecode(s string) (string, bool) {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '+':
			out.WriteByte(' ')
		case s[i] != '%':
			out.WriteByte(s[i])
		default:
			b, ok := unhex(s[i+1:])
			if !ok {
				return "", false
			}
			out.WriteByte(b)
			i += 2
		}
	}
	return out.String(), true
}

// decodeEscapes is one lenient round: a '%' without two hex digits stays.
func decodeEscapes(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if b, ok := unhex(s[i+1:]); s[i] == '%' && ok {
			out.WriteByte(b)
			i += 2
		} else {
			out.WriteByte(s[i])
		}
	}
	return out.String()
}

// namesHost tells whether a path starting with '/' names a host as URL parsers read it.
func namesHost(path string) bool {
	rest := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(path)
	for strings.HasPrefix(rest, "/./") || strings.HasPrefix(rest, "/../") {
		if rest[2] == '/' {
			rest = rest[2:]
		} else {
			rest = rest[3:]
		}
	}
	return strings.HasPrefix(rest, "//")
}

// SameSitePath tells whether target is a path of this site however a browser or the site
// reads it.
func SameSitePath(target string) bool {
	if target == "" || len(target) > maxNextSize || target[0] != '/' {
		return false
	}
	for i := 0; i < len(target); i++ {
		if c := target[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	if namesHost(target) {
		return false
	}
	path := target
	if i := strings.IndexAny(target, "?#"); i >= 0 {
		path = target[:i]
	}
	for round := 1; strings.Contains(path, "%"); round++ {
		decoded := decodeEscapes(path)
		if decoded == path {
			break
		}
		if round > maxDecodeRounds || namesHost(decoded) {
			return false
		}
		path = decoded
	}
	return true
}

// wantedPage is the page asked for at target: its same-site `next`, else the target without
// the pass, if that is a same-site path.
func wantedPage(target string) (string, bool) {
	if next, has := queryParam(target, "next"); has {
		if decoded, ok := percentDecode(next); ok && SameSitePath(decoded) {
			return decoded, true
		}
	}
	rest := withoutQueryParam(target, passParam)
	return rest, SameSitePath(rest)
}

// EntryLocation is where a visitor who came with a good pass in the URL goes: `next`, else
// the same URL without the pass, else the front page.
func EntryLocation(target string) string {
	if page, ok := wantedPage(target); ok {
		return page
	}
	return "/"
}

// withQueryParam is link with name=value added to its query, before any fragment.
func withQueryParam(link, name, value string) string {
	base, fragment := link, ""
	if i := strings.IndexByte(link, '#'); i >= 0 {
		base, fragment = link[:i], link[i:]
	}
	sep := "&"
	if !strings.Contains(base, "?") {
		sep = "?"
	} else if strings.HasSuffix(base, "?") || strings.HasSuffix(base, "&") {
		sep = ""
	}
	return base + sep + name + "=" + value + fragment
}

// RefusalLocation is the waiting room, with the refusal's code when a pass was refused, and
// in `next` the page asked for at target (a same-site path holds no space, so QueryEscape
// escapes every byte but the unreserved ones, as the guard does).
func RefusalLocation(loginURL, code, target string) string {
	location := loginURL
	if code != "" {
		location = withQueryParam(location, "foyer_refused", code)
	}
	if page, ok := wantedPage(target); ok {
		location = withQueryParam(location, "next", url.QueryEscape(page))
	}
	return location
}

// Config says what passes are good and where visitors go.
type Config struct {
	Issuer       string // Foyer's server.issuer (iss)
	Room         string // the room id (aud)
	LoginURL     string // the waiting room
	JWKSURL      string // Foyer's /.well-known/jwks.json
	Leeway       int64  // clock skew tolerated on exp and nbf, in seconds (0: 5)
	Refresh      time.Duration
	SecureCookie bool
	FoyerURL     string // for Done: Foyer's address
	SiteToken    string // for Done: server.site_token
}

// Checker holds the keys, fetched from Foyer and kept fresh: every Refresh (default 5
// minutes), and early, at most every 10 s, when a pass names an unknown kid. A failed
// fetch keeps the last good keys.
type Checker struct {
	cfg       Config
	Now       func() time.Time
	mu        sync.Mutex
	keys      Keys
	lastFetch time.Time
}

// New fetches the keys once and starts the refresh.
func New(cfg Config) (*Checker, error) {
	if cfg.Leeway == 0 {
		cfg.Leeway = 5
	}
	if cfg.Refresh == 0 {
		cfg.Refresh = 5 * time.Minute
	}
	c := &Checker{cfg: cfg, Now: time.Now}
	if err := c.refresh(); err != nil {
		return nil, err
	}
	go func() {
		for range time.Tick(cfg.Refresh) {
			if err := c.refresh(); err != nil {
				log.Printf("foyerpass: cannot refresh the keys, keeping the last: %v", err)
			}
		}
	}()
	return c, nil
}

// Within 5 s in all; a redirect is not followed (the keys come from the URL itself, and a
// redirect is refused as not 200).
var client = &http.Client{
	Timeout:       5 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func (c *Checker) refresh() error {
	c.mu.Lock()
	c.lastFetch = time.Now()
	c.mu.Unlock()
	res, err := client.Get(c.cfg.JWKSURL)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxJWKSSize+1))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", c.cfg.JWKSURL, res.StatusCode)
	}
	keys, err := LoadKeys(body)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.keys = keys
	c.mu.Unlock()
	return nil
}

// claimEarlyRefresh tells one caller at a time, at most every 10 s, to refresh the keys now.
func (c *Checker) claimEarlyRefresh() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.lastFetch) < minEarlyRefresh {
		return false
	}
	c.lastFetch = time.Now()
	return true
}

// Verify checks a pass now; a pass under an unknown kid waits for one bounded refresh.
func (c *Checker) Verify(token string) Result {
	c.mu.Lock()
	keys := c.keys
	c.mu.Unlock()
	now := c.Now().Unix()
	r := Verify(token, keys, c.cfg.Issuer, c.cfg.Room, c.cfg.Leeway, now)
	if r.Error == "unknown_kid" && c.claimEarlyRefresh() {
		if err := c.refresh(); err != nil {
			log.Printf("foyerpass: cannot refresh the keys, keeping the last: %v", err)
		}
		c.mu.Lock()
		keys = c.keys
		c.mu.Unlock()
		r = Verify(token, keys, c.cfg.Issuer, c.cfg.Room, c.cfg.Leeway, now)
	}
	return r
}

type contextKey struct{}

// FromContext is the pass of an admitted request.
func FromContext(ctx context.Context) (Result, bool) {
	r, ok := ctx.Value(contextKey{}).(Result)
	return r, ok
}

func (c *Checker) redirect(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusFound)
}

// Middleware lets through requests with a good pass (cookie or Bearer), moves a pass in the
// URL into the cookie, and sends everyone else to the waiting room.
func (c *Checker) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := r.URL.RequestURI()
		if raw, has := queryParam(target, passParam); has {
			token, ok := percentDecode(raw)
			result := Result{Error: "malformed"}
			if ok {
				result = c.Verify(token)
			}
			if !result.OK {
				c.redirect(w, RefusalLocation(c.cfg.LoginURL, result.Error, target))
				return
			}
			maxAge := result.Exp - c.Now().Unix()
			if maxAge < 1 {
				maxAge = 1
			}
			secure := ""
			if c.cfg.SecureCookie {
				secure = "; Secure"
			}
			w.Header().Set("Set-Cookie", fmt.Sprintf("%s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Lax%s", PassCookie, token, maxAge, secure))
			c.redirect(w, EntryLocation(target))
			return
		}
		var presented []string
		for _, ck := range r.Cookies() {
			if ck.Name == PassCookie && len(presented) < maxPassCookies {
				presented = append(presented, ck.Value)
			}
		}
		if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") && len(auth) > 7 {
			presented = append(presented, auth[7:])
		}
		refusal := ""
		for _, token := range presented {
			result := c.Verify(token)
			if result.OK {
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), contextKey{}, result)))
				return
			}
			if refusal == "" {
				refusal = result.Error
			}
		}
		c.redirect(w, RefusalLocation(c.cfg.LoginURL, refusal, target))
	})
}

// Done reports finished passes (their jti) so that their slots free at once.
func (c *Checker) Done(jtis []string) error {
	body, _ := json.Marshal(map[string][]string{"passes": jtis})
	req, err := http.NewRequest(http.MethodPost, c.cfg.FoyerURL+"/api/v1/rooms/"+c.cfg.Room+"/passes/done", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.SiteToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("passes/done: HTTP %d", res.StatusCode)
	}
	return nil
}
