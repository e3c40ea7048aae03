package io.herald.bench.writer;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal blocking HTTP/1.1 client over one keep-alive connection, for the benchmark's load
 * generator: the JDK client spends more CPU per request than the writer does, and on a small
 * machine the generator competes with the server for the same cores (as wrk would, far less).
 * Understands exactly what the writer sends back: a status line, headers, a Content-Length body.
 * Not thread-safe: one per client thread.
 */
final class PlainHttpClient implements AutoCloseable {

  private final String host;
  private final int port;
  private Socket socket;
  private OutputStream out;
  private InputStream in;

  PlainHttpClient(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /** POSTs {@code json} and returns the status code (the body is read and dropped). */
  int post(String path, String token, String json) throws IOException {
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

  private void connect() throws IOException {
    if (socket == null) {
      socket = new Socket(host, port);
      socket.setTcpNoDelay(true);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream(), 8192);
    }
  }

  private int readResponse() throws IOException {
    String status = line();
    int code = Integer.parseInt(status.substring(9, 12));
    int length = 0;
    boolean close = false;
    for (String header = line(); !header.isEmpty(); header = line()) {
      int colon = header.indexOf(':');
      String name = header.substring(0, colon).trim();
      String value = header.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("Content-Length")) {
        length = Integer.parseInt(value);
      } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
        close = true;
      }
    }
    in.readNBytes(length);
    if (close) {
      close();
    }
    return code;
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
