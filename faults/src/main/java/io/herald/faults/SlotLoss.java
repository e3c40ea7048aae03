package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.devstack.process.HeraldCommandLine;
import io.herald.devstack.simulator.DestinationSimulator;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * F10: the relay SIGKILLed, its slot dropped and, after up to two seconds of writes that no slot
 * retains, recreated by hand, and its offsets topic deleted ({@link
 * Loss#RECREATED_WITHOUT_OFFSETS}; {@link Loss#DROPPED} leaves the slot missing and the offsets in
 * place). The relay must refuse to start (exit 2) naming {@code herald relay recover}, publishing
 * nothing; the operator runs that command (a separate process, the pipeline's own settings), and
 * the relay, started again, streams from the new slot. The round's checker and audit then prove
 * nothing was lost.
 */
final class SlotLoss implements FaultClass {

  /** How the slot is lost. */
  enum Loss {
    /** Dropped; the relay's offsets stay. */
    DROPPED,
    /** Dropped, recreated by hand after the gap, and the offsets topic deleted. */
    RECREATED_WITHOUT_OFFSETS
  }

  private final Loss loss;

  SlotLoss(Loss loss) {
    this.loss = loss;
  }

  private static final int MAX_GAP_MILLIS = 2000;
  private static final int EXIT_REFUSED = 2;
  private static final Duration SLOT_RELEASE = Duration.ofSeconds(30);
  private static final Duration REFUSAL_WAIT = Duration.ofSeconds(90);

  private final HeraldCommandLine herald =
      new HeraldCommandLine(Path.of("target", "faults", "f10-herald"), Duration.ofMinutes(3));

  @Override
  public String id() {
    return "F10";
  }

  @Override
  public String description() {
    return (loss == Loss.DROPPED
            ? "slot dropped"
            : "slot dropped and recreated, offsets topic deleted")
        + ": the relay refuses naming herald relay recover, nothing published from the gap; after"
        + " the recovery 0 lost";
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    PipelineSettings s = pipeline.settings();
    int gap = random.nextInt(MAX_GAP_MILLIS);
    pipeline.process("relay").kill();
    dropSlot(s);
    Thread.sleep(gap); // the writer and consumer commit meanwhile: no slot retains these rows
    if (loss == Loss.RECREATED_WITHOUT_OFFSETS) {
      recreateWithoutOffsets(s);
    }

    String refusal = refusedStart(pipeline);
    List<String> args =
        new ArrayList<>(List.of("--config-dir", s.configDir().toString(), "relay", "recover"));
    HeraldCommandLine.Result recovered = herald.run(pipeline.cliEnv(), args.toArray(String[]::new));
    if (recovered.exitCode() == 1 && recovered.err().contains("--all-retained")) {
      // The slot was lost before the relay published anything: the topic is empty, and the
      // operator, who knows it was never written to, says so, as the refusal asks.
      args.add("--all-retained");
      recovered = herald.run(pipeline.cliEnv(), args.toArray(String[]::new));
    }
    if (recovered.exitCode() != 0) {
      throw new IllegalStateException("herald relay recover failed: " + recovered);
    }
    long restart = System.nanoTime();
    pipeline.restart("relay");
    return String.format(
        "kill relay, drop slot, %d ms of writes%s; relay refused (%s); recovered (%s); healthy %d ms"
            + " after restart",
        gap,
        loss == Loss.DROPPED ? "" : ", recreate slot, delete offsets topic",
        refusal,
        republished(recovered.out()),
        (System.nanoTime() - restart) / 1_000_000);
  }

  /**
   * Starts the relay and expects it to refuse, naming the recovery. Its /health answers while it
   * stands by for the lock, before the slot check, so the start may look healthy first: what counts
   * is that it then exits 2 instead of streaming.
   */
  private static String refusedStart(Pipeline pipeline) throws Exception {
    try {
      pipeline.restart("relay");
    } catch (IllegalStateException exitedWhileStarting) {
      // Refused before /health answered; the exit code below says how it ended.
    }
    int exit = pipeline.process("relay").awaitExit(REFUSAL_WAIT).orElse(-1);
    String log = pipeline.process("relay").logText();
    if (exit != EXIT_REFUSED || !log.contains("herald relay recover")) {
      throw new IllegalStateException(
          "the relay on a recreated slot without offsets "
              + (exit == -1 ? "still runs " + REFUSAL_WAIT + " after its start" : "exited " + exit)
              + " instead of refusing (exit 2) and naming herald relay recover; log "
              + pipeline.process("relay").logFile());
    }
    if (exit == -1) {
      pipeline.process("relay").kill();
    }
    return "exit " + exit;
  }

  private static String republished(String out) {
    List<String> lines = new ArrayList<>();
    for (String line : out.split("\\R")) {
      if (line.strip().startsWith("republished")) {
        lines.add(line.strip().replaceAll(" row\\(s\\) stamped from .*", ""));
      }
    }
    return String.join(", ", lines);
  }

  private static void recreateWithoutOffsets(PipelineSettings s) throws Exception {
    slot(s, "SELECT pg_create_logical_replication_slot(?, 'pgoutput')");
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrapServers()))) {
      admin.deleteTopics(List.of(s.offsetsTopic())).all().get(30, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(s.offsetsTopic())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("offsets topic " + s.offsetsTopic() + " not deleted");
        }
        Thread.sleep(200); // topic deletion completes asynchronously in the controller
      }
    }
  }

  /** Drops the slot once the killed relay's walsender has let it go. */
  private static void dropSlot(PipelineSettings s) throws Exception {
    long deadline = System.nanoTime() + SLOT_RELEASE.toNanos();
    while (true) {
      try {
        slot(s, "SELECT pg_drop_replication_slot(?)");
        return;
      } catch (SQLException e) {
        // 55006: the slot is still active (the killed relay's walsender has not ended yet).
        if (!"55006".equals(e.getSQLState()) || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private static void slot(PipelineSettings s, String sql) throws SQLException {
    try (Connection connection =
            DriverManager.getConnection(
                s.postgres().jdbcUrl(s.database()), s.postgres().user(), s.postgres().password());
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, s.slot());
      statement.executeQuery().close();
    }
  }
}
