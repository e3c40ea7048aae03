package io.herald.bench.relay;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;

/**
 * Benchmark, not a test: prints the bytes per record of docs/benchmarks-history.md, "The relay's
 * linger at 2 ms" (compression for real payloads). Run with {@code ./mvnw -B -pl bench -am
 * -Pbenchmark verify -DskipTests -Dbench.main=io.herald.bench.relay.RecordCompressionSizes}.
 *
 * <p>The values are {@code publication.requested} events as the writer puts them in its outbox,
 * their {@code content} an article whose body is English prose cut from {@code
 * herald.benchmark.texts} (comma-separated paths, default {@code
 * ../docs/design.md,../RELIABILITY.md}, resolved from the bench module) in pieces of 500, 2,000 and
 * 8,000 characters. Each batch is built the way the relay's producer builds it, by kafka-clients'
 * own {@code MemoryRecordsBuilder} (an internal class: the bytes it gives are what travels and what
 * the broker stores), for each codec and records-per-batch count: one or two records is a
 * transaction at a low rate, twenty a backlog's. Sizes only; what a codec costs the relay is
 * measured by B2, in place.
 */
public final class RecordCompressionSizes {

  private static final int[] BODY_CHARS = {500, 2_000, 8_000};
  private static final int[] RECORDS_PER_BATCH = {1, 2, 20};
  private static final int MAX_VALUES_PER_SIZE = 200;

  private RecordCompressionSizes() {}

  public static void main(String[] args) throws IOException {
    StringBuilder prose = new StringBuilder();
    for (String path :
        System.getProperty("herald.benchmark.texts", "../docs/design.md,../RELIABILITY.md")
            .split(",")) {
      prose.append(Files.readString(Path.of(path.strip()), StandardCharsets.UTF_8)).append('\n');
    }
    Map<String, Compression> codecs = new LinkedHashMap<>();
    codecs.put("none", Compression.NONE);
    codecs.put("lz4", Compression.lz4().build());
    codecs.put("zstd", Compression.zstd().build());
    codecs.put("snappy", Compression.snappy().build());

    System.out.println(
        "| body chars | value bytes (mean) | records per batch | "
            + String.join(" | ", codecs.keySet())
            + " |");
    System.out.println("|" + " --- |".repeat(3 + codecs.size()));
    for (int chars : BODY_CHARS) {
      List<byte[]> values = values(prose.toString(), chars);
      double mean = values.stream().mapToInt(v -> v.length).average().orElseThrow();
      for (int perBatch : RECORDS_PER_BATCH) {
        StringBuilder row =
            new StringBuilder(String.format("| %,d | %,.0f | %d |", chars, mean, perBatch));
        for (Compression codec : codecs.values()) {
          row.append(String.format(" %,.0f |", bytesPerRecord(values, perBatch, codec)));
        }
        System.out.println(row);
      }
    }
  }

  /** Outbox values whose article bodies are consecutive pieces of {@code prose}. */
  private static List<byte[]> values(String prose, int chars) {
    List<byte[]> values = new ArrayList<>();
    for (int from = 0;
        from + chars <= prose.length() && values.size() < MAX_VALUES_PER_SIZE;
        from += chars) {
      ObjectNode content = Json.mapper().createObjectNode();
      content.put("title", "Article " + values.size());
      content.put("body", prose.substring(from, from + chars));
      PublicationKey key = new PublicationKey("t1", "a-" + values.size(), "r-1", "dest-a");
      byte[] value =
          PublicationRequested.of(UUID.randomUUID(), key, content, Instant.now())
              .toJson()
              .toString()
              .getBytes(StandardCharsets.UTF_8);
      values.add(value);
    }
    if (values.isEmpty()) {
      throw new IllegalArgumentException(
          "herald.benchmark.texts holds fewer than " + chars + " characters");
    }
    return values;
  }

  /** The mean bytes per record over batches of {@code perBatch} consecutive values. */
  private static double bytesPerRecord(List<byte[]> values, int perBatch, Compression codec) {
    ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
    long bytes = 0;
    int records = 0;
    for (int from = 0; from + perBatch <= values.size(); from += perBatch) {
      buffer.clear();
      MemoryRecordsBuilder batch =
          MemoryRecords.builder(buffer, codec, TimestampType.CREATE_TIME, 0L);
      for (byte[] value : values.subList(from, from + perBatch)) {
        batch.append(0L, "t1/a/dest-a".getBytes(StandardCharsets.UTF_8), value);
      }
      bytes += batch.build().sizeInBytes();
      records += perBatch;
    }
    if (records == 0) {
      throw new IllegalArgumentException(
          "only " + values.size() + " values, fewer than a batch of " + perBatch);
    }
    return (double) bytes / records;
  }
}
