package io.herald.writer.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Maps bearer tokens to tenants. Only SHA-256 hashes of the tokens are configured, so the property
 * file and the heap never hold a usable token.
 *
 * <p>A presented token is hashed and compared with every configured hash using {@link
 * MessageDigest#isEqual} (time independent of where the bytes differ), without stopping at a match,
 * so the time taken reveals neither which tenant matched nor how close a guess came.
 *
 * <p>Immutable and thread-safe.
 */
public final class TenantTokens {

  private record Entry(String tenant, byte[] sha256) {}

  private final List<Entry> entries;

  private TenantTokens(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /**
   * @param sha256HexByTenant tenant name to the lowercase or uppercase hex SHA-256 of its token; a
   *     tenant with several tokens (rotation) is given by {@link #of(List)}
   * @throws IllegalArgumentException a hash is not 64 hex digits, or two tenants share a token
   */
  public static TenantTokens of(Map<String, String> sha256HexByTenant) {
    List<Map.Entry<String, String>> pairs = new ArrayList<>(sha256HexByTenant.entrySet());
    return of(pairs.stream().map(e -> new TenantToken(e.getKey(), e.getValue())).toList());
  }

  /** One configured token: a tenant and the hex SHA-256 of its token. */
  public record TenantToken(String tenant, String sha256Hex) {
    public TenantToken {
      Objects.requireNonNull(tenant, "tenant");
      Objects.requireNonNull(sha256Hex, "sha256Hex");
      if (tenant.isBlank()) {
        throw new IllegalArgumentException("tenant name must not be blank");
      }
      if (!sha256Hex.matches("[0-9a-fA-F]{64}")) {
        throw new IllegalArgumentException(
            "token hash of tenant '" + tenant + "' must be 64 hex digits (SHA-256)");
      }
    }
  }

  /** See {@link #of(Map)}; a tenant may appear several times (token rotation). */
  public static TenantTokens of(List<TenantToken> tokens) {
    List<Entry> entries = new ArrayList<>();
    for (TenantToken token : tokens) {
      byte[] hash = HexFormat.of().parseHex(token.sha256Hex().toLowerCase(Locale.ROOT));
      for (Entry existing : entries) {
        if (MessageDigest.isEqual(existing.sha256(), hash)
            && !existing.tenant().equals(token.tenant())) {
          throw new IllegalArgumentException(
              "tenants '"
                  + existing.tenant()
                  + "' and '"
                  + token.tenant()
                  + "' are configured with the same token hash");
        }
      }
      entries.add(new Entry(token.tenant(), hash));
    }
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("at least one tenant token must be configured");
    }
    return new TenantTokens(entries);
  }

  /** The configured tenants, each once, in configuration order. */
  public Set<String> tenants() {
    Set<String> tenants = new LinkedHashSet<>();
    entries.forEach(entry -> tenants.add(entry.tenant()));
    return Collections.unmodifiableSet(tenants);
  }

  /** The tenant whose token this is; empty for an unknown token. */
  public Optional<String> tenantOf(String token) {
    byte[] presented = sha256(token);
    String match = null;
    for (Entry entry : entries) {
      // No early exit: every entry is compared, whatever matched before.
      if (MessageDigest.isEqual(entry.sha256(), presented)) {
        match = entry.tenant();
      }
    }
    return Optional.ofNullable(match);
  }

  /** The hex SHA-256 of a token, as it is configured. */
  public static String sha256Hex(String token) {
    return HexFormat.of().formatHex(sha256(token));
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
