package io.herald.devstack.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real HTTP server that behaves like an external publishing API, for tests, the demo and
 * benchmarks.
 *
 * <p>API (what Herald's destination client speaks):
 *
 * <ul>
 *   <li>Every path below may carry a prefix naming a destination ({@code /dest-a/articles}), so one
 *       simulator can stand in for several destinations, each with its own {@link Behaviour}
 *       ({@link #setBehaviour(String, Behaviour)}); idempotency keys differ per destination anyway.
 *   <li>{@code POST /articles} with a JSON object body carrying {@code externalReference}; optional
 *       idempotency key header ({@link Behaviour#idempotencyHeader()}). Answers {@code 201
 *       {"id":...}} for a new article, {@code 200 {"id":...}} (or {@code 409 {"id":...}} with
 *       {@link Behaviour.Repeat#CONFLICT_EXISTS}) when an honoured key was seen within the key
 *       window, marked with the replay marker header when the behaviour has one; a key older than
 *       the window is forgotten and creates a second article, as a real API's would.
 *   <li>{@code GET /articles?externalReference=R}: {@code 200 {"id":...}} or {@code 404}; {@code
 *       501} when lookup is switched off.
 *   <li>With {@link Behaviour#fencing()} (a cooperating destination of Herald's fencing), a create
 *       whose {@value #FENCING_TOKEN_HEADER} is lower than the highest seen for its key (on a
 *       create or a lookup) is answered {@code 409 {"error":"stale_fencing_token"}} and creates
 *       nothing ({@link #staleTokenRefusals}); a header that is not a number is {@code 400}.
 *   <li>Admin (for the standalone process): {@code GET /admin/articles[?externalReference=R]},
 *       {@code PUT /admin/behaviour}, {@code POST /admin/faults}, {@code POST /admin/reset}.
 * </ul>
 *
 * <p>Thread-safety: all methods may be called from any thread while the server runs. Requests are
 * served on virtual threads, so a stalled request never blocks others.
 */
public final class DestinationSimulator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DestinationSimulator.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BODY_BYTES = 1 << 20;

  /** The header Herald's destination client carries its claim's fencing token in. */
  public static final String FENCING_TOKEN_HEADER = "Herald-Fencing-Token";

  /** How many received requests {@link #receivedRequests()} keeps (the oldest go first). */
  public static final int RECEIVED_KEPT = 10_000;

  private final HttpServer server;
  private final ExecutorService executor;
  private final ArticleStore store;
  private final AtomicReference<Behaviour> behaviour;
  private final Map<String, Behaviour> prefixBehaviours =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final Queue<Fault> faults = new ConcurrentLinkedQueue<>();
  private final Map<String, Queue<Fault>> prefixFaults =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final String requiredBearerToken;

  /** The last {@link #RECEIVED_KEPT} requests at article paths, oldest first; guarded by itself. */
  private final Deque<ReceivedRequest> received = new ArrayDeque<>();

  /** Per key, the highest fencing token seen; grows only (merged with max). */
  private final Map<String, Long> highestTokens = new java.util.concurrent.ConcurrentHashMap<>();

  /** Per key, how many creates were refused for a stale token. */
  private final Map<String, AtomicInteger> refusals =
      new java.util.concurrent.ConcurrentHashMap<>();

  private DestinationSimulator(
      HttpServer server, Behaviour behaviour, String requiredBearerToken, Clock clock) {
    this.server = server;
    this.behaviour = new AtomicReference<>(behaviour);
    this.requiredBearerToken = requiredBearerToken;
    this.store = new ArticleStore(clock);
    this.executor = Executors.newVirtualThreadPerTaskExecutor();
    server.setExecutor(executor);
    server.createContext("/admin", this::handleAdmin);
    server.createContext("/", this::handleArticles);
  }

  /** Starts a simulator on an ephemeral port of the loopback interface, no credentials required. */
  public static DestinationSimulator start(Behaviour behaviour) {
    return start("127.0.0.1", 0, behaviour, null);
  }

  /**
   * Starts a simulator.
   *
   * @param port 0 for an ephemeral port
   * @param requiredBearerToken when not null, article requests without {@code Authorization: Bearer
   *     <token>} get 401
   */
  public static DestinationSimulator start(
      String host, int port, Behaviour behaviour, String requiredBearerToken) {
    return start(host, port, behaviour, requiredBearerToken, Clock.systemUTC());
  }

  /**
   * Starts a simulator on an ephemeral loopback port whose key window runs on {@code clock} (tests
   * forget keys by moving a hand clock).
   */
  public static DestinationSimulator start(Behaviour behaviour, Clock clock) {
    return start("127.0.0.1", 0, behaviour, null, clock);
  }

  private static DestinationSimulator start(
      String host, int port, Behaviour behaviour, String requiredBearerToken, Clock clock) {
    Objects.requireNonNull(behaviour, "behaviour");
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 256);
      DestinationSimulator simulator =
          new DestinationSimulator(server, behaviour, requiredBearerToken, clock);
      server.start();
      log.info("Destination simulator listening on {} with {}", simulator.baseUri(), behaviour);
      return simulator;
    } catch (IOException e) {
      throw new IllegalStateException(
          "Cannot start the destination simulator on " + host + ":" + port, e);
    }
  }

  /** The base URI, e.g. {@code http://127.0.0.1:41234}. */
  public URI baseUri() {
    InetSocketAddress address = server.getAddress();
    return URI.create("http://" + address.getHostString() + ":" + address.getPort());
  }

  public Behaviour behaviour() {
    return behaviour.get();
  }

  public void setBehaviour(Behaviour newBehaviour) {
    behaviour.set(Objects.requireNonNull(newBehaviour, "behaviour"));
  }

  /**
   * The behaviour of requests under {@code /<prefix>/articles}; others keep the default. The prefix
   * is a destination's path segment, given with or without its leading slash, as {@link
   * #failNext(String, Fault, int)} takes it.
   */
  public void setBehaviour(String prefix, Behaviour newBehaviour) {
    prefixBehaviours.put(segment(prefix), Objects.requireNonNull(newBehaviour, "behaviour"));
  }

  /** {@code /dest-b} and {@code dest-b} name the same destination: one rule for both setters. */
  private static String segment(String prefix) {
    return prefix.replaceAll("^/+", "");
  }

  private Behaviour behaviourFor(String prefix) {
    return prefix.isEmpty()
        ? behaviour.get()
        : prefixBehaviours.getOrDefault(prefix, behaviour.get());
  }

  /** Applies {@code fault} to the next article request (faults queue up, one per request). */
  public void failNext(Fault fault) {
    faults.add(Objects.requireNonNull(fault, "fault"));
  }

  /** Applies {@code fault} to each of the next {@code times} article requests. */
  public void failNext(Fault fault, int times) {
    for (int i = 0; i < times; i++) {
      failNext(fault);
    }
  }

  /**
   * Applies {@code fault} to each of the next {@code times} article requests under {@code
   * /<prefix>/articles} only; they take these before any fault queued for every request.
   */
  public void failNext(String prefix, Fault fault, int times) {
    Objects.requireNonNull(fault, "fault");
    Queue<Fault> queue =
        prefixFaults.computeIfAbsent(segment(prefix), p -> new ConcurrentLinkedQueue<>());
    for (int i = 0; i < times; i++) {
      queue.add(fault);
    }
  }

  /** How many faults queued for {@code /<prefix>/articles} no request has taken yet. */
  public int pendingFaults(String prefix) {
    Queue<Fault> queue = prefixFaults.get(segment(prefix));
    return queue == null ? 0 : queue.size();
  }

  /** Drops the faults queued for {@code /<prefix>/articles} that no request has taken yet. */
  public void clearFaults(String prefix) {
    Queue<Fault> queue = prefixFaults.get(segment(prefix));
    if (queue != null) {
      queue.clear();
    }
  }

  /** How many articles exist with this external reference: "one remote article per intent". */
  public int articleCount(String externalReference) {
    return store.countByExternalReference(externalReference);
  }

  /**
   * How many create requests arrived with this idempotency key (answered or not): in the key
   * header, or as the body's {@code externalReference} of a request without one.
   */
  public int createRequests(String idempotencyKey) {
    return store.createRequests(idempotencyKey);
  }

  /**
   * How many creates for {@code key} (the idempotency key, or the body's reference when the request
   * had no key header) a fencing destination refused because their token was lower than one seen.
   */
  public int staleTokenRefusals(String key) {
    AtomicInteger count = refusals.get(key);
    return count == null ? 0 : count.get();
  }

  /** The highest fencing token a fencing destination has seen for {@code key}, if any. */
  public Optional<Long> highestFencingToken(String key) {
    return Optional.ofNullable(highestTokens.get(key));
  }

  public Optional<Article> findByExternalReference(String externalReference) {
    return store.findByExternalReference(externalReference);
  }

  /** Every article, in creation order. */
  public List<Article> articles() {
    return store.all();
  }

  /**
   * The articles from the {@code index}-th on, in creation order: a reader that keeps count reads
   * each article once, where {@link #articles()} copies them all (a load that polls its arrivals).
   *
   * @throws IllegalStateException if fewer than {@code index} articles are held ({@link #reset()}
   *     forgot them since)
   */
  public List<Article> articlesFrom(int index) {
    return store.from(index);
  }

  /**
   * The last {@value #RECEIVED_KEPT} requests received at article paths (creates and lookups,
   * refused ones too), oldest first, with the headers they carried.
   */
  public List<ReceivedRequest> receivedRequests() {
    synchronized (received) {
      return List.copyOf(received);
    }
  }

  /** Forgets every article, request count, received request, fencing token and pending fault. */
  public void reset() {
    synchronized (received) {
      received.clear();
    }
    faults.clear();
    prefixFaults.clear();
    highestTokens.clear();
    refusals.clear();
    store.clear();
  }

  @Override
  public void close() {
    server.stop(0);
    // Interrupts stalled handlers so no thread outlives the simulator.
    executor.shutdownNow();
  }

  private void handleArticles(HttpExchange exchange) throws IOException {
    try (exchange) {
      record(exchange);
      if (!authorized(exchange)) {
        respond(exchange, 401, error("unauthorized", "missing or wrong bearer token"));
        return;
      }
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getPath();
      if (!path.endsWith("/articles")) {
        respond(exchange, 404, error("not_found", method + " " + path));
        return;
      }
      String prefix = segment(path.substring(0, path.length() - "/articles".length()));
      Behaviour current = behaviourFor(prefix);
      sleep(current.latency());
      if ("POST".equals(method)) {
        createArticle(exchange, current, prefix);
      } else if ("GET".equals(method)) {
        lookUp(exchange, current);
      } else {
        respond(exchange, 404, error("not_found", method + " " + path));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.debug("Simulator request interrupted (simulator closing)", e);
    }
  }

  private void record(HttpExchange exchange) {
    ReceivedRequest request =
        new ReceivedRequest(
            exchange.getRequestMethod(),
            exchange.getRequestURI().getPath(),
            exchange.getRequestHeaders());
    synchronized (received) {
      if (received.size() == RECEIVED_KEPT) {
        received.removeFirst();
      }
      received.addLast(request);
    }
  }

  private void createArticle(HttpExchange exchange, Behaviour current, String prefix)
      throws IOException, InterruptedException {
    String idempotencyKey = exchange.getRequestHeaders().getFirst(current.idempotencyHeader());
    String body = readBody(exchange);
    // Counted by the key, or by the body's reference when the caller sends no key header (Herald
    // sends none to a destination whose profile has no key; its reference is the same key).
    String key = idempotencyKey != null ? idempotencyKey : externalReference(body);
    store.countRequest(key);
    if (current.fencing() && refusedAsStale(exchange, key)) {
      return;
    }
    boolean keyed = current.honoursIdempotencyKey() && idempotencyKey != null;
    Integer savedError =
        keyed && current.replaysErrors()
            ? store.savedError(idempotencyKey, current.keyWindow())
            : null;
    if (savedError != null) {
      markReplayed(exchange, current);
      respond(exchange, savedError, error("simulated", "replayed saved status " + savedError));
      return;
    }
    Queue<Fault> own = prefixFaults.get(prefix);
    Fault fault = own == null ? null : own.poll();
    if (fault == null) {
      fault = faults.poll();
    }
    if (fault instanceof Fault.RejectBeforeAccept reject) {
      exchange
          .getResponseHeaders()
          .add("Retry-After", Long.toString(Math.max(0, reject.retryAfter().toSeconds())));
      respond(exchange, 503, error("unavailable", "not accepted, try again later"));
      return;
    }
    if (fault instanceof Fault.StallWithoutAccepting stall) {
      sleep(stall.stall());
      respond(exchange, 503, error("unavailable", "dropped after " + stall.stall()));
      return;
    }
    if (fault instanceof Fault.RateLimited limited) {
      exchange
          .getResponseHeaders()
          .add("Retry-After", Long.toString(Math.max(0, limited.retryAfter().toSeconds())));
      respond(exchange, 429, error("rate_limited", "too many requests, try again later"));
      return;
    }
    if (fault instanceof Fault.Status status) {
      if (keyed && current.replaysErrors()) {
        store.saveError(idempotencyKey, status.status());
      }
      respond(exchange, status.status(), error("simulated", "simulated status " + status.status()));
      return;
    }
    if (fault instanceof Fault.Redirect redirect) {
      exchange.getResponseHeaders().add("Location", redirect.location());
      respond(exchange, redirect.status(), error("moved", "see " + redirect.location()));
      return;
    }
    JsonNode json;
    try {
      json = JSON.readTree(body);
    } catch (IOException e) {
      respond(exchange, 400, error("invalid_json", e.getMessage()));
      return;
    }
    if (json == null || !json.isObject() || !json.path("externalReference").isTextual()) {
      respond(exchange, 422, error("invalid_article", "body needs a textual externalReference"));
      return;
    }
    String externalReference = json.get("externalReference").asText();
    ArticleStore.Creation creation =
        store.create(
            idempotencyKey,
            externalReference,
            body,
            current.honoursIdempotencyKey(),
            current.keyWindow());
    if (fault instanceof Fault.OnAccept onAccept) {
      onAccept.hook().run();
    }
    if (fault instanceof Fault.StallAfterAccept stall) {
      log.info(
          "Simulator accepted {} and stalls {} before answering",
          creation.article().remoteId(),
          stall.stall());
      sleep(stall.stall());
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("id", creation.article().remoteId());
    answer.put("externalReference", externalReference);
    int status = creation.created() ? 201 : 200;
    if (!creation.created()) {
      markReplayed(exchange, current);
      if (current.repeat() == Behaviour.Repeat.CONFLICT_EXISTS) {
        answer.put("error", "conflict");
        answer.put("message", "an article with this idempotency key exists");
        respond(exchange, 409, answer);
        return;
      }
    }
    switch (fault) {
      case Fault.MalformedAnswer malformed ->
          respondRaw(exchange, status, "{\"id\": \"" + creation.article().remoteId() + "\",");
      case Fault.HugeAnswer huge -> respondHuge(exchange, status, huge.bytes(), answer);
      case Fault.SlowDrip drip -> respondDripping(exchange, status, drip.interval(), answer);
      case null, default -> respond(exchange, status, answer);
    }
  }

  /**
   * The fence of a cooperating destination: raises the key's highest token to this request's, or
   * answers it (400 for an unreadable token, 409 for a stale one) and returns true. Checked and
   * raised in one atomic step per key; like a real destination's check in its own transaction, a
   * request past the check is not stopped by a higher token arriving while it is served.
   */
  private boolean refusedAsStale(HttpExchange exchange, String key) {
    String header = exchange.getRequestHeaders().getFirst(FENCING_TOKEN_HEADER);
    if (header == null || key == null) {
      return false;
    }
    long token;
    try {
      token = Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      respond(exchange, 400, error("invalid_fencing_token", "not a number: " + header));
      return true;
    }
    long highest = highestTokens.merge(key, token, Math::max);
    if (token >= highest) {
      return false;
    }
    refusals.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    log.info(
        "Simulator refused a create for {} with stale fencing token {} < {}", key, token, highest);
    ObjectNode answer =
        error("stale_fencing_token", "token " + token + " is lower than " + highest);
    answer.put("token", token);
    answer.put("highestToken", highest);
    respond(exchange, 409, answer);
    return true;
  }

  /** A lookup's token raises its key's highest (a later, lower create is stale), never refused. */
  private void observeToken(HttpExchange exchange, String key) {
    String header = exchange.getRequestHeaders().getFirst(FENCING_TOKEN_HEADER);
    if (header == null || key == null) {
      return;
    }
    try {
      highestTokens.merge(key, Long.parseLong(header.trim()), Math::max);
    } catch (NumberFormatException e) {
      // A read changes nothing: an unreadable token is not refused here, only not remembered.
      log.debug("Simulator ignored an unreadable fencing token on a lookup: {}", header, e);
    }
  }

  private static void markReplayed(HttpExchange exchange, Behaviour current) {
    if (current.replayMarker() != null) {
      exchange.getResponseHeaders().set(current.replayMarker(), "true");
    }
  }

  /** The body's textual {@code externalReference}, or null when there is none. */
  private static String externalReference(String body) {
    try {
      JsonNode json = JSON.readTree(body);
      return json != null && json.path("externalReference").isTextual()
          ? json.get("externalReference").asText()
          : null;
    } catch (IOException e) {
      // Answered 400 below, where the body is parsed for the article.
      return null;
    }
  }

  private void lookUp(HttpExchange exchange, Behaviour current) throws IOException {
    if (!current.supportsLookup()) {
      respond(exchange, 501, error("lookup_not_supported", "this destination has no lookup"));
      return;
    }
    String reference = query(exchange.getRequestURI()).get("externalReference");
    if (reference == null) {
      respond(exchange, 400, error("invalid_query", "externalReference is required"));
      return;
    }
    if (current.fencing()) {
      observeToken(exchange, reference);
    }
    Optional<Article> article = store.findByExternalReference(reference);
    if (article.isEmpty()) {
      respond(exchange, 404, error("not_found", "no article with externalReference " + reference));
      return;
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("id", article.get().remoteId());
    answer.put("externalReference", reference);
    respond(exchange, 200, answer);
  }

  private void handleAdmin(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getPath();
      switch (method + " " + path) {
        case "GET /admin/articles" -> listArticles(exchange);
        case "PUT /admin/behaviour" -> updateBehaviour(exchange);
        case "POST /admin/faults" -> addFault(exchange);
        case "POST /admin/reset" -> {
          reset();
          respond(exchange, 204, null);
        }
        default -> respond(exchange, 404, error("not_found", method + " " + path));
      }
    }
  }

  private void listArticles(HttpExchange exchange) throws IOException {
    String reference = query(exchange.getRequestURI()).get("externalReference");
    ArrayNode list = JSON.createArrayNode();
    for (Article article : store.all()) {
      if (reference == null || reference.equals(article.externalReference())) {
        ObjectNode node = list.addObject();
        node.put("id", article.remoteId());
        node.put("externalReference", article.externalReference());
        node.put("idempotencyKey", article.idempotencyKey());
        node.put("createdAt", article.createdAt().toString());
      }
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("count", list.size());
    answer.set("articles", list);
    respond(exchange, 200, answer);
  }

  private void updateBehaviour(HttpExchange exchange) throws IOException {
    JsonNode json = JSON.readTree(readBody(exchange));
    Behaviour current = behaviour.get();
    Behaviour updated =
        current
            .withIdempotency(
                json.path("honoursIdempotencyKey").asBoolean(current.honoursIdempotencyKey()))
            .withLookup(json.path("supportsLookup").asBoolean(current.supportsLookup()))
            .withLatency(
                Duration.ofMillis(json.path("latencyMs").asLong(current.latency().toMillis())))
            .withKeyWindow(
                Duration.ofMillis(json.path("keyWindowMs").asLong(current.keyWindow().toMillis())))
            .withFencing(json.path("fencing").asBoolean(current.fencing()));
    setBehaviour(updated);
    respond(exchange, 200, JSON.valueToTree(updated.toString()));
  }

  private void addFault(HttpExchange exchange) throws IOException {
    JsonNode json = JSON.readTree(readBody(exchange));
    int times = json.path("times").asInt(1);
    Fault fault =
        switch (json.path("type").asText()) {
          case "stall" ->
              new Fault.StallAfterAccept(Duration.ofMillis(json.path("millis").asLong()));
          case "reject" ->
              new Fault.RejectBeforeAccept(
                  Duration.ofSeconds(json.path("retryAfterSeconds").asLong(1)));
          case "status" -> new Fault.Status(json.path("status").asInt(500));
          case "rate-limit" ->
              new Fault.RateLimited(Duration.ofSeconds(json.path("retryAfterSeconds").asLong(1)));
          case "malformed" -> new Fault.MalformedAnswer();
          case "huge" -> new Fault.HugeAnswer(json.path("bytes").asLong(64L << 20));
          case "drip" -> new Fault.SlowDrip(Duration.ofMillis(json.path("millis").asLong(500)));
          case "redirect" ->
              new Fault.Redirect(
                  json.path("status").asInt(307), json.path("location").asText("/elsewhere"));
          default -> null;
        };
    if (fault == null) {
      respond(
          exchange,
          400,
          error(
              "invalid_fault",
              "type must be stall, reject, status, rate-limit, malformed, huge, drip or redirect"));
      return;
    }
    failNext(fault, times);
    respond(exchange, 204, null);
  }

  private boolean authorized(HttpExchange exchange) {
    if (requiredBearerToken == null) {
      return true;
    }
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    return ("Bearer " + requiredBearerToken).equals(header);
  }

  private static String readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
      if (bytes.length > MAX_BODY_BYTES) {
        throw new IOException("request body larger than " + MAX_BODY_BYTES + " bytes");
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private static void respond(HttpExchange exchange, int status, JsonNode body) {
    try {
      if (body == null) {
        exchange.sendResponseHeaders(status, -1);
        return;
      }
      byte[] bytes = JSON.writeValueAsBytes(body);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    } catch (IOException e) {
      // Expected after a stall past the client's timeout: the client has hung up.
      log.debug("Simulator could not answer {} (client gone)", status, e);
    }
  }

  private static void respondRaw(HttpExchange exchange, int status, String body) {
    try {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    } catch (IOException e) {
      log.debug("Simulator could not answer {} (client gone)", status, e);
    }
  }

  /** Streams {@code bytes} of padding before the answer's fields, never holding them in memory. */
  private static void respondHuge(
      HttpExchange exchange, int status, long bytes, ObjectNode answer) {
    try {
      byte[] head = "{\"padding\":\"".getBytes(StandardCharsets.UTF_8);
      byte[] tail =
          ("\"," + JSON.writeValueAsString(answer).substring(1)).getBytes(StandardCharsets.UTF_8);
      long padding = Math.max(0, bytes - head.length - tail.length);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, head.length + padding + tail.length);
      OutputStream out = exchange.getResponseBody();
      out.write(head);
      byte[] chunk = new byte[64 * 1024];
      Arrays.fill(chunk, (byte) 'x');
      for (long left = padding; left > 0; left -= chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
      out.write(tail);
    } catch (IOException e) {
      // A caller that stops reading a huge answer hangs up: expected.
      log.debug("Simulator stopped a huge answer (client gone)", e);
    }
  }

  /** Sends the headers at once, then the body a byte at a time, {@code interval} apart. */
  private static void respondDripping(
      HttpExchange exchange, int status, Duration interval, ObjectNode answer)
      throws InterruptedException {
    try {
      byte[] bytes = JSON.writeValueAsBytes(answer);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      OutputStream out = exchange.getResponseBody();
      for (byte b : bytes) {
        out.write(b);
        out.flush();
        Thread.sleep(interval);
      }
    } catch (IOException e) {
      log.debug("Simulator stopped a dripping answer (client gone)", e);
    }
  }

  private static ObjectNode error(String code, String message) {
    ObjectNode node = JSON.createObjectNode();
    node.put("error", code);
    node.put("message", message);
    return node;
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> result = new HashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return result;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      result.put(
          URLDecoder.decode(name, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return result;
  }

  private static void sleep(Duration duration) throws InterruptedException {
    if (!duration.isZero()) {
      Thread.sleep(duration);
    }
  }
}
