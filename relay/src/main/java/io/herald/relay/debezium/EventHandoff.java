package io.herald.relay.debezium;

import io.debezium.connector.base.QueueProvider;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The storage behind Debezium's change-event queue, which also lets the engine's poll wake on the
 * first queued event.
 *
 * <p>Debezium's {@code ChangeEventQueue} keeps its events in a {@link QueueProvider} and guards it
 * with its own lock; its {@code poll()} returns only once a full {@code max.batch.size} batch is
 * queued or {@code poll.interval.ms} has passed, spinning through the last millisecond. {@link
 * HeraldPostgresConnectorTask} reads this storage directly instead whenever less than a full batch
 * is queued: {@link #awaitAndDrain} blocks until the streaming thread enqueues an event (a
 * condition signal, no spinning) and returns what is there. Because that read does not take the
 * ChangeEventQueue's lock, this class has its own.
 *
 * <p><b>Works around</b> Debezium 3.6.1's queue poll, and <b>would let it go</b> with it (see
 * {@link HeraldPostgresConnectorTask}).
 *
 * <p>Bounded by the ChangeEventQueue, which stops enqueueing at {@code max.queue.size}.
 * Thread-safe.
 */
final class EventHandoff<T> implements QueueProvider<T> {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private final ArrayDeque<T> events;
  private final long lingerNanos;

  /** When the last non-empty drain returned; guarded by {@link #lock}. */
  private long lastDrainNanos;

  /**
   * How many queued events wake a waiting drain: the first while it waits for one, a full batch
   * while it lingers, so the events of a linger do not each wake the engine's thread only for it to
   * wait again. Guarded by {@link #lock}.
   */
  private int wakeAt = 1;

  /**
   * @param capacity the queue's {@code max.queue.size}, to size the storage once
   * @param linger how long after the previous drain a drain may wait for more events to join the
   *     first; zero hands each event over at once
   */
  EventHandoff(int capacity, Duration linger) {
    this.events = new ArrayDeque<>(capacity);
    this.lingerNanos = linger.toNanos();
    this.lastDrainNanos = System.nanoTime() - lingerNanos;
  }

  @Override
  public String name() {
    return "herald-handoff";
  }

  /** Sized at construction; Debezium's queue settings are read by the task. */
  @Override
  public void configure(Map<String, ?> properties) {}

  @Override
  public void enqueue(T event) {
    lock.lock();
    try {
      events.add(event);
      if (events.size() >= wakeAt) {
        notEmpty.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public T poll() {
    lock.lock();
    try {
      return events.poll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int size() {
    lock.lock();
    try {
      return events.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes up to {@code max} events, waiting up to {@code wait} for the first one. A first event
   * that comes within the linger of the previous drain waits out the rest of it, unless {@code max}
   * events gather sooner: while events keep coming, a batch leaves at most once per linger, and the
   * events behind the first share its Kafka transaction instead of each paying for one. A first
   * event after a quiet spell leaves at once.
   *
   * @return the events in queue order; empty if none arrived in time
   */
  List<T> awaitAndDrain(int max, Duration wait) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      long nanos = wait.toNanos();
      while (events.isEmpty()) {
        if (nanos <= 0) {
          return List.of();
        }
        nanos = notEmpty.awaitNanos(nanos);
      }
      long lingerLeft = lastDrainNanos + lingerNanos - System.nanoTime();
      wakeAt = max;
      try {
        while (lingerLeft > 0 && events.size() < max) {
          lingerLeft = notEmpty.awaitNanos(lingerLeft);
        }
      } finally {
        wakeAt = 1;
      }
      lastDrainNanos = System.nanoTime();
      int count = Math.min(max, events.size());
      List<T> drained = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        drained.add(events.poll());
      }
      return drained;
    } finally {
      lock.unlock();
    }
  }
}
