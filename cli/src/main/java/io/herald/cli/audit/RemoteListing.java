package io.herald.cli.audit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.herald.cli.CliFailure;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Reads a destination's list of articles and stages each one's external reference and remote id.
 * The listing is JSON, parsed as a stream (never held whole): either an array of articles or an
 * object whose {@code articles} field is one, each article an object with {@code id} and {@code
 * externalReference} (the simulator's {@code GET /admin/articles} answers so). Herald sends its
 * idempotency key as the external reference, so two articles with one reference are two remote
 * articles for one intent. Stateless.
 */
final class RemoteListing {

  private static final JsonFactory JSON = new JsonFactory();

  private final HttpClient http;
  private final Duration timeout;

  RemoteListing(HttpClient http, Duration timeout) {
    this.http = http;
    this.timeout = timeout;
  }

  /** Stages every article of {@code url}; returns how many. */
  long read(URI url, Staging staging) throws SQLException {
    HttpRequest request =
        HttpRequest.newBuilder(url).timeout(timeout).header("Accept", "application/json").build();
    HttpResponse<InputStream> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw CliFailure.unreachable("cannot list remote articles at " + url, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliFailure.unreachable("interrupted listing remote articles at " + url, e);
    }
    try (InputStream body = response.body();
        JsonParser parser = JSON.createParser(body)) {
      if (response.statusCode() != 200) {
        throw CliFailure.unreachable(
            "listing remote articles at " + url + " answered " + response.statusCode(), null);
      }
      return articles(parser, staging, url);
    } catch (IOException e) {
      throw CliFailure.unreachable("cannot read the remote articles listed at " + url, e);
    }
  }

  private static long articles(JsonParser parser, Staging staging, URI url)
      throws IOException, SQLException {
    JsonToken first = parser.nextToken();
    if (first == JsonToken.START_OBJECT) {
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        if ("articles".equals(field) && value == JsonToken.START_ARRAY) {
          return array(parser, staging, url);
        }
        parser.skipChildren();
      }
      throw CliFailure.unreachable(url + " answered an object without an articles array", null);
    }
    if (first != JsonToken.START_ARRAY) {
      throw CliFailure.unreachable(url + " answered neither an array nor an object", null);
    }
    return array(parser, staging, url);
  }

  private static long array(JsonParser parser, Staging staging, URI url)
      throws IOException, SQLException {
    long count = 0;
    while (parser.nextToken() == JsonToken.START_OBJECT) {
      String id = null;
      String reference = null;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        parser.nextToken();
        switch (field) {
          case "id" -> id = parser.getValueAsString();
          case "externalReference" -> reference = parser.getValueAsString();
          default -> parser.skipChildren();
        }
      }
      if (id == null) {
        throw CliFailure.unreachable(url + " listed an article without an id", null);
      }
      if (reference != null) {
        staging.add(Staging.Table.REMOTE, reference, id);
      }
      count++;
    }
    return count;
  }
}
