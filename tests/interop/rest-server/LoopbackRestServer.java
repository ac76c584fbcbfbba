// Runs Apache Iceberg's REST catalog test server (RESTCatalogServer of
// iceberg-open-api's test fixtures) on one address instead of every
// interface: its own main() binds 0.0.0.0 and has no host setting. The
// backend catalog is configured exactly as RESTCatalogServer does it, from
// CATALOG_* environment variables (CATALOG_URI, CATALOG_WAREHOUSE, ...); the
// address and port come from the arguments.
//
//   java -cp CLASSPATH LoopbackRestServer.java HOST PORT
//
// Started and stopped by scripts/services/iceberg-rest.sh.

import jakarta.servlet.Servlet;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class LoopbackRestServer {
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: LoopbackRestServer HOST PORT");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);

    // The fixtures keep their pieces package-private; reach them by reflection
    // so the backend catalog and the servlet are exactly the fixtures' own.
    Class<?> serverClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServer");
    Constructor<?> serverCtor = serverClass.getDeclaredConstructor();
    serverCtor.setAccessible(true);
    Object fixtures = serverCtor.newInstance();
    Method backend = serverClass.getDeclaredMethod("initializeBackendCatalog");
    backend.setAccessible(true);
    Object context = backend.invoke(fixtures);

    Class<?> contextClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServer$CatalogContext");
    Class<?> adapterClass = Class.forName("org.apache.iceberg.rest.RESTServerCatalogAdapter");
    Constructor<?> adapterCtor = adapterClass.getDeclaredConstructor(contextClass);
    adapterCtor.setAccessible(true);
    Object adapter = adapterCtor.newInstance(context);

    Class<?> servletClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServlet");
    Class<?> restAdapterClass = Class.forName("org.apache.iceberg.rest.RESTCatalogAdapter");
    Servlet servlet = (Servlet) servletClass.getConstructor(restAdapterClass).newInstance(adapter);

    ServletContextHandler handler = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    handler.addServlet(new ServletHolder(servlet), "/*");

    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(handler);
    server.start();
    System.out.println("iceberg REST catalog listening on " + host + ":" + port);
    server.join();
  }
}
