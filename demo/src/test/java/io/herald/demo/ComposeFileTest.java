package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigGroup;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigSource;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.devstack.KafkaBroker;
import io.herald.relay.config.RelayConfig;
import io.herald.writer.config.WriterConfig;
import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code docker-compose.yml} against the files it runs with: the shipped property files (read by
 * the processes' own config classes, with the environment compose gives each service), the
 * Dockerfile and the repository's files it mounts. Variables take their defaults ({@code
 * ${VAR:-default}}), as a plain {@code docker compose up} gives them.
 */
class ComposeFileTest {

  /** The Herald processes among the services, and the config class that reads each one's file. */
  private static final Map<String, ConfigDef> PROCESSES =
      Map.of(
          "writer", WriterConfig.definition(),
          "relay", RelayConfig.definition(),
          "consumer", ConsumerConfig.definition());

  /** Read by the image's entry point (Dockerfile), not by a process's config. */
  private static final Set<String> IMAGE_VARIABLES =
      Set.of("HERALD_MAIN", "HERALD_CONFIG", "HERALD_LOGBACK");

  private static final Pattern VARIABLE =
      Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?}");
  private static final Pattern ADDRESS =
      Pattern.compile("\\b(postgres|kafka|simulator|writer|relay|consumer):(\\d+)\\b");

  private static Path root;
  private static Map<String, Map<String, Object>> services;

  @BeforeAll
  static void load() throws IOException {
    root = OpsFiles.repositoryRoot();
    try (Reader reader =
        Files.newBufferedReader(root.resolve("docker-compose.yml"), StandardCharsets.UTF_8)) {
      Map<String, Object> compose = new Yaml(new LoaderOptions()).load(reader);
      services = new TreeMap<>();
      map(compose.get("services")).forEach((name, service) -> services.put(name, map(service)));
    }
  }

  @Test
  void shouldRunTheWholePipelineAsServices() {
    assertThat(services)
        .containsKeys(
            "postgres", "kafka", "kafka-topics", "simulator", "writer", "relay", "consumer");
  }

  @Test
  void shouldNameARealKeyOfItsProcessWithEveryHeraldVariable() throws IOException {
    String dockerfile = Files.readString(root.resolve("Dockerfile"));
    for (Map.Entry<String, Map<String, Object>> service : services.entrySet()) {
      Map<String, String> env = environment(service.getValue());
      ConfigDef definition = PROCESSES.get(service.getKey());
      for (String variable : env.keySet()) {
        if (!variable.startsWith(ConfigSource.ENV_PREFIX)) {
          continue;
        }
        if (IMAGE_VARIABLES.contains(variable)) {
          assertThat(dockerfile).as("the Dockerfile reads " + variable).contains(variable);
          continue;
        }
        assertThat(definition)
            .as(service.getKey() + " is not a Herald process, yet sets " + variable)
            .isNotNull();
        assertThat(keyOf(definition, variable))
            .as(service.getKey() + ": " + variable + " names no key of the " + service.getKey())
            .isPresent();
      }
    }
    // And each process reads its shipped file with that environment: no unknown key in its own
    // namespaces, no bad value, no contradiction.
    writer();
    relay();
    consumer();
  }

  @Test
  void shouldRetryATransactionsPartitionAddAsTheDevStacksBrokerDoes() {
    assertThat(environment(services.get("kafka")))
        .containsEntry(
            "KAFKA_ADD_PARTITIONS_TO_TXN_RETRY_BACKOFF_MS",
            String.valueOf(KafkaBroker.PARTITION_ADD_RETRY.toMillis()));
  }

  @Test
  void shouldClearEachProcesssTempDirectoryWhenItsContainerRestarts() {
    for (String process : PROCESSES.keySet()) {
      assertThat(list(services.get(process).get("tmpfs"))).as(process).containsExactly("/tmp");
    }
    // The apache/kafka image keeps its log directory under /tmp (no KAFKA_LOG_DIRS is set): a
    // tmpfs there would lose every topic at a restart.
    assertThat(services.get("kafka")).doesNotContainKey("tmpfs");
  }

  @Test
  void shouldRunEachProcessWithItsOwnDatabaseRole() {
    WriterConfig writer = writer();
    ConsumerConfig consumer = consumer();
    assertThat(writer.database().user()).isEqualTo("herald_writer");
    assertThat(writer.startup().migrateOnStart()).isTrue();
    assertThat(writer.startup().migration()).map(m -> m.user()).contains("herald_migrator");
    assertThat(consumer.database().user()).isEqualTo("herald_consumer");
    assertThat(consumer.migration()).map(m -> m.user()).contains("herald_migrator");
    assertThat(relay().database().user()).isEqualTo("herald_relay");

    // PostgreSQL creates the roles at its first start, with the passwords the processes log in
    // with.
    assertThat(list(services.get("postgres").get("volumes")))
        .contains(
            "./ops/postgres/herald-roles.sh:/docker-entrypoint-initdb.d/10-herald-roles.sh:ro",
            "./schema/src/main/resources/db/roles/herald-roles.sql:/herald/herald-roles.sql:ro");
    Map<String, String> postgres = environment(services.get("postgres"));
    assertThat(postgres).containsEntry("ROLES_SQL", "/herald/herald-roles.sql");
    assertThat(postgres.get("WRITER_PASSWORD"))
        .isNotBlank()
        .isEqualTo(writer.database().password());
    assertThat(postgres.get("CONSUMER_PASSWORD"))
        .isNotBlank()
        .isEqualTo(consumer.database().password());
    assertThat(postgres.get("RELAY_PASSWORD"))
        .isNotBlank()
        .isEqualTo(relay().database().password());
    assertThat(postgres.get("MIGRATOR_PASSWORD"))
        .isNotBlank()
        .isEqualTo(writer.startup().migration().orElseThrow().password())
        .isEqualTo(consumer.migration().orElseThrow().password());
  }

  @Test
  void shouldTurnTheConsumersOperatorApiOn() {
    assertThat(consumer().operatorToken()).isPresent().get().asString().isNotBlank();
  }

  @Test
  void shouldPublishThePortsTheProcessesListenOn() {
    WriterConfig writer = writer();
    Map<String, Set<Integer>> listening = listeningPorts();
    assertThat(listening.get("writer"))
        .containsExactlyInAnyOrder(writer.http().port(), writer.ops().port());
    assertThat(listening.get("relay")).containsExactly(relay().ops().port());
    assertThat(listening.get("consumer")).containsExactly(consumer().ops().port());
    for (String process : PROCESSES.keySet()) {
      Set<Integer> published = new TreeSet<>();
      for (Object mapping : list(services.get(process).get("ports"))) {
        String[] parts = String.valueOf(mapping).split(":");
        assertThat(parts[0])
            .as(process + " " + mapping + ": the same port outside")
            .isEqualTo(parts[1]);
        published.add(Integer.parseInt(parts[1]));
      }
      assertThat(published).as(process + "'s published ports").isEqualTo(listening.get(process));
    }
    // 0.0.0.0 in a container: the ports are published, so the processes must not bind loopback.
    assertThat(writer.http().host()).isEqualTo("0.0.0.0");
    assertThat(writer.ops().host()).isEqualTo("0.0.0.0");
    assertThat(relay().ops().host()).isEqualTo("0.0.0.0");
    assertThat(consumer().ops().host()).isEqualTo("0.0.0.0");
  }

  @Test
  void shouldAddressEveryServiceOnAPortItListensOn() {
    Map<String, Set<Integer>> listening = listeningPorts();
    Map<String, List<String>> effective =
        Map.of(
            "writer", writer().effective().lines(),
            "relay", relay().effective().lines(),
            "consumer", consumer().effective().lines());
    List<String> addresses = new ArrayList<>();
    effective.forEach(
        (process, lines) -> {
          for (String line : lines) {
            Matcher address = ADDRESS.matcher(line);
            while (address.find()) {
              addresses.add(process + ": " + line);
              assertThat(listening.get(address.group(1)))
                  .as(process + " reaches " + address.group() + " (" + line + ")")
                  .contains(Integer.parseInt(address.group(2)));
            }
          }
        });
    assertThat(addresses)
        .anyMatch(a -> a.startsWith("writer: writer.db.jdbc-url") && a.contains("postgres:5432"))
        .anyMatch(a -> a.startsWith("consumer: consumer.kafka.bootstrap-servers"))
        .anyMatch(a -> a.startsWith("consumer: consumer.destinations.dest-a.base-url"));
    assertThat(relay().database().jdbcUrl()).contains("//postgres:5432/");
  }

  @Test
  void shouldMountAndBuildFromFilesThatExistInTheRepository() {
    for (Map.Entry<String, Map<String, Object>> service : services.entrySet()) {
      for (Object volume : list(service.getValue().get("volumes"))) {
        String source = String.valueOf(volume).split(":")[0];
        assertThat(root.resolve(source))
            .as(service.getKey() + " mounts " + source)
            .exists()
            .isRegularFile();
      }
      Object build = service.getValue().get("build");
      if (build != null) {
        Map<String, Object> settings = map(build);
        Path context = root.resolve(String.valueOf(settings.get("context")));
        assertThat(context.resolve(String.valueOf(settings.get("dockerfile")))).isRegularFile();
        Map<String, Object> args = map(settings.getOrDefault("args", Map.of()));
        assertThat(context.resolve(String.valueOf(args.get("MODULE")))).isDirectory();
        if (args.containsKey("CONFIG")) {
          assertThat(root.resolve("connect-config").resolve(String.valueOf(args.get("CONFIG"))))
              .isRegularFile();
        }
      }
      String logback = environment(service.getValue()).get("HERALD_LOGBACK");
      if (logback != null) {
        // The Dockerfile copies connect-config/ to /app/connect-config/.
        assertThat(logback).startsWith("/app/connect-config/");
        assertThat(root.resolve(logback.substring("/app/".length()))).isRegularFile();
      }
    }
  }

  @Test
  void shouldPassComposesOwnValidationWhereComposeIsInstalled() throws Exception {
    List<String> compose = composeCommand();
    assumeTrue(
        !compose.isEmpty(),
        "neither 'docker compose' nor 'docker-compose' is installed: skipping compose's own"
            + " validation of docker-compose.yml ('config --quiet')");
    List<String> command = new ArrayList<>(compose);
    command.addAll(List.of("-f", "docker-compose.yml", "config", "--quiet"));
    Process process =
        new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
  }

  /** {@code docker compose} when the plugin answers, else {@code docker-compose}, else none. */
  private static List<String> composeCommand() throws Exception {
    if (onPath("docker").isPresent()) {
      Process probe =
          new ProcessBuilder("docker", "compose", "version").redirectErrorStream(true).start();
      probe.getInputStream().readAllBytes();
      if (probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0) {
        return List.of("docker", "compose");
      }
    }
    return onPath("docker-compose").map(p -> List.of(p.toString())).orElse(List.of());
  }

  private static Optional<Path> onPath(String program) {
    return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .map(dir -> Path.of(dir, program))
        .filter(Files::isExecutable)
        .findFirst();
  }

  /**
   * The key {@code variable} sets, by the config module's naming rule ({@link
   * ConfigSource#envName}): a plain key, a group member of some instance, or a name under a
   * pass-through prefix.
   */
  private static Optional<String> keyOf(ConfigDef definition, String variable) {
    for (ConfigKey<?> key : definition.keys()) {
      if (ConfigSource.envName(key.name()).equals(variable)) {
        return Optional.of(key.name());
      }
    }
    for (ConfigGroup group : definition.groups()) {
      String start = ConfigSource.envName(group.prefix()) + "_";
      if (variable.startsWith(start)) {
        for (ConfigKey<?> member : group.keys()) {
          String end =
              "_" + ConfigSource.envName(member.name()).substring(ConfigSource.ENV_PREFIX.length());
          if (variable.endsWith(end) && variable.length() > start.length() + end.length()) {
            return Optional.of(group.prefix() + ".<name>." + member.name());
          }
        }
      }
    }
    for (String prefix : definition.passThroughPrefixes().keySet()) {
      String start = ConfigSource.envName(prefix.substring(0, prefix.length() - 1)) + "_";
      if (variable.startsWith(start) && variable.length() > start.length()) {
        return Optional.of(prefix + "*");
      }
    }
    return Optional.empty();
  }

  /** The ports each service listens on inside the compose network. */
  private static Map<String, Set<Integer>> listeningPorts() {
    Map<String, Set<Integer>> ports = new TreeMap<>();
    ports.put("postgres", Set.of(5432));
    Set<Integer> kafka = new TreeSet<>();
    Matcher listener =
        Pattern.compile(":(\\d+)")
            .matcher(environment(services.get("kafka")).get("KAFKA_LISTENERS"));
    while (listener.find()) {
      kafka.add(Integer.parseInt(listener.group(1)));
    }
    ports.put("kafka", kafka);
    Set<Integer> simulator = new TreeSet<>();
    for (Object argument : list(services.get("simulator").get("command"))) {
      if (String.valueOf(argument).startsWith("--port=")) {
        simulator.add(Integer.parseInt(String.valueOf(argument).substring("--port=".length())));
      }
    }
    ports.put("simulator", simulator);
    WriterConfig writer = writer();
    ports.put("writer", Set.of(writer.http().port(), writer.ops().port()));
    ports.put("relay", Set.of(relay().ops().port()));
    ports.put("consumer", Set.of(consumer().ops().port()));
    return ports;
  }

  private static WriterConfig writer() {
    return WriterConfig.load(propertyFile("writer"), environment(services.get("writer")));
  }

  private static RelayConfig relay() {
    return RelayConfig.load(propertyFile("relay"), environment(services.get("relay")));
  }

  private static ConsumerConfig consumer() {
    return ConsumerConfig.load(propertyFile("consumer"), environment(services.get("consumer")));
  }

  /** The property file the service's image is built with ({@code build.args.CONFIG}). */
  private static Path propertyFile(String service) {
    Map<String, Object> args = map(map(services.get(service).get("build")).get("args"));
    return root.resolve("connect-config").resolve(String.valueOf(args.get("CONFIG")));
  }

  /** A service's environment, interpolated with each variable's default. */
  private static Map<String, String> environment(Map<String, Object> service) {
    Object environment = service.get("environment");
    Map<String, String> env = new LinkedHashMap<>();
    if (environment instanceof Map<?, ?> entries) {
      entries.forEach((k, v) -> env.put(String.valueOf(k), interpolate(String.valueOf(v))));
    } else {
      for (Object entry : list(environment)) {
        String[] parts = String.valueOf(entry).split("=", 2);
        env.put(parts[0], interpolate(parts.length > 1 ? parts[1] : ""));
      }
    }
    return env;
  }

  /** Compose's {@code ${VAR:-default}} with VAR unset; {@code $$} is a literal {@code $}. */
  private static String interpolate(String value) {
    Matcher variable = VARIABLE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (variable.find()) {
      assertThat(variable.group(2))
          .as("${" + variable.group(1) + "} has no default: a plain 'docker compose up' fails")
          .isNotNull();
      variable.appendReplacement(out, Matcher.quoteReplacement(variable.group(2)));
    }
    variable.appendTail(out);
    return out.toString().replace("$$", "$");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value == null ? Map.of() : (Map<String, Object>) value;
  }

  private static List<Object> list(Object value) {
    return value == null ? List.of() : List.copyOf((List<?>) value);
  }
}
