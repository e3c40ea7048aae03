package io.herald.consumer.dispatch;

import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.DeliveryQueue;
import io.herald.consumer.metrics.ConsumerMetrics;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the claims of this instance's calls in flight alive: a claim row is leased for the short
 * {@code horizon} ({@code consumer.dispatch.heartbeat-timeout}, at most the lease), and every third
 * of it one UPDATE renews all claims still in flight, each fenced by its token. A dead instance
 * stops renewing, so its claims expire within one horizon and are reconciled as uncertain.
 *
 * <p>Fencing holds on this side too: a call whose claim could not be renewed before its local
 * deadline (the database unreachable), or whose renewal found the token moved on, is cancelled (its
 * thread interrupted) a renewal period before the row's lease can end, so no other instance can
 * claim the delivery while this call is still running. The local deadline is measured from before
 * each statement was sent, so it never passes after the row's {@code lease_until}. A claim is
 * renewed for at most {@code lease} after it was taken; the configuration makes the lease outlast
 * any one call.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once (after the calls it keeps alive have
 * ended). Bounded: it holds one entry per call in flight. Health: {@link #healthy}, the counter
 * {@code herald.consumer.lease.renewals{result}} and {@code herald.consumer.lease.cancelled}.
 * Thread-safe.
 */
final class LeaseKeeper implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

  private final DeliveryQueue deliveries;
  private final String owner;
  private final Duration horizon;
  private final Duration lease;
  private final Duration period;
  private final LongSupplier nanoClock;
  private final ConsumerMetrics metrics;
  private final Map<UUID, Held> held = new ConcurrentHashMap<>();
  private final Object signal = new Object();
  private volatile boolean running;
  private volatile long lastRoundNanos;
  private Thread thread;

  /** One call in flight under a claim; its thread is interrupted only while it is calling. */
  static final class Held {
    private final ClaimedDelivery claim;
    private final long claimedNanos;
    private final Thread caller;
    private long deadlineNanos;
    private boolean calling = true;
    private boolean cancelled;

    private Held(ClaimedDelivery claim, long claimedNanos, long deadlineNanos, Thread caller) {
      this.claim = claim;
      this.claimedNanos = claimedNanos;
      this.deadlineNanos = deadlineNanos;
      this.caller = caller;
    }

    private synchronized void cancel() {
      cancelled = true;
      if (calling) {
        caller.interrupt();
      }
    }

    /**
     * Ends the call: from now on nothing interrupts the caller, and an interrupt that cancelled the
     * call is cleared so the result can still be recorded (and fenced) normally.
     *
     * @return whether the call was cancelled
     */
    synchronized boolean endCall() {
      calling = false;
      Thread.interrupted();
      return cancelled;
    }

    private synchronized boolean callEnded() {
      return !calling;
    }

    private synchronized long deadline() {
      return deadlineNanos;
    }

    private synchronized void renewed(long deadline) {
      deadlineNanos = deadline;
    }
  }

  /**
   * @param horizon how long one claim or renewal holds the row ({@code lease_until = now() +
   *     horizon}), at most {@code lease}
   * @param lease the longest a claim is renewed, from when it was taken
   */
  LeaseKeeper(
      DeliveryQueue deliveries,
      String owner,
      Duration horizon,
      Duration lease,
      LongSupplier nanoClock,
      ConsumerMetrics metrics) {
    this.deliveries = Objects.requireNonNull(deliveries, "deliveries");
    this.owner = Objects.requireNonNull(owner, "owner");
    this.horizon = horizon.compareTo(lease) < 0 ? horizon : lease;
    this.lease = lease;
    this.period = this.horizon.dividedBy(3);
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.lastRoundNanos = nanoClock.getAsLong();
  }

  /** How long a claim statement leases a row. */
  Duration horizon() {
    return horizon;
  }

  /**
   * Keeps {@code claim} alive while {@code caller} calls the destination.
   *
   * @param claimedNanos the clock's reading before the claim statement was sent
   */
  Held hold(ClaimedDelivery claim, long claimedNanos, Thread caller) {
    Held entry = new Held(claim, claimedNanos, claimedNanos + horizon.toNanos(), caller);
    held.put(claim.id(), entry);
    return entry;
  }

  /** The call is over and recorded (or given up): its claim is no longer renewed. */
  void release(Held entry) {
    held.remove(entry.claim.id(), entry);
  }

  /** Calls currently kept alive. */
  int size() {
    return held.size();
  }

  /**
   * One round: renews every claim still in flight in one statement, then cancels the calls whose
   * claim was taken over or could not be renewed in time.
   */
  void renewOnce() {
    long start = nanoClock.getAsLong();
    lastRoundNanos = start;
    Map<UUID, Long> tokens = new LinkedHashMap<>();
    for (Held entry : held.values()) {
      // Past the lease a claim is no longer renewed; its call cannot still be running then.
      if (start - entry.claimedNanos + horizon.toNanos() <= lease.toNanos()) {
        tokens.put(entry.claim.id(), entry.claim.claimToken());
      }
    }
    if (!tokens.isEmpty()) {
      try {
        Set<UUID> renewed = deliveries.renewLeases(owner, tokens, horizon);
        for (UUID id : tokens.keySet()) {
          Held entry = held.get(id);
          if (entry == null) {
            continue;
          }
          if (renewed.contains(id)) {
            entry.renewed(start + horizon.toNanos());
          } else if (entry.callEnded()) {
            // Its result is being recorded, and recording ends the claim: a renewal that finds it
            // ended is that, not a takeover, and there is no call left to cancel. Were it taken
            // over all the same, the fence refuses the result.
            metrics.leaseRenewal("ended");
          } else {
            metrics.leaseRenewal("fenced");
            cancel(entry, "its claim was taken over (the fencing token moved on)");
          }
        }
        metrics.leaseRenewal("renewed", renewed.size());
      } catch (SQLException | RuntimeException e) {
        metrics.leaseRenewal("failed");
        log.error(
            "Renewing the claims of {} calls in flight of {} failed; each is cancelled unless a"
                + " renewal succeeds before its lease ends",
            tokens.size(),
            owner,
            e);
      }
    }
    long now = nanoClock.getAsLong();
    for (Held entry : held.values()) {
      if (!entry.cancelled && now >= entry.deadline() - period.toNanos()) {
        cancel(entry, "its claim could not be renewed before its lease ends");
      }
    }
  }

  private void cancel(Held entry, String why) {
    if (entry.cancelled) {
      return;
    }
    metrics.leaseCancelled();
    log.warn("Cancelling the call for {}: {}", entry.claim, why);
    entry.cancel();
  }

  void start() {
    running = true;
    thread = Thread.ofPlatform().name("herald-lease-keeper").daemon(true).start(this::loop);
  }

  /** Whether the renewal loop is alive and ran within {@code maxSilence}. */
  boolean healthy(Duration maxSilence) {
    return running
        && thread != null
        && thread.isAlive()
        && nanoClock.getAsLong() - lastRoundNanos < maxSilence.toNanos();
  }

  private void loop() {
    while (running) {
      try {
        renewOnce();
      } catch (RuntimeException e) {
        log.error("Lease renewal round failed unexpectedly", e);
        metrics.loopFailure("dispatch-renew");
      }
      synchronized (signal) {
        if (!running) {
          break;
        }
        try {
          signal.wait(Math.max(1, period.toMillis()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    running = false;
    synchronized (signal) {
      signal.notifyAll();
    }
    if (thread != null) {
      try {
        thread.join(period.plusSeconds(5).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
