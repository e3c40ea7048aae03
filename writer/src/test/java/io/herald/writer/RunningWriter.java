package io.herald.writer;

import io.herald.config.ConfigSource;
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
import javax.sql.DataSource;

/**
 * A writer started in-process against a test class's database, on free ports, and an HTTP client
 * that talks to it over real HTTP. Two tenants are configured: {@link #TENANT_A} and {@link
 * #TENANT_B}.
 */
public final class RunningWriter implements AutoCloseable {

  public static final String TENANT_A = "tenant-a";
  public static final String TENANT_B = "tenant-b";
  public static final String TOKEN_A = "token-of-tenant-a-0123456789";
  public static final String TOKEN_B = "token-of-tenant-b-9876543210";
  public static final String JSON = "application/json";

  private final WriterProcess process;
  private final HttpClient http;
  private final DataSource dataSource;

  private RunningWriter(WriterProcess process, DataSource dataSource) {
    this.process = process;
    this.dataSource = dataSource;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
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
    return process;
  }

  public DataSource dataSource() {
    return dataSource;
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
        HttpRequest.newBuilder(process.opsUri().resolve(path))
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
    return process.apiUri().resolve(path);
  }

  /** The single {@code count(*)}-style long a query returns. */
  public long count(String sql, Object... parameters) {
    try (Connection connection = dataSource.getConnection();
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
    try (Connection connection = dataSource.getConnection();
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
    process.close();
  }
}
