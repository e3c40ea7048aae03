package io.herald.devstack.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy in this JVM, placed on one link (a process and its database, broker or destination)
 * to inject network faults without {@code netem}: it listens on a loopback port and forwards every
 * connection to one target, both directions, until told otherwise.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start("postgres", new InetSocketAddress("127.0.0.1", 5432))) {
 *   // give the process 127.0.0.1:proxy.port() instead of 5432
 *   proxy.delay(Duration.ofMillis(300)); // a slow link
 *   proxy.freeze();                      // a partition: sockets stay open, nothing moves
 *   proxy.heal();                        // pass-through again; held bytes go on
 *   proxy.resetAll();                    // every open connection ends with an RST
 * }
 * }</pre>
 *
 * <p>Thread-safe: the controls can be called at any time from any thread. Bounded: at most {@link
 * #MAX_CONNECTIONS} open connections (more are refused with an RST and counted), one buffer of
 * {@link #BUFFER_BYTES} per direction of a connection, so a frozen connection holds at most one
 * chunk per direction (the rest waits in the kernel's socket buffers, as on a real link). The
 * threads (an acceptor and two virtual threads per connection) belong to the proxy; {@link
 * #close()} stops them and frees the port.
 *
 * <p>Semantics of the controls: a delay is added to each forwarded chunk, each direction, measured
 * from the moment the chunk was read (chunks of one direction go out in order, so a burst
 * accumulates it like a slow link); a freeze stops forwarding on every open and every new
 * connection (new ones are accepted, then hang, and the target is connected only after the heal); a
 * reset closes both sides of every open connection with {@code SO_LINGER 0}, which sends an RST.
 */
public final class TcpProxy implements AutoCloseable {

  /** Open connections at most; a connection beyond it is refused (reset at once). */
  public static final int MAX_CONNECTIONS = 256;

  /** The buffer of each direction of a connection: the most a frozen direction holds. */
  public static final int BUFFER_BYTES = 16 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(TcpProxy.class);
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /**
   * What the proxy has done so far.
   *
   * @param connections connections accepted and forwarded (refused ones not included)
   * @param open connections open now
   * @param bytesToTarget bytes forwarded from clients to the target
   * @param bytesToClients bytes forwarded from the target to clients
   * @param resets connections closed with an RST by {@link #resetAll()}
   * @param refused connections refused because {@link #MAX_CONNECTIONS} were open
   */
  public record Counters(
      long connections,
      int open,
      long bytesToTarget,
      long bytesToClients,
      long resets,
      long refused) {}

  private final String name;
  private volatile InetSocketAddress target;
  private final ServerSocket server;
  private final Thread acceptor;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong bytesToTarget = new AtomicLong();
  private final AtomicLong bytesToClients = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicInteger linkIds = new AtomicInteger();

  /** Guards {@link #frozen} and {@link #delayNanos}; signalled on every change and every close. */
  private final ReentrantLock lock = new ReentrantLock();

  private final Condition changed = lock.newCondition();
  private boolean frozen;
  private long delayNanos;

  private TcpProxy(String name, InetSocketAddress target, ServerSocket server) {
    this.name = name;
    this.target = target;
    this.server = server;
    this.acceptor =
        Thread.ofPlatform().daemon().name("proxy-" + name + "-accept").unstarted(this::accept);
  }

  /** A proxy to {@code target} on a free loopback port ({@link #port()}). */
  public static TcpProxy start(String name, InetSocketAddress target) {
    return start(name, 0, target);
  }

  /**
   * A proxy to {@code target} listening on loopback port {@code port} (0: any free one), e.g. the
   * port a Kafka listener advertises.
   *
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static TcpProxy start(String name, int port, InetSocketAddress target) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(target, "target");
    ServerSocket server;
    try {
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "proxy " + name + " could not listen on loopback port " + port + " for " + target, e);
    }
    TcpProxy proxy = new TcpProxy(name, target, server);
    proxy.threads.add(proxy.acceptor);
    proxy.acceptor.start();
    LOG.info("proxy {} listening on {} for {}", name, proxy.address(), target);
    return proxy;
  }

  /**
   * Sends new connections to {@code next} from now on and resets the open ones, as a moved virtual
   * IP or DNS name does after a failover: clients reconnect through the same address and reach the
   * new target.
   */
  public void retarget(InetSocketAddress next) {
    Objects.requireNonNull(next, "next");
    InetSocketAddress previous = target;
    target = next;
    LOG.info("proxy {} now forwards to {} (was {})", name, next, previous);
    resetAll();
  }

  /** The port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** {@code host:port} clients connect to. */
  public String address() {
    return server.getInetAddress().getHostAddress() + ":" + port();
  }

  /** Adds {@code delay} to every chunk forwarded from now on, each direction; zero for none. */
  public void delay(Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("proxy " + name + ": negative delay " + delay);
    }
    update(() -> delayNanos = delay.toNanos());
  }

  /** Stops forwarding on every open and new connection, sockets kept open, until {@link #heal}. */
  public void freeze() {
    update(() -> frozen = true);
  }

  /** Back to pass-through: no delay, no freeze; frozen connections go on where they stopped. */
  public void heal() {
    update(
        () -> {
          frozen = false;
          delayNanos = 0;
        });
  }

  /** Closes both sides of every open connection with an RST; new connections are not affected. */
  public void resetAll() {
    for (Link link : List.copyOf(links)) {
      if (link.abort()) {
        resets.incrementAndGet();
      }
    }
  }

  public Counters counters() {
    return new Counters(
        connections.get(),
        links.size(),
        bytesToTarget.get(),
        bytesToClients.get(),
        resets.get(),
        refused.get());
  }

  /** The proxy's threads still alive: 0 after {@link #close()} has returned. */
  int liveThreads() {
    // The acceptor stays in the set after it ends; connection threads remove themselves.
    threads.removeIf(t -> !t.isAlive());
    return threads.size();
  }

  /**
   * Stops accepting, resets every open connection, and waits (up to 5 s) for the threads.
   * Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      server.close();
    } catch (IOException e) {
      LOG.warn("proxy {}: closing the listening socket failed", name, e);
    }
    for (Link link : List.copyOf(links)) {
      link.abort();
    }
    update(() -> {});
    long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
    for (Thread thread : List.copyOf(threads)) {
      try {
        long left = deadline - System.nanoTime();
        if (left > 0) {
          thread.join(Duration.ofNanos(left));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        LOG.warn("proxy {}: interrupted while waiting for its threads to end", name);
        return;
      }
    }
    if (liveThreads() > 0) {
      LOG.warn(
          "proxy {}: {} threads still alive {} after close", name, liveThreads(), CLOSE_TIMEOUT);
    }
    Counters counters = counters();
    LOG.info("proxy {} closed: {}", name, counters);
  }

  private void update(Runnable change) {
    lock.lock();
    try {
      change.run();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a chunk read at {@code readAt} may go out: not frozen and its delay past. False
   * when the link or the proxy closed meanwhile.
   */
  private boolean awaitForwarding(Link link, long readAt) throws InterruptedException {
    lock.lock();
    try {
      while (!link.closed.get() && !closed.get()) {
        if (frozen) {
          changed.await();
          continue;
        }
        long wait = readAt + delayNanos - System.nanoTime();
        if (wait <= 0) {
          return true;
        }
        changed.awaitNanos(wait);
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  private void accept() {
    while (!closed.get()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (!closed.get()) {
          LOG.error("proxy {}: accept on {} failed; the proxy stops accepting", name, address(), e);
        }
        return;
      }
      if (links.size() >= MAX_CONNECTIONS) {
        refused.incrementAndGet();
        LOG.warn("proxy {}: {} connections open, refusing one more", name, MAX_CONNECTIONS);
        abort(client);
        continue;
      }
      Link link = new Link(client, linkIds.incrementAndGet());
      links.add(link);
      connections.incrementAndGet();
      link.start();
      if (closed.get()) {
        // close() may have copied the links before this one was added.
        link.abort();
      }
    }
  }

  /** A virtual thread {@link #close()} waits for; it leaves {@link #threads} when it ends. */
  private void startOwned(String threadName, Runnable body) {
    Thread thread =
        Thread.ofVirtual()
            .name(threadName)
            .unstarted(
                () -> {
                  try {
                    body.run();
                  } finally {
                    threads.remove(Thread.currentThread());
                  }
                });
    threads.add(thread);
    thread.start();
  }

  private static void abort(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (SocketException e) {
      // Already closed: nothing left to reset.
      LOG.debug("SO_LINGER on a closed socket", e);
    }
    closeLogged(socket);
  }

  private static void closeLogged(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      LOG.debug("closing a proxied socket failed", e);
    }
  }

  /** One client connection and its connection to the target. */
  private final class Link {
    private final Socket client;
    private final Socket upstream = new Socket();
    private final int id;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger directionsDone = new AtomicInteger();

    Link(Socket client, int id) {
      this.client = client;
      this.id = id;
    }

    void start() {
      startOwned("proxy-" + name + "-" + id + "-up", this::run);
    }

    /** Connects to the target once forwarding is allowed, then pumps both ways. */
    private void run() {
      try {
        if (!awaitForwarding(this, System.nanoTime())) {
          return;
        }
        upstream.connect(target, (int) CONNECT_TIMEOUT.toMillis());
        upstream.setTcpNoDelay(true);
        client.setTcpNoDelay(true);
      } catch (IOException e) {
        // Expected while the target is down (a stopped primary, a killed broker), one per
        // connection the client tries: the cause in a line, not a stack trace each time.
        LOG.warn(
            "proxy {}: connecting to {} failed ({}); closing the client's connection",
            name,
            target,
            e.toString());
        abort();
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        abort();
        return;
      }
      startOwned(
          "proxy-" + name + "-" + id + "-down", () -> pump(upstream, client, bytesToClients));
      pump(client, upstream, bytesToTarget);
    }

    private void pump(Socket from, Socket to, AtomicLong counter) {
      byte[] buffer = new byte[BUFFER_BYTES];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        while (true) {
          int read = in.read(buffer);
          if (read < 0) {
            // Half-close: the other direction may still carry the answer.
            if (!closed.get()) {
              to.shutdownOutput();
            }
            break;
          }
          if (!awaitForwarding(this, System.nanoTime())) {
            return;
          }
          out.write(buffer, 0, read);
          counter.addAndGet(read);
        }
        if (directionsDone.incrementAndGet() == 2) {
          finish();
        }
      } catch (IOException e) {
        // A peer went away (or resetAll/close closed the sockets): end the other side as well.
        if (!closed.get()) {
          LOG.debug("proxy {}: connection {} ended: {}", name, id, e.toString());
          abort();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        abort();
      }
    }

    /** Both directions ended cleanly: an ordinary close. */
    private void finish() {
      if (closed.compareAndSet(false, true)) {
        closeLogged(client);
        closeLogged(upstream);
        links.remove(this);
      }
    }

    /** Closes both sides with an RST; true if this call closed the link. */
    boolean abort() {
      if (!closed.compareAndSet(false, true)) {
        return false;
      }
      TcpProxy.abort(client);
      TcpProxy.abort(upstream);
      links.remove(this);
      // Wake this link's pumps if they wait on a freeze or a delay.
      update(() -> {});
      return true;
    }
  }
}
