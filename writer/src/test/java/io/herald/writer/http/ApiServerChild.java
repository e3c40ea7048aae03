package io.herald.writer.http;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The child {@link ApiServerBacklogTest} freezes: the API server alone, answering 204, with {@code
 * <max concurrent requests> <max queued requests>}; prints {@code port=<port>} once listening.
 */
public final class ApiServerChild {

  private ApiServerChild() {}

  public static void main(String[] args) throws Exception {
    Handler noContent =
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            response.setStatus(204);
            callback.succeeded();
            return true;
          }
        };
    ApiServer server =
        ApiServer.start(
            noContent,
            new ApiServer.Settings(
                "127.0.0.1",
                0,
                Duration.ofSeconds(30),
                Integer.parseInt(args[0]),
                Integer.parseInt(args[1]),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1)),
            new SimpleMeterRegistry());
    System.out.println("port=" + server.port());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
