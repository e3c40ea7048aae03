package io.herald.cli.trace;

import io.herald.common.event.PublicationKey;
import java.util.Objects;
import java.util.UUID;

/**
 * What {@code herald trace} was asked about: a job id, or the business key {@code
 * tenant/article/revision/destination}. Tenant, article and destination never contain {@code /}
 * ({@link PublicationKey}); a revision may, so everything between the second and the last {@code /}
 * is the revision. Immutable.
 */
record Target(UUID jobId, PublicationKey key) {

  Target {
    if ((jobId == null) == (key == null)) {
      throw new IllegalArgumentException("exactly one of jobId and key");
    }
  }

  /**
   * Parses the command's argument.
   *
   * @throws IllegalArgumentException with a message for the operator when it is neither form
   */
  static Target parse(String text) {
    Objects.requireNonNull(text, "text");
    if (text.indexOf('/') < 0) {
      try {
        return new Target(UUID.fromString(text), null);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "'" + text + "' is neither a job id (a UUID) nor tenant/article/revision/destination");
      }
    }
    int first = text.indexOf('/');
    int second = text.indexOf('/', first + 1);
    int last = text.lastIndexOf('/');
    if (second < 0 || last == second) {
      throw new IllegalArgumentException(
          "'" + text + "' is not tenant/article/revision/destination (four parts)");
    }
    try {
      return new Target(
          null,
          new PublicationKey(
              text.substring(0, first),
              text.substring(first + 1, second),
              text.substring(second + 1, last),
              text.substring(last + 1)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a valid tenant/article/revision/destination: " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return jobId != null
        ? "job " + jobId
        : "job "
            + key.tenant()
            + "/"
            + key.articleId()
            + "/"
            + key.revisionId()
            + "/"
            + key.destination();
  }
}
