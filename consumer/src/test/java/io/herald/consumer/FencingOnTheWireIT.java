package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.reconcile.OperatorActions;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.proxy.TcpProxy;
import io.herald.devstack.simulator.Behaviour;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 17's fencing on the wire: a late request from a claim holder that froze past its claim. A
 * consumer (a child process) sends its publish through a frozen link to a destination without key
 * or lookup (profile {@code none}, where a duplicate is the real risk) and is SIGSTOPped while the
 * request waits in the network. Its claim expires; another instance's reconciler hands the delivery
 * to the operator, who retries it, and the second instance publishes it under a higher token. Then
 * the link heals and the stale request arrives. A cooperating destination refuses it by its {@code
 * Herald-Fencing-Token}; one that ignores the header creates a second article (the control).
 */
@HeraldIntegrationTest
class FencingOnTheWireIT {

  private static final String DESTINATION = "fence-dest";
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** What one run of the scenario left behind. */
  private record Run(
      TestKit kit,
      TestKit.Destination destination,
      PublicationRequested request,
      DeliveryView delivery,
      long frozenToken) {}

  @Test
  void shouldKeepOneArticleWhenACooperatingDestinationRefusesTheFrozenConsumersLateRequest(
      StackContext stack) throws SQLException {
    try (TestKit kit = new TestKit(stack, "fence-on", 1)) {
      Run run = lateRequest(kit, stack, true);
      String key = run.request().idempotencyKey();

      assertEquals(1, run.destination().simulator().articleCount(key));
      assertEquals(1, run.destination().simulator().staleTokenRefusals(key));
      assertEquals(DeliveryState.PUBLISHED, run.delivery().state());
      assertEquals(
          run.destination().simulator().findByExternalReference(key).orElseThrow().remoteId(),
          run.delivery().remoteId());
      // The frozen holder's attempt: its older token, its 409, and no state recorded (the fence).
      // The newer claim's publish: the state and the remote id. Both sent the same body.
      List<String> attempts = publishAttempts(kit, run);
      assertEquals(2, attempts.size(), attempts.toString());
      // Its answer is the 409, unless its lease keeper, waking first, cancelled the call (null).
      String frozen = attempts.get(0).split("#")[0];
      assertTrue(
          frozen.matches(run.frozenToken() + "\\|consumer-a\\|(409|null)\\|null\\|null"), frozen);
      assertTrue(
          attempts.get(1).startsWith("|consumer-b|201|PUBLISHED|" + run.delivery().remoteId()),
          attempts.get(1));
      String frozenHash = attempts.get(0).split("#")[1];
      assertTrue(frozenHash.matches("[0-9a-f]{64}"), frozenHash);
      assertEquals(frozenHash, attempts.get(1).split("#")[1]);
      // One publish in the status history: the late request changed nothing.
      List<String> events = kit.events(run.delivery().id());
      assertEquals(
          1, events.stream().filter(e -> e.endsWith(":PUBLISHED")).count(), events.toString());
    }
  }

  @Test
  void shouldCreateASecondArticleWhenTheDestinationIgnoresTheFencingToken(StackContext stack)
      throws SQLException {
    try (TestKit kit = new TestKit(stack, "fence-off", 1)) {
      Run run = lateRequest(kit, stack, false);
      String key = run.request().idempotencyKey();

      // What the fence prevents: the stale request created an article Herald never recorded.
      assertEquals(2, run.destination().simulator().articleCount(key));
      assertEquals(0, run.destination().simulator().staleTokenRefusals(key));
      assertEquals(DeliveryState.PUBLISHED, run.delivery().state());
    }
  }

  /**
   * Runs the scenario and returns once the frozen consumer is awake, healthy and has recorded its
   * fenced attempt.
   */
  private static Run lateRequest(TestKit kit, StackContext stack, boolean fencing)
      throws SQLException {
    TestKit.Destination destination =
        kit.destination(DESTINATION, Behaviour.bare().withFencing(fencing));
    PublicationRequested request =
        TestKit.request(
            new PublicationKey("t1", "a-fence-" + fencing, "r-1", DESTINATION), "Fenced");
    String key = request.idempotencyKey();
    try (TcpProxy link =
        TcpProxy.start(
            "fence-link",
            new InetSocketAddress(
                destination.simulator().baseUri().getHost(),
                destination.simulator().baseUri().getPort()))) {
      Map<String, String> direct = kit.properties(stack.groupId("fence"), destination);
      direct.put("consumer.destinations." + DESTINATION + ".profile", "none");
      // Claims renewed every second while a call is in flight, and lost 3 s after the last
      // renewal: a frozen holder loses its claim quickly. The lease (the renewals' bound) and the
      // read timeout are long, so nothing but the freeze ends the frozen call.
      direct.put("consumer.dispatch.lease", "2m");
      direct.put("consumer.dispatch.heartbeat-timeout", "3s");
      direct.put("consumer.destinations." + DESTINATION + ".read-timeout", "60s");
      Map<String, String> throughLink = new LinkedHashMap<>(direct);
      throughLink.put(
          "consumer.destinations." + DESTINATION + ".base-url", "http://" + link.address());

      link.freeze();
      try (ChildConsumer a = ChildConsumer.start(throughLink, "consumer-a")) {
        kit.send(request);
        DeliveryView claimed = kit.awaitState(request.key(), DeliveryState.DISPATCHING);
        // The request has left consumer A: its bytes wait at the frozen link.
        await()
            .atMost(WAIT)
            .until(() -> link.counters().open() == 1 && bytesWaitingAt(link.port()) > 0);
        a.suspend();

        Map<String, String> second = new LinkedHashMap<>(direct);
        second.put("consumer.dispatch.owner", "consumer-b");
        HeraldConsumer b = kit.start(second);
        DeliveryView stuck = kit.awaitState(request.key(), DeliveryState.NEEDS_RECONCILIATION);
        assertEquals(0, destination.simulator().articleCount(key), "nothing arrived yet");
        // The operator sees no article at the destination and asks for the delivery again.
        OperatorActions.Result retried =
            b.operatorActions()
                .retry(stuck.id(), "operator", "no article at the destination: publish again");
        assertTrue(retried instanceof OperatorActions.Result.Applied, retried.toString());
        DeliveryView published = kit.awaitState(request.key(), DeliveryState.PUBLISHED);
        assertEquals(1, destination.simulator().articleCount(key));

        link.heal();
        if (fencing) {
          await().atMost(WAIT).until(() -> destination.simulator().staleTokenRefusals(key) == 1);
        } else {
          await().atMost(WAIT).until(() -> destination.simulator().articleCount(key) == 2);
        }
        a.resume();
        await().atMost(WAIT).ignoreExceptions().until(() -> a.health() == 200);
        // A's result reaches the database, and the fence discards it.
        await()
            .atMost(WAIT)
            .until(
                () ->
                    kit.query(
                            "SELECT count(*) FROM consumer.delivery_attempt"
                                + " WHERE delivery_id = ? AND claim_token = ?",
                            claimed.id(),
                            claimed.claimToken())
                        .equals(List.of("1")));
        DeliveryView after = kit.find(request.key()).orElseThrow();
        assertNotNull(published.remoteId());
        assertEquals(published.remoteId(), after.remoteId(), "the late request changed nothing");
        return new Run(kit, destination, request, after, claimed.claimToken());
      }
    }
  }

  /**
   * The publish attempts in token order, each as {@code token|owner|status|state|remote#hash}, the
   * token printed only for the first (the later ones are whatever the reconciler's claims made
   * them).
   */
  private static List<String> publishAttempts(TestKit kit, Run run) {
    return kit.query(
        "SELECT CASE WHEN claim_token = ? THEN claim_token::text ELSE '' END || '|' || claim_owner"
            + " || '|' || coalesce(http_status::text, 'null') || '|'"
            + " || coalesce(recorded_state, 'null') || '|' || coalesce(remote_id, 'null')"
            + " || '#' || coalesce(request_hash, 'null')"
            + " FROM consumer.delivery_attempt WHERE delivery_id = ? AND kind = 'PUBLISH'"
            + " ORDER BY claim_token",
        run.frozenToken(),
        run.delivery().id());
  }

  /**
   * Bytes received and not yet read on the proxy's accepted connections ({@code rx_queue} of the
   * established loopback sockets whose local port is {@code port}, from {@code /proc/net/tcp}): the
   * frozen link reads nothing, so this is the request waiting in the network.
   */
  private static long bytesWaitingAt(int port) {
    String localPort = ":" + String.format(Locale.ROOT, "%04X", port);
    long waiting = 0;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      Path path = Path.of(table);
      if (!Files.isReadable(path)) {
        continue;
      }
      try {
        for (String line : Files.readAllLines(path)) {
          String[] fields = line.trim().split("\\s+");
          // sl local_address rem_address st tx_queue:rx_queue ...; st 01 is ESTABLISHED.
          if (fields.length > 4 && fields[1].endsWith(localPort) && fields[3].equals("01")) {
            waiting += Long.parseLong(fields[4].substring(fields[4].indexOf(':') + 1), 16);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + table, e);
      }
    }
    return waiting;
  }
}
