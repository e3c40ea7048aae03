package io.herald.faults;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.demo.Showcase;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.process.HeraldCommandLine;
import io.herald.devstack.simulator.Article;
import io.herald.devstack.simulator.DestinationSimulator;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * Runs one fault class for some rounds against the three real processes (child JVMs, the shipped
 * files and roles, the demo's {@link Pipeline}) on one stack: each round sends the showcase's
 * workload at a steady rate while the fault lands at seeded random moments, heals, waits for
 * quiescence, lets an operator settle what needs one, and checks the invariants with {@link
 * Checker} and {@code herald audit}. Each round prints its figures; a round that cannot reach
 * quiescence, or in which one of the processes exits without its fault class having restarted it,
 * ends the run with its failure named.
 */
final class FaultRunner {

  /**
   * What to run.
   *
   * @param seed the first round's seed; round {@code n} uses {@code seed + n - 1}, so that {@code
   *     -Dherald.faults.seed=<a round's seed> -Dherald.faults.rounds=1} replays that round
   * @param intents unique intents per round (replays and conflicts come on top)
   * @param spread how long the load of one round takes to send
   */
  record Settings(int rounds, long seed, int intents, Duration spread, Duration settleTimeout) {}

  /** The destination with neither idempotency key nor lookup in the shipped consumer.properties. */
  static final Set<String> NEITHER = Set.of("dest-b");

  private static final int CLIENTS = 4;
  private static final int MIN_GAP_MILLIS = 1000;
  private static final int MAX_GAP_MILLIS = 3000;

  /**
   * Deliveries whose outcome the consumer did not know at some point: an attempt that ended
   * uncertain (a timeout after sending), a lookup (only ever after one), or a claim without its
   * attempt row (every claim increments the token and records one row; a consumer killed in flight
   * records none).
   */
  private static final String UNCERTAIN_ITEMS =
      "SELECT count(*) FROM consumer.delivery d WHERE d.article_id LIKE ? AND ("
          + " d.claim_token > (SELECT count(*) FROM consumer.delivery_attempt a"
          + "   WHERE a.delivery_id = d.id)"
          + " OR EXISTS (SELECT 1 FROM consumer.delivery_attempt a WHERE a.delivery_id = d.id"
          + "   AND (a.outcome = 'uncertain' OR a.kind = 'LOOKUP')))";

  private final StackContext stack;
  private final KafkaBroker kafka;
  private final FaultClass fault;
  private final Settings settings;
  private final PrintStream out;
  private final Path workDir;

  FaultRunner(StackContext stack, FaultClass fault, Settings settings, PrintStream out) {
    this(stack, stack.stack().kafka(), fault, settings, out);
  }

  /** As above, with the pipeline's Kafka on {@code kafka} instead of the stack's broker. */
  FaultRunner(
      StackContext stack, KafkaBroker kafka, FaultClass fault, Settings settings, PrintStream out) {
    this.stack = stack;
    this.kafka = kafka;
    this.fault = fault;
    this.settings = settings;
    this.out = out;
    this.workDir = Path.of("target", "faults", fault.id().toLowerCase());
  }

  /** Runs every round; the reports of the rounds run (the last may carry a failure). */
  List<RoundReport> run() throws Exception {
    out.printf(
        "%s: %s%n%s: %d round(s) from seed %d (rerun one: -Dherald.faults.seed=<its seed>"
            + " -Dherald.faults.rounds=1)%n",
        fault.id(), fault.description(), fault.id(), settings.rounds(), settings.seed());
    Map<String, String> overrides = new HashMap<>(Showcase.OVERRIDES);
    overrides.putAll(fault.overrides());
    List<RoundReport> reports = new ArrayList<>();
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      PipelineSettings pipelineSettings =
          PipelineSettings.isolated(
              stack, kafka, simulator.baseUri(), configDir(), workDir.resolve("logs"));
      try {
        PipelineSettings linked = fault.links(stack, pipelineSettings);
        // The server the pipeline writes to: the stack's, or one the class runs (F14's pair).
        DataSource database = linked.postgres().dataSource(linked.database());
        try (Pipeline pipeline = Pipeline.start(linked, overrides)) {
          Round context =
              new Round(
                  pipeline,
                  simulator,
                  pipelineSettings,
                  database,
                  new Observations(
                      database, kafka.bootstrapServers(), pipelineSettings.publicationTopic()),
                  new HeraldCommandLine(workDir.resolve("herald"), Duration.ofMinutes(3)));
          for (int round = 1; round <= settings.rounds(); round++) {
            RoundReport report = context.run(round, settings.seed() + round - 1);
            out.println(report.format());
            reports.add(report);
            if (report.failure() != null) {
              break;
            }
          }
        }
      } finally {
        // What the class set up for the links (proxies, servers) outlives the pipeline using it.
        fault.close();
      }
    }
    out.println(RoundReport.totals(fault.id(), reports));
    return reports;
  }

  /** The rounds' shared parts: one pipeline, simulator and herald command. */
  private final class Round {
    private final Pipeline pipeline;
    private final DestinationSimulator simulator;
    private final PipelineSettings pipelineSettings;
    private final DataSource database;
    private final Observations observations;
    private final HeraldCommandLine herald;

    Round(
        Pipeline pipeline,
        DestinationSimulator simulator,
        PipelineSettings pipelineSettings,
        DataSource database,
        Observations observations,
        HeraldCommandLine herald) {
      this.pipeline = pipeline;
      this.simulator = simulator;
      this.pipelineSettings = pipelineSettings;
      this.database = database;
      this.observations = observations;
      this.herald = herald;
    }

    RoundReport run(int round, long seed) throws Exception {
      Random random = new Random(seed);
      String prefix = fault.id().toLowerCase() + "-" + round + "-" + Long.toHexString(seed) + "-";
      List<Showcase.Request> requests = new ArrayList<>();
      List<Showcase.Request> repeats = new ArrayList<>();
      Showcase.workload(settings.intents(), random, prefix, requests, repeats);
      requests.addAll(repeats);
      RoundReport.Builder report = new RoundReport.Builder(fault.id(), round, seed);
      out.printf(
          "%s round %d seed %d: %d intents (+%d replays and conflicts), faults at random moments%n",
          fault.id(), round, seed, settings.intents(), repeats.size());

      SteadyLoad load = new SteadyLoad(pipeline.writerUri(), requests, CLIENTS, settings.spread());
      try {
        return play(report, load, prefix, random);
      } catch (ChildJvm.Exited exited) {
        // Each class restarts what it ends before its inject returns: this one died on its own.
        return report.failed(exited.getMessage() + "\n  (not restarted by " + fault.id() + ")");
      } finally {
        load.stop();
      }
    }

    /** The round itself, from the load's start; returns its report or throws on an exit. */
    private RoundReport play(
        RoundReport.Builder report, SteadyLoad load, String prefix, Random random)
        throws Exception {
      Instant loadStart = Instant.now();
      load.start();
      long healed;
      do {
        Thread.sleep(MIN_GAP_MILLIS + random.nextInt(MAX_GAP_MILLIS - MIN_GAP_MILLIS));
        String injected = fault.inject(pipeline, simulator, random);
        healed = System.nanoTime();
        out.println("  " + fault.id() + " fault " + (report.faults().size() + 1) + ": " + injected);
        report.fault(injected);
        pipeline.requireAllRunning();
      } while (!load.allSent());
      List<SteadyLoad.Answer> answers = load.await(settings.settleTimeout());
      report.unexpectedAnswers(load.unexpected());
      report.resent(load.resent());
      report.figure("writer_503", load.unavailable());
      report.figure("no_answer_in_10s", load.timedOut());
      report.fault(fault.endRound());

      Optional<Observations.Progress> quiet =
          await(p -> p.quiescent(settings.intents()), prefix, healed);
      // From the last heal (the killed process healthy again) to quiescence.
      report.recovery(Duration.ofNanos(System.nanoTime() - healed));
      if (quiet.isEmpty()) {
        return report.failed(
            "no quiescence within "
                + settings.settleTimeout()
                + " of the last heal; last "
                + observations.progress(prefix));
      }
      report.longestStall(observations.longestArrivalGap(prefix, loadStart));
      report.needsReconciliation(quiet.get().needsReconciliation());
      report.uncertain(uncertainItems(prefix));
      List<Checker.RemoteArticle> articles = remoteArticles();
      report.ambiguousNotParked(
          Checker.ambiguousNotParked(observations.deliveries(prefix), articles, NEITHER));

      report.resolved(resolveAsAnOperator(prefix));
      if (await(p -> p.allPublished(settings.intents()), prefix, System.nanoTime()).isEmpty()) {
        return report.failed(
            "not every delivery published after the operator's resolutions; last "
                + observations.progress(prefix));
      }

      List<Checker.Ack> acks = new ArrayList<>();
      for (SteadyLoad.Answer answer : answers) {
        if (answer.jobId() != null) {
          acks.add(new Checker.Ack(answer.key(), answer.jobId()));
        }
      }
      List<Checker.Job> jobs = observations.jobs(prefix);
      Set<UUID> jobIds = new HashSet<>();
      jobs.forEach(j -> jobIds.add(j.jobId()));
      report.checked(
          Checker.check(
              acks,
              jobs,
              observations.events(jobIds),
              observations.deliveries(prefix),
              remoteArticles(),
              NEITHER));
      HeraldCommandLine.Result audit = audit();
      report.audit(audit.exitCode(), lastLine(audit.out()));
      if (audit.exitCode() != 0) {
        out.print(audit.out());
        out.print(audit.err());
      }
      return report.build();
    }

    private Optional<Observations.Progress> await(
        Predicate<Observations.Progress> done, String prefix, long since) throws Exception {
      long deadline = since + settings.settleTimeout().toNanos();
      while (System.nanoTime() < deadline) {
        // A dead process fails the round at once; its timeout would only hide why.
        pipeline.requireAllRunning();
        Observations.Progress progress = observations.progress(prefix);
        if (done.test(progress)) {
          return Optional.of(progress);
        }
        // Polling the tables: nothing to wait on but the processes' work.
        Thread.sleep(250);
      }
      return Optional.empty();
    }

    private int uncertainItems(String prefix) throws SQLException {
      try (Connection connection = database.getConnection();
          PreparedStatement select = connection.prepareStatement(UNCERTAIN_ITEMS)) {
        select.setString(1, prefix + "%");
        try (ResultSet row = select.executeQuery()) {
          row.next();
          return row.getInt(1);
        }
      }
    }

    private List<Checker.RemoteArticle> remoteArticles() {
      List<Checker.RemoteArticle> articles = new ArrayList<>();
      for (Article article : simulator.articles()) {
        if (article.externalReference() != null) {
          articles.add(new Checker.RemoteArticle(article.externalReference(), article.remoteId()));
        }
      }
      return articles;
    }

    /**
     * What an operator does with each of the round's NEEDS_RECONCILIATION items: asks the
     * destination (the simulator's listing stands in for its UI) and records the answer with {@code
     * herald deliveries resolve}: published with the remote id, or retry when the article is not
     * there.
     */
    private int resolveAsAnOperator(String prefix) throws Exception {
      Set<String> round = new HashSet<>();
      observations.deliveries(prefix).forEach(d -> round.add(d.idempotencyKey()));
      HeraldCommandLine.Result list =
          cli("deliveries", "list", "--state", "NEEDS_RECONCILIATION", "--json");
      if (list.exitCode() != 0) {
        throw new IllegalStateException("herald deliveries list failed: " + list);
      }
      int resolved = 0;
      for (JsonNode delivery : Json.mapper().readTree(list.out())) {
        String key = delivery.path("idempotencyKey").asText();
        if (!round.contains(key)) {
          continue;
        }
        String id = delivery.path("id").asText();
        Optional<Article> article = simulator.findByExternalReference(key);
        HeraldCommandLine.Result result =
            article.isPresent()
                ? cli(
                    "deliveries",
                    "resolve",
                    id,
                    "--published",
                    "--remote-id",
                    article.get().remoteId(),
                    "--reason",
                    "found at the destination",
                    "--actor",
                    "faults-operator")
                : cli(
                    "deliveries",
                    "resolve",
                    id,
                    "--retry",
                    "--reason",
                    "not at the destination",
                    "--actor",
                    "faults-operator");
        if (result.exitCode() != 0) {
          throw new IllegalStateException("herald deliveries resolve " + id + " failed: " + result);
        }
        resolved++;
      }
      return resolved;
    }

    private HeraldCommandLine.Result audit() throws Exception {
      String listing = simulator.baseUri() + "/admin/articles";
      List<String> args = new ArrayList<>(List.of("audit"));
      for (String destination : Showcase.DESTINATIONS) {
        args.add("--remote-articles");
        args.add(destination + "=" + listing);
      }
      return cli(args.toArray(String[]::new));
    }

    private HeraldCommandLine.Result cli(String... args) throws Exception {
      List<String> all =
          new ArrayList<>(List.of("--config-dir", pipelineSettings.configDir().toString()));
      all.addAll(List.of(args));
      return herald.run(pipeline.cliEnv(), all.toArray(String[]::new));
    }
  }

  private static String lastLine(String text) {
    String[] lines = text.strip().split("\\R");
    return lines[lines.length - 1];
  }

  /** The checkout's shipped files: connect-config/ in the first directory above that has one. */
  static Path configDir() {
    return ShippedConfig.directory();
  }
}
