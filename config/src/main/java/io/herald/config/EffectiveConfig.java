package io.herald.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The effective configuration of a process, for the start-up log: every key with its value and
 * origin ({@code default}, {@code file}, {@code env HERALD_...}), secrets masked. A value is masked
 * when its key is declared secret or its name contains {@code password}, {@code secret}, {@code
 * token}, {@code credential}, {@code api-key}/{@code apikey} or {@code jaas} (so pass-through keys
 * such as {@code debezium.source.database.password} and {@code *.sasl.jaas.config} are masked too);
 * passwords inside URLs ({@code user:pw@host}, {@code password=...}) are masked in every value.
 *
 * <p>Immutable and thread-safe.
 */
public final class EffectiveConfig {

  private static final List<String> SECRET_WORDS =
      List.of("password", "passwd", "secret", "token", "credential", "api-key", "apikey", "jaas");
  private static final Pattern URL_USERINFO = Pattern.compile("(://[^/@:\\s]+:)[^/@\\s]+@");
  private static final Pattern URL_PASSWORD_PARAM =
      Pattern.compile("(?i)((?:password|passwd|pwd|secret|token)=)[^&;\\s]*");

  private final String process;
  private final String origin;
  private final List<Map.Entry<String, ConfigValues.Value>> entries;

  EffectiveConfig(
      String process, String origin, List<Map.Entry<String, ConfigValues.Value>> entries) {
    this.process = process;
    this.origin = origin;
    this.entries = entries;
  }

  /** Whether a key's name says its value is secret. */
  public static boolean looksSecret(String key) {
    String lower = key.toLowerCase(Locale.ROOT).replace('_', '-');
    return SECRET_WORDS.stream().anyMatch(lower::contains);
  }

  /** {@code value} with any password embedded in a URL replaced by {@code ****}. */
  public static String maskEmbedded(String value) {
    String masked = URL_USERINFO.matcher(value).replaceAll("$1" + ConfigReader.MASK + "@");
    return URL_PASSWORD_PARAM.matcher(masked).replaceAll("$1" + ConfigReader.MASK);
  }

  /** The rendered lines, {@code key = value [origin]}, sorted by key. */
  public List<String> lines() {
    return entries.stream()
        .map(
            e -> {
              ConfigValues.Value v = e.getValue();
              String shown =
                  v.secret()
                      ? (v.text().isEmpty() ? "" : ConfigReader.MASK)
                      : maskEmbedded(v.text());
              return e.getKey() + " = " + shown + "  [" + v.origin() + "]";
            })
        .toList();
  }

  /** A multi-line block for the start-up log. */
  public String render() {
    return "Effective "
        + process
        + " configuration ("
        + origin
        + "):\n  "
        + String.join("\n  ", lines());
  }

  @Override
  public String toString() {
    return render();
  }
}
