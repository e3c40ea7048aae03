package io.herald.writer.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TenantTokensTest {

  private final TenantTokens tokens =
      TenantTokens.of(
          Map.of(
              "t1", TenantTokens.sha256Hex("secret-1"), "t2", TenantTokens.sha256Hex("secret-2")));

  @Test
  void shouldFindTheTenantOfAKnownToken() {
    assertThat(tokens.tenantOf("secret-1")).hasValue("t1");
    assertThat(tokens.tenantOf("secret-2")).hasValue("t2");
  }

  @Test
  void shouldFindNoTenantForAnUnknownToken() {
    assertThat(tokens.tenantOf("secret-3")).isEmpty();
    assertThat(tokens.tenantOf("")).isEmpty();
    assertThat(tokens.tenantOf(TenantTokens.sha256Hex("secret-1")))
        .isEmpty(); // the hash is no token
  }

  @Test
  void shouldAcceptSeveralTokensOfOneTenantForRotation() {
    TenantTokens rotating =
        TenantTokens.of(
            List.of(
                new TenantTokens.TenantToken("t1", TenantTokens.sha256Hex("old")),
                new TenantTokens.TenantToken("t1", TenantTokens.sha256Hex("new").toUpperCase())));

    assertThat(rotating.tenantOf("old")).hasValue("t1");
    assertThat(rotating.tenantOf("new")).hasValue("t1");
  }

  @Test
  void shouldRejectOneTokenForTwoTenants() {
    String hash = TenantTokens.sha256Hex("shared");
    assertThatThrownBy(
            () ->
                TenantTokens.of(
                    List.of(
                        new TenantTokens.TenantToken("t1", hash),
                        new TenantTokens.TenantToken("t2", hash))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("t1")
        .hasMessageContaining("t2");
  }

  @Test
  void shouldRejectAHashThatIsNotSha256Hex() {
    assertThatThrownBy(() -> TenantTokens.of(Map.of("t1", "not-a-hash")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("t1");
  }

  @Test
  void shouldRejectAnEmptyConfiguration() {
    assertThatThrownBy(() -> TenantTokens.of(Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
