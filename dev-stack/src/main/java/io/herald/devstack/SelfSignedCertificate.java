package io.herald.devstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away self-signed certificate and its private key as PEM, for servers the tests start with
 * TLS on (the certificate is its own trusted root). Made by the JDK's {@code keytool}, since the
 * JDK has no public API that signs a certificate.
 *
 * @param certificatePem the certificate ({@code BEGIN CERTIFICATE})
 * @param privateKeyPem its unencrypted PKCS#8 key ({@code BEGIN PRIVATE KEY})
 */
public record SelfSignedCertificate(String certificatePem, String privateKeyPem) {

  private static final String ALIAS = "herald-test";
  private static final char[] STORE_PASSWORD = "herald-test".toCharArray();

  /**
   * A certificate for {@code CN=localhost}, valid for two days, naming {@code localhost} and {@code
   * 127.0.0.1} as subject alternative names so that clients verifying the host accept it.
   */
  public static SelfSignedCertificate forLocalhost() {
    try {
      Path work = Files.createTempDirectory("herald-tls");
      try {
        return generate(work.resolve("store.p12"));
      } finally {
        try (var files = Files.list(work)) {
          for (Path file : files.toList()) {
            Files.delete(file);
          }
        }
        Files.delete(work);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("making a self-signed certificate failed", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("reading the self-signed certificate failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while making a self-signed certificate", e);
    }
  }

  private static SelfSignedCertificate generate(Path store)
      throws IOException, InterruptedException, GeneralSecurityException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(
        List.of(
            "-genkeypair",
            "-alias",
            ALIAS,
            "-keyalg",
            "RSA",
            "-keysize",
            "2048",
            "-validity",
            "2",
            "-dname",
            "CN=localhost",
            "-ext",
            "SAN=DNS:localhost,IP:127.0.0.1",
            "-storetype",
            "PKCS12",
            "-keystore",
            store.toString(),
            "-storepass",
            new String(STORE_PASSWORD)));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException("keytool failed: " + output);
    }
    KeyStore keyStore = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keyStore.load(in, STORE_PASSWORD);
    }
    return new SelfSignedCertificate(
        pem("CERTIFICATE", keyStore.getCertificate(ALIAS).getEncoded()),
        pem("PRIVATE KEY", keyStore.getKey(ALIAS, STORE_PASSWORD).getEncoded()));
  }

  private static String pem(String type, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }

  /** Hides the key, so that the record can be logged. */
  @Override
  public String toString() {
    return "SelfSignedCertificate[CN=localhost, key hidden]";
  }
}
