package io.herald.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Argument validation and exit codes that need no running dependency. */
class HeraldTest {

  private static final String ID = "0190c7d6-3b1e-7a5e-9f4b-2d1c3e4f5a6b";

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(Map<String, String> env, String... args) {
    return Herald.run(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private int run(String... args) {
    return run(Map.of(), args);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--help",
        "deliveries --help",
        "deliveries list --help",
        "deliveries show --help",
        "deliveries resolve --help",
        "slot --help",
        "slot status --help"
      })
  void shouldPrintHelpAndExitZeroForEveryCommand(String args) {
    assertThat(run(args.split(" "))).isZero();
    assertThat(out.toString()).contains("Usage: herald");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "deliveries list --help",
        "deliveries show --help",
        "deliveries resolve --help",
        "slot status --help"
      })
  void shouldOfferJsonAndConfigDirOnEverySubcommand(String args) {
    run(args.split(" "));
    assertThat(out.toString()).contains("--json").contains("--config-dir");
  }

  @Test
  void shouldListTheExitCodesInTheTopLevelHelp() {
    run("--help");
    assertThat(out.toString())
        .contains("2   bad usage or configuration")
        .contains("3   a dependency");
  }

  @Test
  void shouldExitTwoWithoutASubcommand() {
    assertThat(run("deliveries")).isEqualTo(2);
    assertThat(run("slot")).isEqualTo(2);
  }

  @Test
  void shouldExitTwoForAnUnknownOption() {
    assertThat(run("slot", "status", "--no-such-option")).isEqualTo(2);
    assertThat(err.toString()).contains("--no-such-option");
  }

  @Test
  void shouldExitTwoWhenResolveHasNoAction() {
    assertThat(run("deliveries", "resolve", ID, "--reason", "r", "--actor", "a")).isEqualTo(2);
    assertThat(err.toString()).contains("--published").contains("--retry").contains("--abandon");
  }

  @Test
  void shouldExitTwoWhenResolveHasTwoActions() {
    assertThat(
            run(
                "deliveries",
                "resolve",
                ID,
                "--retry",
                "--abandon",
                "--reason",
                "r",
                "--actor",
                "a"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("mutually exclusive");
  }

  @Test
  void shouldExitTwoWhenPublishedHasNoRemoteId() {
    assertThat(run("deliveries", "resolve", ID, "--published", "--reason", "r", "--actor", "a"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--published needs --remote-id");
  }

  @Test
  void shouldExitTwoWhenRemoteIdComesWithoutPublished() {
    assertThat(
            run(
                "deliveries",
                "resolve",
                ID,
                "--retry",
                "--remote-id",
                "x",
                "--reason",
                "r",
                "--actor",
                "a"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--remote-id goes with --published only");
  }

  @Test
  void shouldExitTwoWithoutReasonOrActor() {
    assertThat(run("deliveries", "resolve", ID, "--retry", "--actor", "a")).isEqualTo(2);
    assertThat(err.toString()).contains("--reason");
    assertThat(run("deliveries", "resolve", ID, "--retry", "--reason", "r")).isEqualTo(2);
    assertThat(err.toString()).contains("--actor");
    assertThat(run("deliveries", "resolve", ID, "--retry", "--reason", " ", "--actor", "a"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--reason must not be blank");
  }

  @Test
  void shouldExitTwoForAnIdThatIsNotAUuid() {
    assertThat(run("deliveries", "show", "not-a-uuid")).isEqualTo(2);
    assertThat(err.toString()).contains("not-a-uuid");
  }

  @Test
  void shouldExitTwoForAnUnknownStateOrALimitOutOfRange() {
    assertThat(run("deliveries", "list", "--state", "SLEEPING")).isEqualTo(2);
    assertThat(err.toString()).contains("SLEEPING");
    assertThat(run("deliveries", "list", "--state", "uncertain", "--limit", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--limit must be between 1 and 1000, was 0");
  }

  @Test
  void shouldExitTwoNamingTheFileWhenTheConfigDirHasNoConsumerFile() {
    assertThat(run("--config-dir", dir.toString(), "deliveries", "show", ID)).isEqualTo(2);
    assertThat(err.toString())
        .contains("configuration error")
        .contains(dir.resolve("consumer.properties").toString());
  }

  @Test
  void shouldTakeConfigDirAfterTheSubcommandToo() {
    assertThat(run("slot", "status", "--config-dir", dir.toString())).isEqualTo(2);
    assertThat(err.toString()).contains(dir.resolve("relay.properties").toString());
  }

  @Test
  void shouldExitTwoForAConfigErrorWithTheConfigMessage() throws IOException {
    Files.writeString(dir.resolve("relay.properties"), "relay.no-such-key=1\n");
    assertThat(run("--config-dir", dir.toString(), "slot", "status")).isEqualTo(2);
    assertThat(err.toString()).contains("relay.no-such-key");
  }

  @Test
  void shouldExitTwoWhenNoOperatorTokenIsConfigured() throws IOException {
    Files.writeString(
        dir.resolve("consumer.properties"),
        Files.readString(shipped("consumer.properties"), StandardCharsets.UTF_8));
    assertThat(run("--config-dir", dir.toString(), "deliveries", "list", "--state", "UNCERTAIN"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("no operator token")
        .contains("HERALD_CONSUMER_OPS_OPERATOR_TOKEN")
        .contains("--token-file");
  }

  @Test
  void shouldExitTwoForAnEmptyTokenFile() throws IOException {
    Path token = Files.writeString(dir.resolve("token"), "\n");
    assertThat(
            run(
                "deliveries",
                "list",
                "--state",
                "UNCERTAIN",
                "--token-file",
                token.toString(),
                "--consumer-url",
                "http://127.0.0.1:1"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("is empty");
  }

  @Test
  void shouldExitThreeWhenTheConsumerIsNotListening() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    int code =
        run(
            Map.of("HERALD_CONSUMER_OPS_OPERATOR_TOKEN", "t"),
            "deliveries",
            "show",
            ID,
            "--consumer-url",
            "http://127.0.0.1:" + port);
    assertThat(code).isEqualTo(3);
    assertThat(err.toString()).contains("did not answer").contains("127.0.0.1:" + port);
  }

  private static Path shipped(String file) {
    Path path = Path.of("").toAbsolutePath();
    while (!Files.isDirectory(path.resolve("connect-config"))) {
      path = path.getParent();
    }
    return path.resolve("connect-config").resolve(file);
  }
}
