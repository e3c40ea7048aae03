package io.herald.devstack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** This class and {@link StackOncePerJvmSecondIT} record what they saw; either runs second. */
@HeraldIntegrationTest
class StackOncePerJvmIT {

  static final Set<HeraldStack> STACKS = ConcurrentHashMap.newKeySet();
  static final Map<Class<?>, String> DATABASES = new ConcurrentHashMap<>();

  private final StackContext stack;

  StackOncePerJvmIT(StackContext stack) {
    this.stack = stack;
  }

  @Test
  void shouldShareOneStackButNotDatabasesWithOtherTestClasses() {
    record(StackOncePerJvmIT.class, stack);
  }

  @Test
  void shouldGiveTheSameContextToConstructorAndMethod(StackContext fromMethod) {
    assertSame(stack, fromMethod);
    assertEquals(stack.topic("events"), fromMethod.topic("events"));
    assertNotEquals(stack.topic("events"), stack.topic("other"));
  }

  static void record(Class<?> testClass, StackContext stack) {
    assertSame(HeraldStack.shared(), stack.stack());
    STACKS.add(stack.stack());
    assertEquals(1, STACKS.size(), "test classes saw different stacks: " + STACKS);
    DATABASES.put(testClass, stack.database());
    assertEquals(
        DATABASES.size(),
        Set.copyOf(DATABASES.values()).size(),
        "test classes shared a database: " + DATABASES);
  }
}
