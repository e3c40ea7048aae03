package io.herald.writer.auth;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads the tenant from an {@code Authorization: Bearer <token>} header (RFC 6750). The tenant of a
 * request comes from here only, never from its body.
 *
 * <p>Immutable and thread-safe.
 */
public final class BearerAuthenticator {

  private static final String SCHEME = "Bearer";

  /** A bearer token is a token68 (RFC 7235): nothing else is even hashed. */
  private static final Pattern TOKEN68 = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");

  private static final int MAX_TOKEN_LENGTH = 4096;

  private final TenantTokens tokens;

  public BearerAuthenticator(TenantTokens tokens) {
    this.tokens = Objects.requireNonNull(tokens, "tokens");
  }

  /**
   * @param authorization the {@code Authorization} header value, {@code null} when absent
   * @return the tenant; empty when the header is absent, malformed, or the token unknown
   */
  public Optional<String> tenantOf(String authorization) {
    if (authorization == null) {
      return Optional.empty();
    }
    String value = authorization.strip();
    if (value.length() <= SCHEME.length()
        || !value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())
        || value.charAt(SCHEME.length()) != ' ') {
      return Optional.empty();
    }
    String token = value.substring(SCHEME.length() + 1).strip();
    if (token.isEmpty() || token.length() > MAX_TOKEN_LENGTH || !TOKEN68.matcher(token).matches()) {
      return Optional.empty();
    }
    return tokens.tenantOf(token);
  }
}
