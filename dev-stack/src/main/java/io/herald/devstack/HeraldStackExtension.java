package io.herald.devstack;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The JUnit 5 extension behind {@link HeraldIntegrationTest}: starts the shared stack on first use,
 * creates one {@link StackContext} per top-level test class (nested classes share it) and resolves
 * it as a parameter. The context is stored in the class's extension store, so JUnit closes it
 * (dropping the class's replication slots) when the class finishes.
 */
public final class HeraldStackExtension implements BeforeAllCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(HeraldStackExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    contextFor(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == StackContext.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return contextFor(context);
  }

  /**
   * The {@link StackContext} of the test class {@code context} belongs to, created on first use:
   * for a service harness that is itself an extension ({@code @RegisterExtension}) and starts its
   * process in its own {@code beforeAll}, on a class marked {@link HeraldIntegrationTest}.
   */
  public static StackContext stackContext(ExtensionContext context) {
    return contextFor(context);
  }

  /** Created lazily: with a per-class lifecycle the constructor runs before {@code beforeAll}. */
  private static StackContext contextFor(ExtensionContext context) {
    ExtensionContext classContext = topLevelClassContext(context);
    Class<?> testClass = classContext.getRequiredTestClass();
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            testClass,
            key -> {
              HeraldStack stack = HeraldStack.shared();
              SharedStack.testClassStarted();
              return ClassStackContext.create(stack, testClass);
            },
            ClassStackContext.class);
  }

  private static ExtensionContext topLevelClassContext(ExtensionContext context) {
    ExtensionContext current = context;
    while (current.getParent().isPresent() && current.getParent().get().getParent().isPresent()) {
      current = current.getParent().get();
    }
    return current;
  }
}
