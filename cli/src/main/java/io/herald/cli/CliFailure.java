package io.herald.cli;

/**
 * A command that cannot finish, with the exit code that says why ({@link Herald#EXIT_VIOLATION},
 * {@link Herald#EXIT_USAGE}, {@link Herald#EXIT_UNREACHABLE}) and a message for the operator.
 * {@link Herald} prints the message (and the cause's, when there is one) on standard error and
 * exits with the code; nothing else catches it.
 */
public final class CliFailure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int exitCode;

  private CliFailure(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  /** A violation was found, or the action was refused: exit 1. */
  public static CliFailure violation(String message) {
    return new CliFailure(Herald.EXIT_VIOLATION, message, null);
  }

  /** Bad usage or configuration: exit 2. */
  public static CliFailure usage(String message) {
    return new CliFailure(Herald.EXIT_USAGE, message, null);
  }

  /** Bad usage or configuration found by a dependency (a refused password, say): exit 2. */
  public static CliFailure usage(String message, Throwable cause) {
    return new CliFailure(Herald.EXIT_USAGE, message, cause);
  }

  /** A dependency (database, Kafka, a process's API) could not be reached: exit 3. */
  public static CliFailure unreachable(String message, Throwable cause) {
    return new CliFailure(Herald.EXIT_UNREACHABLE, message, cause);
  }

  public int exitCode() {
    return exitCode;
  }
}
