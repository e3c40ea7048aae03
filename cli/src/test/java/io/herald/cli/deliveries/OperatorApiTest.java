package io.herald.cli.deliveries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import io.herald.cli.CliFailure;
import io.herald.cli.Herald;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each answer of the operator API mapped to its exit code, against a hand-written fake server. */
class OperatorApiTest {

  private static final UUID ID = UUID.fromString("0190c7d6-3b1e-7a5e-9f4b-2d1c3e4f5a6b");

  private HttpServer server;
  private final AtomicReference<String> request = new AtomicReference<>();
  private volatile int status = 200;
  private volatile String body = "[]";

  @BeforeEach
  void startFakeApi() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          request.set(
              exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Authorization")
                  + " "
                  + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          byte[] answer = body.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, answer.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
          }
        });
    server.start();
  }

  @AfterEach
  void stopFakeApi() {
    server.stop(0);
  }

  private OperatorApi api() {
    return new OperatorApi(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
        "secret",
        HttpClient.newHttpClient());
  }

  @Test
  void shouldSendTheBearerTokenStateAndLimit() {
    assertThat(api().list("UNCERTAIN", 7)).isEqualTo("[]");
    assertThat(request.get())
        .isEqualTo("GET /v1/deliveries?state=UNCERTAIN&limit=7 Bearer secret ");
  }

  @Test
  void shouldPostTheActionAsTheApiReadsIt() {
    body = "{\"actionId\":\"x\",\"from\":\"NEEDS_RECONCILIATION\",\"to\":\"PUBLISHED\"}";
    api().act(ID, new OperatorApi.ActionRequest("MARK_PUBLISHED", "alice", "seen", "r-1"));
    assertThat(request.get())
        .isEqualTo(
            "POST /v1/deliveries/"
                + ID
                + "/actions Bearer secret "
                + "{\"action\":\"MARK_PUBLISHED\",\"actor\":\"alice\",\"reason\":\"seen\",\"remoteId\":\"r-1\"}");
  }

  @ParameterizedTest
  @CsvSource({
    "404, 1, not_found: no delivery",
    "409, 1, not_allowed: no delivery",
    "400, 2, invalid_request: no delivery",
    "401, 2, refused the operator token",
    "413, 2, no delivery",
    "500, 3, from the operator API at",
    "503, 3, from the operator API at"
  })
  void shouldMapEachAnswerToItsExitCode(int answer, int exitCode, String message) {
    status = answer;
    String error = answer == 409 ? "not_allowed" : answer == 404 ? "not_found" : "invalid_request";
    body = "{\"error\":\"" + error + "\",\"message\":\"no delivery " + ID + "\"}";

    CliFailure failure = catchThrowableOfType(CliFailure.class, () -> api().show(ID));

    assertThat(failure.exitCode()).isEqualTo(exitCode);
    assertThat(failure.getMessage())
        .contains("read delivery " + ID)
        .contains(Integer.toString(answer))
        .contains(message);
  }

  @Test
  void shouldShowTheStartOfABodyThatIsNotTheApisErrorShape() {
    assertThat(OperatorApi.message("<html>" + "x".repeat(300))).hasSize(203).startsWith("<html>");
    assertThat(OperatorApi.message("{\"error\":\"e\",\"message\":\"m\"}")).isEqualTo("e: m");
  }

  @Test
  void shouldExitThreeWhenSomethingElseAnswersWithoutJson() {
    body = "<html>not the consumer</html>";
    OperatorApi api = api();
    String answer = api.list("PENDING", 1);

    CliFailure failure = catchThrowableOfType(CliFailure.class, () -> api.json(answer));

    assertThat(failure.exitCode()).isEqualTo(Herald.EXIT_UNREACHABLE);
    assertThat(failure.getMessage()).contains("not JSON").contains("<html>not the consumer");
  }

  @Test
  void shouldExitThreeWhenNothingListens() {
    server.stop(0);
    CliFailure failure = catchThrowableOfType(CliFailure.class, () -> api().list("PENDING", 1));
    assertThat(failure.exitCode()).isEqualTo(Herald.EXIT_UNREACHABLE);
  }
}
