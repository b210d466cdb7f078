package foyer;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Offline checks of Foyer passes with JDK 17 alone (Ed25519 and P-256 are built in), with the
 * rules of {@code foyer guard}: keys from Foyer's JWKS, pinned to their algorithm; iss, aud
 * (the room) and exp with a small skew. {@link FoyerPassFilter} puts it in front of servlets.
 */
public final class FoyerPass {
  public static final String COOKIE = "foyer_pass";
  static final int MAX_TOKEN_SIZE = 8 * 1024;
  static final int MAX_JWKS_SIZE = 64 * 1024;
  static final int MAX_DONE_ANSWER_SIZE = 4096;
  static final int MAX_NEXT_SIZE = 2048;
  static final int MAX_DECODE_ROUNDS = 3;
  static final long MAX_DATE = 253402300799L;
  // A stream of made-up kids must not become a stream of requests to Foyer.
  static final long MIN_EARLY_REFRESH_MS = 10_000;
  private static final byte[] ED25519_SPKI = hex("302a300506032b6570032100");
  private static final byte[] P256_SPKI = hex("3059301306072a8648ce3d020106082a8648ce3d03010703420004");
  private static final Pattern B64URL = Pattern.compile("[A-Za-z0-9_-]*");

  /** The verdict on a pass: ok with sub, jti and exp, or the refusal's code. */
  public record Result(boolean ok, String error, String sub, String jti, long exp) {
    static Result refuse(String code) { return new Result(false, code, null, null, 0); }
  }

  /** A public key and the one algorithm tokens may name with it. */
  public record Key(String alg, PublicKey key) {}

  private final String issuer;
  private final String room;
  private final long leeway;
  private final String jwksUrl;
  private final long refreshMs;
  static final Duration FETCH_TIMEOUT = Duration.ofSeconds(5);
  // Reads a JWKS answer's body, so that a reading that overruns its time can be given up.
  private static final ExecutorService READER = Executors.newCachedThreadPool((r) -> {
    Thread t = new Thread(r, "foyer-pass-jwks");
    t.setDaemon(true);
    return t;
  });
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(FETCH_TIMEOUT).build();
  private volatile Map<String, Key> keys;
  private volatile long lastFetch;

  /** Fetches the keys from jwksUrl now; refreshes every refreshSeconds and on an unknown kid. */
  public FoyerPass(String issuer, String room, long leeway, String jwksUrl, long refreshSeconds) throws IOException {
    this.issuer = issuer;
    this.room = room;
    this.leeway = leeway;
    this.jwksUrl = jwksUrl;
    this.refreshMs = refreshSeconds * 1000;
    refresh();
    if (keys == null) throw new IOException("no keys from " + jwksUrl);
  }

  private void refresh() {
    lastFetch = System.currentTimeMillis();
    try {
      HttpRequest req = HttpRequest.newBuilder(URI.create(jwksUrl)).timeout(FETCH_TIMEOUT).build();
      keys = loadKeys(new String(fetchCapped(http, req, MAX_JWKS_SIZE), StandardCharsets.UTF_8));
    } catch (IOException | InterruptedException | RuntimeException e) {
      System.err.println("foyer-pass: cannot refresh the keys from " + jwksUrl + ", keeping the last: " + e.getMessage());
    }
  }

  /**
   * A 200 answer's body, within 5 s in all (the request's timeout bounds the wait for the
   * headers, the deadline the body's) and never more than max + 1 bytes read, whatever the
   * answer's size.
   */
  private static byte[] fetchCapped(HttpClient client, HttpRequest req, int max) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + FETCH_TIMEOUT.toNanos();
    HttpResponse<InputStream> res = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = res.body()) {
      if (res.statusCode() != 200) throw new IOException(req.uri() + ": HTTP " + res.statusCode());
      Future<byte[]> reading = READER.submit(() -> body.readNBytes(max + 1));
      byte[] bytes;
      try {
        bytes = reading.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        reading.cancel(true);
        throw new IOException(req.uri() + ": not read within 5 s", e);
      }
      if (bytes.length > max) throw new IOException(req.uri() + ": larger than " + max + " bytes");
      return bytes;
    }
  }

  /** The verdict on a pass now; one under an unknown kid waits for one bounded refresh. */
  public Result verify(String token) {
    long nowMs = System.currentTimeMillis();
    if (nowMs - lastFetch >= refreshMs) refresh();
    Result r = verify(token, keys, issuer, room, leeway, nowMs / 1000);
    if ("unknown_kid".equals(r.error())) {
      synchronized (this) {
        if (System.currentTimeMillis() - lastFetch >= MIN_EARLY_REFRESH_MS) refresh();
      }
      r = verify(token, keys, issuer, room, leeway, nowMs / 1000);
    }
    return r;
  }

  /**
   * Reports finished passes (their jti) to Foyer's passes/done with the site token, so that
   * their slots free at once. Returns Foyer's answer, {"done":N,"active":N}.
   */
  public static String done(String foyerUrl, String room, String siteToken, List<String> jtis)
      throws IOException, InterruptedException {
    StringBuilder body = new StringBuilder("{\"passes\":[");
    for (int i = 0; i < jtis.size(); i++) {
      if (!jtis.get(i).matches("[A-Za-z0-9_-]+")) throw new IllegalArgumentException("not a pass id: " + jtis.get(i));
      body.append(i == 0 ? "" : ",").append('"').append(jtis.get(i)).append('"');
    }
    HttpRequest req = HttpRequest.newBuilder(URI.create(foyerUrl + "/api/v1/rooms/" + room + "/passes/done"))
        .timeout(FETCH_TIMEOUT).header("Authorization", "Bearer " + siteToken)
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.append("]}").toString()))
        .build();
    return new String(fetchCapped(HttpClient.newHttpClient(), req, MAX_DONE_ANSWER_SIZE), StandardCharsets.UTF_8);
  }

  /** kid to key from a JWKS: Ed25519 (EdDSA) and P-256 (ES256) signing keys; others are skipped. */
  @SuppressWarnings("unchecked")
  public static Map<String, Key> loadKeys(String jwks) {
    if (jwks.length() > MAX_JWKS_SIZE) throw new IllegalArgumentException("JWKS: larger than 64 KiB");
    Object set = Json.parse(jwks);
    if (!(set instanceof Map<?, ?> root) || !(root.get("keys") instanceof List<?> list)) {
      throw new IllegalArgumentException("JWKS: no keys");
    }
    Map<String, Key> out = new HashMap<>();
    for (Object item : list) {
      if (!(item instanceof Map<?, ?>)) throw new IllegalArgumentException("JWKS: a key is not an object");
      Map<String, Object> jwk = (Map<String, Object>) item;
      if (jwk.containsKey("d")) throw new IllegalArgumentException("JWKS: contains a private key");
      String type = jwk.get("kty") + "/" + jwk.get("crv");
      String alg = type.equals("OKP/Ed25519") ? "EdDSA" : type.equals("EC/P-256") ? "ES256" : null;
      if (alg == null || (jwk.containsKey("use") && !"sig".equals(jwk.get("use")))
          || (jwk.containsKey("alg") && !alg.equals(jwk.get("alg")))) {
        continue;
      }
      if (!(jwk.get("kid") instanceof String kid) || out.containsKey(kid)) {
        throw new IllegalArgumentException("JWKS: a key without kid, or a duplicate kid");
      }
      byte[] x = segment(String.valueOf(jwk.get("x")));
      byte[] y = alg.equals("ES256") ? segment(String.valueOf(jwk.get("y"))) : new byte[0];
      if (x == null || x.length != 32 || y == null || (alg.equals("ES256") && y.length != 32)) {
        throw new IllegalArgumentException("JWKS: key " + kid + " has a bad point");
      }
      byte[] prefix = alg.equals("EdDSA") ? ED25519_SPKI : P256_SPKI;
      byte[] der = new byte[prefix.length + x.length + y.length];
      System.arraycopy(prefix, 0, der, 0, prefix.length);
      System.arraycopy(x, 0, der, prefix.length, x.length);
      System.arraycopy(y, 0, der, prefix.length + x.length, y.length);
      try {
        KeyFactory factory = KeyFactory.getInstance(alg.equals("EdDSA") ? "Ed25519" : "EC");
        out.put(kid, new Key(alg, factory.generatePublic(new X509EncodedKeySpec(der))));
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException("JWKS: key " + kid + " is not a valid public key", e);
      }
    }
    if (out.isEmpty()) throw new IllegalArgumentException("JWKS: no Ed25519 or P-256 key");
    return out;
  }

  static byte[] segment(String text) {
    if (!B64URL.matcher(text).matches() || text.length() % 4 == 1) return null;
    try {
      return Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(byte[] bytes) {
    if (bytes == null) return null;
    try {
      String text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
      return Json.parse(text) instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
    } catch (CharacterCodingException | IllegalArgumentException e) {
      return null;
    }
  }

  private static Long numericDate(Object v) {
    return v instanceof Long n && n >= 0 && n <= MAX_DATE ? n : null;
  }

  /** The verdict on a pass at unix time now, in the guard's order of checks. */
  public static Result verify(String token, Map<String, Key> keys, String issuer, String room, long leeway, long now) {
    if (token.length() > MAX_TOKEN_SIZE) return Result.refuse("too_large");
    String[] parts = token.split("\\.", -1);
    if (parts.length != 3) return Result.refuse("malformed");
    Map<String, Object> header = object(segment(parts[0]));
    if (header == null) return Result.refuse("malformed");
    for (String name : List.of("jwk", "jku", "x5u", "x5c", "crit")) {
      if (header.containsKey(name)) return Result.refuse("forbidden_header");
    }
    Object alg = header.get("alg");
    if (!"EdDSA".equals(alg) && !"ES256".equals(alg)) return Result.refuse("unsupported_alg");
    Key key = header.get("kid") instanceof String kid ? keys.get(kid) : null;
    if (key == null) return Result.refuse("unknown_kid");
    // The key pins the algorithm: a token never chooses it.
    if (!key.alg().equals(alg)) return Result.refuse("unsupported_alg");
    byte[] payload = segment(parts[1]);
    byte[] signature = segment(parts[2]);
    if (payload == null || signature == null || signature.length != 64) return Result.refuse("malformed");
    try {
      Signature s = Signature.getInstance(key.alg().equals("EdDSA") ? "Ed25519" : "SHA256withECDSAinP1363Format");
      s.initVerify(key.key());
      s.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
      if (!s.verify(signature)) return Result.refuse("bad_signature");
    } catch (GeneralSecurityException e) {
      return Result.refuse("bad_signature");
    }
    // The claims are read only once the signature vouches for them.
    Map<String, Object> c = object(payload);
    if (c == null) return Result.refuse("malformed");
    Long exp = numericDate(c.get("exp"));
    if (!(c.get("iss") instanceof String iss) || !c.containsKey("aud") || !(c.get("sub") instanceof String sub)
        || !(c.get("jti") instanceof String jti) || exp == null
        || (c.containsKey("nbf") && numericDate(c.get("nbf")) == null)
        || (c.containsKey("iat") && numericDate(c.get("iat")) == null)) {
      return Result.refuse("invalid_claims");
    }
    if (!iss.equals(issuer)) return Result.refuse("wrong_issuer");
    Object aud = c.get("aud");
    if (aud instanceof String a) {
      if (!a.equals(room)) return Result.refuse("wrong_audience");
    } else if (aud instanceof List<?> list) {
      for (Object a : list) {
        if (!(a instanceof String)) return Result.refuse("invalid_claims");
      }
      if (!list.contains(room)) return Result.refuse("wrong_audience");
    } else {
      return Result.refuse("invalid_claims");
    }
    if (now >= exp + leeway) return Result.refuse("expired");
    if (c.containsKey("nbf") && now < (Long) c.get("nbf") - leeway) return Result.refuse("not_yet_valid");
    return new Result(true, null, sub, jti, exp);
  }

  // --- Where visitors go: the guard's same-site rules. Targets are ISO-8859-1 text, a byte a char.

  /** The value (still escaped) of the first pair called name in the target's query, or null. */
  public static String queryParam(String target, String name) {
    int q = target.indexOf('?');
    if (q < 0) return null;
    for (String pair : target.substring(q + 1).split("&", -1)) {
      int eq = pair.indexOf('=');
      if ((eq < 0 ? pair : pair.substring(0, eq)).equals(name)) return eq < 0 ? "" : pair.substring(eq + 1);
    }
    return null;
  }

  static String withoutQueryParam(String target, String name) {
    int q = target.indexOf('?');
    if (q < 0) return target;
    List<String> rest = new ArrayList<>();
    for (String pair : target.substring(q + 1).split("&", -1)) {
      int eq = pair.indexOf('=');
      if (!pair.isEmpty() && !(eq < 0 ? pair : pair.substring(0, eq)).equals(name)) rest.add(pair);
    }
    return rest.isEmpty() ? target.substring(0, q) : target.substring(0, q) + "?" + String.join("&", rest);
  }

  private static final Pattern ESCAPE = Pattern.compile("%([0-9A-Fa-f]{2})");

  /** Strict decoding of a query value ('+' is a space); null for a bad escape. */
  public static String percentDecode(String text) {
    if (Pattern.compile("%(?![0-9A-Fa-f]{2})").matcher(text).find()) return null;
    return decodeEscapes(text.replace('+', ' '));
  }

  private static String decodeEscapes(String text) {
    Matcher m = ESCAPE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 16))));
    m.appendTail(out);
    return out.toString();
  }

  private static boolean namesHost(String path) {
    String rest = path.replace("\t", "").replace("\n", "").replace("\r", "").replace('\\', '/');
    while (rest.startsWith("/./") || rest.startsWith("/../")) rest = rest.substring(rest.charAt(2) == '/' ? 2 : 3);
    return rest.startsWith("//");
  }

  /** The target itself if it is a path of this site however a browser or the site reads it. */
  public static String sameSitePath(String target) {
    if (target.isEmpty() || target.length() > MAX_NEXT_SIZE || target.charAt(0) != '/') return null;
    for (char c : target.toCharArray()) {
      if (c <= ' ' || c >= 0x7f || c == '\\') return null;
    }
    if (namesHost(target)) return null;
    String path = target.split("[?#]", 2)[0];
    for (int round = 1; path.contains("%"); round++) {
      String decoded = decodeEscapes(path);
      if (decoded.equals(path)) break;
      if (round > MAX_DECODE_ROUNDS || namesHost(decoded)) return null;
      path = decoded;
    }
    return target;
  }

  /** The page asked for at target: its same-site next, else the target without the pass, or null. */
  private static String wantedPage(String target) {
    String next = queryParam(target, "next");
    String decoded = next == null ? null : percentDecode(next);
    String to = decoded == null ? null : sameSitePath(decoded);
    return to != null ? to : sameSitePath(withoutQueryParam(target, COOKIE));
  }

  /** Where a visitor with a good pass in the URL goes: next, the URL without the pass, or /. */
  public static String entryLocation(String target) {
    String to = wantedPage(target);
    return to == null ? "/" : to;
  }

  /** url with name=value added to its query, before any fragment. */
  private static String withQueryParam(String url, String name, String value) {
    int hash = url.indexOf('#');
    String base = hash < 0 ? url : url.substring(0, hash);
    String fragment = hash < 0 ? "" : url.substring(hash);
    String sep = !base.contains("?") ? "?" : base.endsWith("?") || base.endsWith("&") ? "" : "&";
    return base + sep + name + "=" + value + fragment;
  }

  /** Every char but the unreserved ones escaped, as the guard does (a same-site path is ASCII). */
  private static String queryEscape(String text) {
    StringBuilder out = new StringBuilder();
    for (char c : text.toCharArray()) {
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append(String.format("%%%02X", (int) c));
      }
    }
    return out.toString();
  }

  /** The waiting room, with the refusal's code when a pass was refused, and in next the page asked for at target. */
  public static String refusalLocation(String login, String error, String target) {
    String refused = error == null || error.isEmpty() ? login : withQueryParam(login, "foyer_refused", error);
    String wanted = wantedPage(target);
    return wanted == null ? refused : withQueryParam(refused, "next", queryEscape(wanted));
  }

  private static byte[] hex(String s) {
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return out;
  }

  /** Strict JSON (RFC 8259): objects as maps (duplicate names refused), integers as Long. */
  static final class Json {
    /** JSON's null: a value, so that a member set to null is still present. */
    static final Object NULL = new Object();
    private final String s;
    private int i;

    private Json(String s) { this.s = s; }

    static Object parse(String text) {
      Json j = new Json(text);
      Object v = j.value(0);
      j.space();
      if (j.i != text.length()) throw new IllegalArgumentException("JSON: trailing text");
      return v;
    }

    private void space() {
      while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
    }

    private IllegalArgumentException bad() { return new IllegalArgumentException("JSON: bad text at " + i); }

    private Object value(int depth) {
      if (depth > 8) throw bad();
      space();
      if (i >= s.length()) throw bad();
      char c = s.charAt(i);
      if (c == '{') {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        space();
        if (i < s.length() && s.charAt(i) == '}') { i++; return m; }
        while (true) {
          space();
          if (i >= s.length() || s.charAt(i) != '"') throw bad();
          String name = string();
          space();
          if (i >= s.length() || s.charAt(i++) != ':') throw bad();
          if (m.put(name, value(depth + 1)) != null || m.size() > 64) throw bad();
          space();
          if (i >= s.length()) throw bad();
          char d = s.charAt(i++);
          if (d == '}') return m;
          if (d != ',') throw bad();
        }
      }
      if (c == '[') {
        List<Object> l = new ArrayList<>();
        i++;
        space();
        if (i < s.length() && s.charAt(i) == ']') { i++; return l; }
        while (true) {
          l.add(value(depth + 1));
          space();
          if (i >= s.length()) throw bad();
          char d = s.charAt(i++);
          if (d == ']') return l;
          if (d != ',') throw bad();
        }
      }
      if (c == '"') return string();
      for (String word : new String[] {"true", "false", "null"}) {
        if (s.startsWith(word, i)) {
          i += word.length();
          return word.equals("null") ? NULL : Boolean.valueOf(word);
        }
      }
      Matcher m = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?").matcher(s).region(i, s.length());
      if (!m.lookingAt()) throw bad();
      i = m.end();
      if (m.group(2) != null || m.group(3) != null) return Double.valueOf(m.group());
      try {
        return Long.valueOf(m.group());
      } catch (NumberFormatException e) {
        return Double.valueOf(m.group());
      }
    }

    private String string() {
      StringBuilder out = new StringBuilder();
      i++;
      while (true) {
        if (i >= s.length()) throw bad();
        char c = s.charAt(i++);
        if (c == '"') return out.toString();
        if (c < 0x20) throw bad();
        if (c != '\\') { out.append(c); continue; }
        if (i >= s.length()) throw bad();
        char e = s.charAt(i++);
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (i + 4 > s.length()) throw bad();
            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> throw bad();
        }
      }
    }
  }
}
