package io.herald.devstack.embedded;

import java.util.Locale;
import org.slf4j.Logger;

/** Start-up figures go to the log and to stdout, so they show in the Maven output as well. */
final class StartupReport {

  private StartupReport() {}

  static void print(Logger log, String format, Object... args) {
    String line = String.format(Locale.ROOT, format, args);
    log.info(line);
    System.out.println("[herald-dev-stack] " + line);
  }
}
