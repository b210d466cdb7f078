package foyer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * A servlet Filter in front of the protected pages: a good pass (the foyer_pass cookie or a
 * Bearer token) lets the request through with the attribute "foyer.pass" (a FoyerPass.Result);
 * a pass in the URL moves into the cookie; everyone else goes to the waiting room.
 *
 * Init parameters (web.xml or FilterRegistration): issuer, room, jwks-url, login-url, and
 * optionally leeway (seconds, default 5), refresh (seconds, default 300), secure-cookie.
 * For Jakarta Servlet (Spring Boot 3, Jetty 11+), change the javax.servlet imports to
 * jakarta.servlet; nothing else changes.
 */
public final class FoyerPassFilter implements Filter {
  private static final int MAX_PASS_COOKIES = 4;
  private FoyerPass checker;
  private String loginUrl;
  private boolean secureCookie;

  public FoyerPassFilter() {}

  /** For code that builds the filter itself (Spring's FilterRegistrationBean, embedded Jetty). */
  public FoyerPassFilter(FoyerPass checker, String loginUrl, boolean secureCookie) {
    this.checker = checker;
    this.loginUrl = loginUrl;
    this.secureCookie = secureCookie;
  }

  @Override
  public void init(FilterConfig config) throws ServletException {
    if (checker != null) return;
    String leeway = config.getInitParameter("leeway");
    String refresh = config.getInitParameter("refresh");
    try {
      checker = new FoyerPass(config.getInitParameter("issuer"), config.getInitParameter("room"),
          leeway == null ? 5 : Long.parseLong(leeway), config.getInitParameter("jwks-url"),
          refresh == null ? 300 : Long.parseLong(refresh));
    } catch (IOException e) {
      throw new ServletException(e);
    }
    loginUrl = config.getInitParameter("login-url");
    secureCookie = Boolean.parseBoolean(config.getInitParameter("secure-cookie"));
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest req = (HttpServletRequest) request;
    HttpServletResponse res = (HttpServletResponse) response;
    // The raw target, a byte a char: getRequestURI() is not decoded, nor is getQueryString().
    String target = req.getRequestURI() + (req.getQueryString() == null ? "" : "?" + req.getQueryString());
    String raw = FoyerPass.queryParam(target, FoyerPass.COOKIE);
    if (raw != null) {
      String token = FoyerPass.percentDecode(raw);
      FoyerPass.Result r = token == null ? new FoyerPass.Result(false, "malformed", null, null, 0) : checker.verify(token);
      if (!r.ok()) {
        redirect(res, FoyerPass.refusalLocation(loginUrl, r.error(), target));
        return;
      }
      long maxAge = Math.max(1, r.exp() - System.currentTimeMillis() / 1000);
      res.addHeader("Set-Cookie", FoyerPass.COOKIE + "=" + token + "; Path=/; Max-Age=" + maxAge
          + "; HttpOnly; SameSite=Lax" + (secureCookie ? "; Secure" : ""));
      redirect(res, FoyerPass.entryLocation(target));
      return;
    }
    List<String> presented = new ArrayList<>();
    for (String header : Collections.list(req.getHeaders("Cookie"))) {
      for (String part : header.split(";")) {
        String pair = part.stripLeading();
        int eq = pair.indexOf('=');
        if (eq > 0 && pair.substring(0, eq).equals(FoyerPass.COOKIE) && presented.size() < MAX_PASS_COOKIES) {
          presented.add(pair.substring(eq + 1));
        }
      }
    }
    String auth = req.getHeader("Authorization");
    if (auth != null && auth.startsWith("Bearer ") && auth.length() > 7) presented.add(auth.substring(7));
    String refusal = null;
    for (String token : presented) {
      FoyerPass.Result r = checker.verify(token);
      if (r.ok()) {
        req.setAttribute("foyer.pass", r);
        chain.doFilter(request, response);
        return;
      }
      if (refusal == null) refusal = r.error();
    }
    redirect(res, FoyerPass.refusalLocation(loginUrl, refusal, target));
  }

  private static void redirect(HttpServletResponse res, String location) {
    // setHeader, not sendRedirect: the container would make the path absolute.
    res.setStatus(HttpServletResponse.SC_FOUND);
    res.setHeader("Location", location);
    res.setHeader("Cache-Control", "no-store");
  }
}
