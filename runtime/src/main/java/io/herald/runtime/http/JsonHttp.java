package io.herald.runtime.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.herald.common.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Herald's one JSON-over-HTTP convention on Jetty 12 core: bodies read with a size bound by the
 * strict shared mapper ({@link Json}), answers written by Jackson from records, never trees built
 * field by field, and every answer {@code no-store}. Thread-safe (stateless).
 */
public final class JsonHttp {

  public static final String JSON = "application/json";

  private static final ObjectMapper MAPPER = Json.mapper();

  /** The most of a refused body read and dropped before its 413 is answered. */
  static final int DISCARD_LIMIT = 1 << 20;

  private JsonHttp() {}

  /**
   * Reads the request body as {@code type}, at most {@code maxBytes} of it.
   *
   * @throws HttpProblem 413 {@code payload_too_large} past the bound (announced by Content-Length
   *     or found while reading), 400 {@code malformed_json} for a body that is not JSON of that
   *     shape, 400 {@code unreadable_body} when the client stops sending
   */
  public static <T> T readBody(Request request, int maxBytes, Class<T> type) throws HttpProblem {
    long announced = request.getLength();
    byte[] body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      if (announced > maxBytes) {
        discard(in, announced);
        throw tooLarge(maxBytes);
      }
      body = in.readNBytes(maxBytes + 1);
      if (body.length > maxBytes) {
        discard(in, DISCARD_LIMIT);
        throw tooLarge(maxBytes);
      }
    } catch (IOException e) {
      throw HttpProblem.badRequest("unreadable_body", "the request body could not be read");
    }
    if (body.length == 0) {
      throw HttpProblem.badRequest("malformed_json", "the request body is empty");
    }
    try {
      T value = MAPPER.readValue(body, type);
      if (value == null) {
        throw HttpProblem.badRequest("malformed_json", "the request body is null");
      }
      return value;
    } catch (JsonProcessingException e) {
      // The location only: Jackson's message quotes the input back and names internal types.
      throw HttpProblem.badRequest(
          "malformed_json",
          "the request body is not a valid "
              + type.getSimpleName()
              + " (line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr()
              + ")");
    } catch (IOException e) {
      throw HttpProblem.badRequest("unreadable_body", "the request body could not be read");
    }
  }

  /** Writes {@code body} (a record, list or map) as JSON with {@code status}. */
  public static void write(Response response, Callback callback, int status, Object body) {
    byte[] bytes;
    try {
      bytes = MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + body.getClass().getName() + " as JSON", e);
    }
    write(response, callback, status, JSON, bytes, false);
  }

  /** Writes a problem as its error body, with its headers. */
  public static void write(Response response, Callback callback, HttpProblem problem) {
    problem.headers().forEach((name, value) -> response.getHeaders().put(name, value));
    write(response, callback, problem.status(), problem.body());
  }

  /** Writes raw bytes with a content type; {@code head} writes the headers only. */
  public static void write(
      Response response,
      Callback callback,
      int status,
      String contentType,
      byte[] body,
      boolean head) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, head ? ByteBuffer.allocate(0) : ByteBuffer.wrap(body), callback);
  }

  /** {@code text} as UTF-8 bytes. */
  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads and drops what is left of a refused body, up to {@link #DISCARD_LIMIT}, so that Jetty
   * finds the request consumed and keeps the connection, instead of closing it under a client that
   * may still be sending or about to reuse it (the consumer's operator API test once saw a 413
   * request end with no answer at all). Past the limit the connection is closed unread. A read that
   * fails ends the discarding only: the answer is the 413 either way.
   */
  private static void discard(InputStream in, long announced) {
    if (announced > DISCARD_LIMIT) {
      return;
    }
    byte[] buffer = new byte[8192];
    long left = DISCARD_LIMIT;
    try {
      int read;
      while (left > 0 && (read = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0) {
        left -= read;
      }
    } catch (IOException stopped) {
      // The client stopped sending or went away: nothing more to drop, and the 413 stands.
    }
  }

  private static HttpProblem tooLarge(int maxBytes) {
    return HttpProblem.tooLarge("the request body is larger than " + maxBytes + " bytes");
  }
}
