package io.herald.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * A process's resident set size, as Linux reports it in {@code /proc/<pid>/status} ({@code VmRSS}):
 * the memory figure a fault round prints while a dependency is down (printed, never asserted).
 */
final class Rss {

  private Rss() {}

  /** The RSS of {@code pid} in KiB; empty when the process is gone or the system has no /proc. */
  static OptionalLong kibibytes(long pid) {
    try {
      return parseVmRss(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
    } catch (NoSuchFileException e) {
      // The process exited (or this is not Linux): no figure, not an error.
      return OptionalLong.empty();
    } catch (IOException e) {
      throw new IllegalStateException("reading /proc/" + pid + "/status failed", e);
    }
  }

  /** The {@code VmRSS: 123456 kB} line of a {@code /proc/<pid>/status} text, in KiB. */
  static OptionalLong parseVmRss(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("VmRSS:")) {
        String[] fields = line.substring("VmRSS:".length()).trim().split("\\s+");
        if (fields.length != 2 || !fields[1].equals("kB")) {
          throw new IllegalArgumentException("unexpected VmRSS line: '" + line + "'");
        }
        return OptionalLong.of(Long.parseLong(fields[0]));
      }
    }
    // Kernel threads and zombies have no VmRSS line.
    return OptionalLong.empty();
  }
}
