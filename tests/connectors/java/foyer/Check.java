package foyer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.servlet.DispatcherType;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * The Java connector's test driver (tests/connectors/conformance.test.js):
 *   Check vectors FILE                              the verdicts on the shared vectors, as JSON
 *   Check serve ISSUER ROOM JWKS_URL LOGIN_URL      Debian's Jetty 9 on a loopback port, /shop/* behind the filter, / open
 *   Check done FOYER_URL ROOM SITE_TOKEN JTI        reports the pass finished; prints Foyer's answer
 */
public final class Check {
  private static String quote(String s) {
    if (s == null) return "null";
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20 || c > 0x7e) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }

  @SuppressWarnings("unchecked")
  static void vectors(String file) throws Exception {
    Map<String, Object> v = (Map<String, Object>) FoyerPass.Json.parse(Files.readString(Path.of(file)));
    Map<String, Map<String, FoyerPass.Key>> keys = new HashMap<>();
    for (var e : ((Map<String, Object>) v.get("keys")).entrySet()) {
      keys.put(e.getKey(), FoyerPass.loadKeys(toJson(e.getValue())));
    }
    StringBuilder out = new StringBuilder("{\"passes\":{");
    String sep = "";
    for (Object o : (List<Object>) v.get("passes")) {
      Map<String, Object> p = (Map<String, Object>) o;
      FoyerPass.Result r = FoyerPass.verify((String) p.get("token"), keys.get(p.get("keys")), (String) v.get("issuer"),
          (String) v.get("room"), (Long) v.get("leeway_seconds"), (Long) p.get("now"));
      out.append(sep).append(quote((String) p.get("name"))).append(":{\"ok\":").append(r.ok())
          .append(",\"error\":").append(quote(r.error())).append(",\"sub\":").append(quote(r.sub())).append('}');
      sep = ",";
    }
    out.append("},\"destinations\":{");
    sep = "";
    for (Object o : (List<Object>) v.get("destinations")) {
      String target = (String) ((Map<String, Object>) o).get("target");
      out.append(sep).append(quote(target)).append(':').append(quote(FoyerPass.entryLocation(target)));
      sep = ",";
    }
    out.append("},\"refusals\":{");
    sep = "";
    for (Object o : (List<Object>) v.get("refusals")) {
      Map<String, Object> r = (Map<String, Object>) o;
      Object error = r.get("error");
      out.append(sep).append(quote((String) r.get("name"))).append(':')
          .append(quote(FoyerPass.refusalLocation((String) v.get("login_url"), error instanceof String s ? s : null,
              (String) r.get("target"))));
      sep = ",";
    }
    System.out.println(out.append("}}"));
  }

  // The key sets back to JSON text, as the connector reads a JWKS.
  @SuppressWarnings("unchecked")
  private static String toJson(Object v) {
    if (v instanceof Map<?, ?> m) {
      StringBuilder out = new StringBuilder("{");
      String sep = "";
      for (var e : ((Map<String, Object>) m).entrySet()) {
        out.append(sep).append(quote(e.getKey())).append(':').append(toJson(e.getValue()));
        sep = ",";
      }
      return out.append('}').toString();
    }
    if (v instanceof List<?> l) {
      StringBuilder out = new StringBuilder("[");
      String sep = "";
      for (Object item : l) {
        out.append(sep).append(toJson(item));
        sep = ",";
      }
      return out.append(']').toString();
    }
    return v instanceof String s ? quote(s) : String.valueOf(v);
  }

  static void serve(String issuer, String room, String jwksUrl, String loginUrl) throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    FilterHolder filter = new FilterHolder(FoyerPassFilter.class);
    filter.setInitParameter("issuer", issuer);
    filter.setInitParameter("room", room);
    filter.setInitParameter("jwks-url", jwksUrl);
    filter.setInitParameter("login-url", loginUrl);
    context.addFilter(filter, "/shop/*", java.util.EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse res) throws java.io.IOException {
        FoyerPass.Result pass = (FoyerPass.Result) req.getAttribute("foyer.pass");
        res.setContentType("application/json");
        res.getWriter().print("{\"visitor\":" + quote(pass == null ? null : pass.sub()) + "}");
      }
    }), "/shop/*");
    // Every other path: an open page, as the servlet's mapping reads the path.
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse res) throws java.io.IOException {
        res.setContentType("application/json");
        res.getWriter().print("{\"page\":\"open\"}");
      }
    }), "/");
    server.setHandler(context);
    server.start();
    System.out.println("listening on http://127.0.0.1:" + connector.getLocalPort());
    server.join();
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("vectors")) {
      vectors(args[1]);
    } else if (args.length == 5 && args[0].equals("done")) {
      System.out.println(FoyerPass.done(args[1], args[2], args[3], List.of(args[4])));
    } else if (args.length == 5 && args[0].equals("serve")) {
      serve(args[1], args[2], args[3], args[4]);
    } else {
      System.err.println("usage: Check vectors FILE | serve ISSUER ROOM JWKS_URL LOGIN_URL");
      System.exit(2);
    }
  }
}
