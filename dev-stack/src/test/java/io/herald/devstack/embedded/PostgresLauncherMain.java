package io.herald.devstack.embedded;

import java.nio.file.Path;

/**
 * The launcher {@link PostmasterWatchIT} kills: starts PostgreSQL in {@code args[0]} from the
 * binaries in {@code args[1]}, prints {@code postmaster-pid=<pid>} and waits to be killed.
 */
public final class PostgresLauncherMain {

  private PostgresLauncherMain() {}

  public static void main(String[] args) throws InterruptedException {
    EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(Path.of(args[0]), Path.of(args[1]));
    System.out.println("postmaster-pid=" + server.watch().orElseThrow().postmaster());
    Thread.sleep(Long.MAX_VALUE);
  }
}
