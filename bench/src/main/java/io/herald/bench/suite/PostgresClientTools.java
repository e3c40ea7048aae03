package io.herald.bench.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The PostgreSQL client programs the benchmarks run as peers ({@code pgbench}, {@code
 * pg_recvlogical}; Debian package postgresql-client): found on the {@code PATH}, else in {@code
 * /usr/lib/postgresql/<version>/bin}, the highest version first.
 */
public final class PostgresClientTools {

  private static final Path DEBIAN_VERSIONS = Path.of("/usr/lib/postgresql");

  private PostgresClientTools() {}

  /** The program; fails naming the package to install when there is none. */
  public static Path locate(String program) {
    return locate(program, System.getenv("PATH"), DEBIAN_VERSIONS)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    program
                        + " not found on the PATH nor in "
                        + DEBIAN_VERSIONS
                        + "/*/bin: install the Debian package postgresql-client"
                        + " (apt-get install postgresql-client)"));
  }

  /**
   * The first executable {@code program} of {@code path} (colon-separated directories), else that
   * of the highest version under {@code debianVersions}.
   */
  static Optional<Path> locate(String program, String path, Path debianVersions) {
    if (path != null) {
      for (String dir : path.split(":")) {
        if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
          return Optional.of(Path.of(dir, program));
        }
      }
    }
    if (!Files.isDirectory(debianVersions)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(debianVersions)) {
      return versions
          .map(version -> version.resolve("bin").resolve(program))
          .filter(Files::isExecutable)
          .max(Comparator.comparing(PostgresClientTools::majorVersion));
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + debianVersions, e);
    }
  }

  private static int majorVersion(Path binary) {
    String version = binary.getParent().getParent().getFileName().toString();
    return version.matches("[0-9]+") ? Integer.parseInt(version) : -1;
  }
}
