package io.herald.writer;

import io.herald.config.ConfigSource;
import io.herald.devstack.HeraldStackExtension;
import io.herald.devstack.StackContext;
import io.herald.writer.auth.TenantTokens;
import io.herald.writer.config.WriterConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A writer started in-process against a test class's database, on free ports, and an HTTP client
 * that talks to it over real HTTP. Two tenants are configured: {@link #TENANT_A} and {@link
 * #TENANT_B}.
 *
 * <p>Two lifecycles. One writer for a whole test class, as a JUnit extension on a class marked
 * {@code @HeraldIntegrationTest}: started before the class's {@code @BeforeAll} methods, closed
 * after its {@code @AfterAll} methods.
 *
 * <pre>{@code
 * @HeraldIntegrationTest
 * class AuthIT {
 *   @RegisterExtension static final RunningWriter writer = RunningWriter.perClass();
 *   ...
 * }
 * }</pre>
 *
 * <p>Or one writer per call of {@link #start(StackContext, Map)}, closed by the caller (tests that
 * restart it or change its settings). Thread-safe once started.
 */
public final class RunningWriter implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

  public static final String TENANT_A = "tenant-a";
  public static final String TENANT_B = "tenant-b";
  public static final String TOKEN_A = "token-of-tenant-a-0123456789";
  public static final String TOKEN_B = "token-of-tenant-b-9876543210";
  public static final String JSON = "application/json";

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final Function<StackContext, Map<String, String>> perClassOverrides;
  // Set once: at construction (start), or in beforeAll of the class that registered it (perClass).
  private volatile WriterProcess process;
  private volatile DataSource dataSource;
  private volatile String startedFor;

  private RunningWriter(WriterProcess process, DataSource dataSource) {
    this.perClassOverrides = null;
    this.process = process;
    this.dataSource = dataSource;
  }

  private RunningWriter(Function<StackContext, Map<String, String>> perClassOverrides) {
    this.perClassOverrides = perClassOverrides;
  }

  /** A writer with the default test {@link #properties} for the class that registers it. */
  public static RunningWriter perClass() {
    return perClass(Map.of());
  }

  /** As {@link #perClass()}, with {@code overrides} replacing or adding keys. */
  public static RunningWriter perClass(Map<String, String> overrides) {
    Map<String, String> copy = Map.copyOf(overrides);
    return perClass(stack -> copy);
  }

  /** As {@link #perClass()}, with overrides that depend on the class's stack context. */
  public static RunningWriter perClass(Function<StackContext, Map<String, String>> overrides) {
    return new RunningWriter(overrides);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (perClassOverrides == null) {
      throw new IllegalStateException("a writer from start() is closed by its caller");
    }
    if (startedFor != null) {
      return; // a @Nested class shares the writer of the class that registered it
    }
    StackContext stack = HeraldStackExtension.stackContext(context);
    WriterConfig config =
        WriterConfig.from(
            ConfigSource.of(properties(stack, perClassOverrides.apply(stack)), Map.of()));
    dataSource = stack.dataSource();
    process = WriterProcess.start(config);
    startedFor = context.getUniqueId();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (context.getUniqueId().equals(startedFor)) {
      close();
      startedFor = null;
    }
  }

  /** The properties every test writer uses; {@code overrides} replace or add keys. */
  public static Map<String, String> properties(StackContext stack, Map<String, String> overrides) {
    Map<String, String> properties = new HashMap<>();
    properties.put("writer.http.host", "127.0.0.1");
    properties.put("writer.http.port", "0");
    properties.put("writer.ops.host", "127.0.0.1");
    properties.put("writer.ops.port", "0");
    properties.put("writer.db.jdbc-url", stack.jdbcUrl());
    properties.put("writer.db.user", stack.user());
    properties.put("writer.db.password", stack.password());
    properties.put("writer.capture.publication", stack.publication());
    properties.put("writer.capture.slot", stack.slot());
    properties.put("writer.outbox.retention", "keep");
    // Off unless a test is about it (status ITs turn it on with the stack's Kafka).
    properties.put("writer.status.enabled", "false");
    properties.put("writer.tenants." + TENANT_A + ".token-sha256", TenantTokens.sha256Hex(TOKEN_A));
    properties.put("writer.tenants." + TENANT_B + ".token-sha256", TenantTokens.sha256Hex(TOKEN_B));
    properties.putAll(overrides);
    return properties;
  }

  public static RunningWriter start(StackContext stack) {
    return start(stack, Map.of());
  }

  public static RunningWriter start(StackContext stack, Map<String, String> overrides) {
    WriterConfig config =
        WriterConfig.from(ConfigSource.of(properties(stack, overrides), Map.of()));
    return new RunningWriter(WriterProcess.start(config), stack.dataSource());
  }

  public WriterProcess process() {
    return started();
  }

  public DataSource dataSource() {
    started();
    return dataSource;
  }

  private WriterProcess started() {
    WriterProcess running = process;
    if (running == null) {
      throw new IllegalStateException(
          "the writer is not started: register RunningWriter.perClass() with @RegisterExtension"
              + " on a static field of an @HeraldIntegrationTest class");
    }
    return running;
  }

  public HttpResponse<String> post(String path, String token, String json) {
    return post(path, token, json, Map.of());
  }

  public HttpResponse<String> post(
      String path, String token, String json, Map<String, String> headers) {
    return send(path, token, JSON, json.getBytes(StandardCharsets.UTF_8), headers);
  }

  /** A POST with any content type and raw bytes; a null token sends no Authorization header. */
  public HttpResponse<String> send(
      String path, String token, String contentType, byte[] body, Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    headers.forEach(request::header);
    return exchange(request.build());
  }

  public HttpResponse<String> get(String path, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return exchange(request.GET().build());
  }

  /** A GET on the ops server ({@code /health}, {@code /metrics}). */
  public HttpResponse<String> ops(String path) {
    return exchange(
        HttpRequest.newBuilder(started().opsUri().resolve(path))
            .timeout(Duration.ofSeconds(30))
            .GET()
            .build());
  }

  public HttpResponse<String> exchange(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public URI uri(String path) {
    return started().apiUri().resolve(path);
  }

  /** The single {@code count(*)}-style long a query returns. */
  public long count(String sql, Object... parameters) {
    try (Connection connection = dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** The columns of the first row a query returns, by label; empty when there is none. */
  public Map<String, Object> row(String sql, Object... parameters) {
    try (Connection connection = dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        Map<String, Object> row = new HashMap<>();
        if (rows.next()) {
          for (int c = 1; c <= rows.getMetaData().getColumnCount(); c++) {
            row.put(rows.getMetaData().getColumnLabel(c), rows.getObject(c));
          }
        }
        return row;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  @Override
  public void close() {
    started().close();
  }
}
