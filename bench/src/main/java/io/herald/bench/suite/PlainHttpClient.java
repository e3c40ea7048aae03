package io.herald.bench.suite;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal blocking HTTP/1.1 client over one keep-alive connection, for the benchmarks' load
 * generators: the JDK client spends more CPU per request than the writer does, and on a small
 * machine the generator competes with the server for the same cores (as wrk would, far less).
 * Understands exactly what the writer sends back: a status line, headers, a Content-Length body.
 * Not thread-safe: one per send at a time, taken from a {@link PlainHttpConnections} pool.
 */
public final class PlainHttpClient implements AutoCloseable {

  /**
   * One answer.
   *
   * @param retryAfter the {@code Retry-After} header as sent, null without one
   */
  public record Response(int status, String retryAfter, String body) {}

  private final String host;
  private final int port;
  private Socket socket;
  private OutputStream out;
  private InputStream in;

  public PlainHttpClient(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /** POSTs {@code json} with a bearer {@code token} and reads the whole answer. */
  public Response post(String path, String token, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nAuthorization: Bearer "
            + token
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\n\r\n";
    connect();
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    return readResponse();
  }

  /** Whether the connection is open (the server may have asked to close it). */
  boolean isOpen() {
    return socket != null;
  }

  private void connect() throws IOException {
    if (socket == null) {
      socket = new Socket(host, port);
      socket.setTcpNoDelay(true);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream(), 8192);
    }
  }

  private Response readResponse() throws IOException {
    String status = line();
    int code = Integer.parseInt(status.substring(9, 12));
    int length = 0;
    boolean close = false;
    String retryAfter = null;
    for (String header = line(); !header.isEmpty(); header = line()) {
      int colon = header.indexOf(':');
      String name = header.substring(0, colon).trim();
      String value = header.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("Content-Length")) {
        length = Integer.parseInt(value);
      } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
        close = true;
      } else if (name.equalsIgnoreCase("Retry-After")) {
        retryAfter = value;
      }
    }
    String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
    if (close) {
      close();
    }
    return new Response(code, retryAfter, body);
  }

  private String line() throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed by the server");
      }
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  @Override
  public void close() throws IOException {
    if (socket != null) {
      socket.close();
      socket = null;
    }
  }
}
