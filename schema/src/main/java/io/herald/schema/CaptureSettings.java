package io.herald.schema;

import java.util.regex.Pattern;

/**
 * Names of the publication and the logical replication slot the relay reads. They are created with
 * the schema, so rows committed before the relay ever runs are retained in the WAL (guarantee 2).
 *
 * @param publication the pgoutput publication holding the outbox and heartbeat tables
 * @param slot the logical replication slot (cluster-wide name, one per captured database)
 */
public record CaptureSettings(String publication, String slot) {

  public static final String DEFAULT_PUBLICATION = "herald_outbox";
  public static final String DEFAULT_SLOT = "herald_relay";

  // PostgreSQL slot names allow lower-case letters, digits and underscores only; publication names
  // are held to the same rule so both can be interpolated into DDL safely.
  private static final Pattern NAME = Pattern.compile("[a-z0-9_]{1,63}");

  public CaptureSettings {
    requireName("publication", publication);
    requireName("slot", slot);
  }

  public static CaptureSettings defaults() {
    return new CaptureSettings(DEFAULT_PUBLICATION, DEFAULT_SLOT);
  }

  private static void requireName(String what, String value) {
    if (value == null || !NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "Invalid " + what + " name '" + value + "': use 1 to 63 of [a-z0-9_]");
    }
  }
}
