package io.herald.devstack;

import org.junit.jupiter.api.Test;

@HeraldIntegrationTest
class StackOncePerJvmSecondIT {

  @Test
  void shouldShareOneStackButNotDatabasesWithOtherTestClasses(StackContext stack) {
    StackOncePerJvmIT.record(StackOncePerJvmSecondIT.class, stack);
  }
}
