package io.herald.cli;

import io.herald.config.Durations;
import java.time.Duration;
import picocli.CommandLine;

/** A duration option in the property files' syntax ({@code 500ms}, {@code 2s}, {@code 1m}). */
public final class DurationOption implements CommandLine.ITypeConverter<Duration> {

  @Override
  public Duration convert(String value) {
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException("'" + value + "' is " + e.getMessage());
    }
  }
}
