package io.herald.writer.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BearerAuthenticatorTest {

  private final BearerAuthenticator authenticator =
      new BearerAuthenticator(
          TenantTokens.of(Map.of("t1", TenantTokens.sha256Hex("abc.DEF-123_~+/="))));

  @Test
  void shouldReadTheTenantFromABearerHeader() {
    assertThat(authenticator.tenantOf("Bearer abc.DEF-123_~+/=")).hasValue("t1");
    assertThat(authenticator.tenantOf("bearer abc.DEF-123_~+/=")).hasValue("t1");
    assertThat(authenticator.tenantOf("  Bearer abc.DEF-123_~+/=  ")).hasValue("t1");
  }

  @Test
  void shouldRefuseMissingMalformedAndOtherSchemes() {
    assertThat(authenticator.tenantOf(null)).isEmpty();
    assertThat(authenticator.tenantOf("")).isEmpty();
    assertThat(authenticator.tenantOf("Bearer")).isEmpty();
    assertThat(authenticator.tenantOf("Bearer ")).isEmpty();
    assertThat(authenticator.tenantOf("Bearerabc.DEF-123_~+/=")).isEmpty();
    assertThat(authenticator.tenantOf("Basic abc.DEF-123_~+/=")).isEmpty();
    assertThat(authenticator.tenantOf("Bearer abc DEF")).isEmpty();
    assertThat(authenticator.tenantOf("Bearer " + "a".repeat(5000))).isEmpty();
  }
}
