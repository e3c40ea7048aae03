package io.herald.devstack;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClassStackContextTest {

  static class A$Very_Long$NestedTestClassNameThatGoesOnAndOnWellPastPostgresIdentifierLimitsIT {}

  @Test
  void shouldDeriveLowerCaseIdentifiersThatFitPostgresLimits() {
    String token =
        ClassStackContext.tokenFor(
            A$Very_Long$NestedTestClassNameThatGoesOnAndOnWellPastPostgresIdentifierLimitsIT.class);
    assertTrue(token.matches("[a-z][a-z0-9_]*"), token);
    assertTrue(("slot_" + token).length() <= 63, token);
    assertTrue(PostgresServer.DATABASE_NAME.matcher(token).matches(), token);
  }

  @Test
  void shouldDeriveDifferentTokensForTheSameClass() {
    assertNotEquals(
        ClassStackContext.tokenFor(ClassStackContextTest.class),
        ClassStackContext.tokenFor(ClassStackContextTest.class));
  }
}
