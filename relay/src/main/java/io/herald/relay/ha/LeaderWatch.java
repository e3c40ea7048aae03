package io.herald.relay.ha;

/**
 * What a leader does next, decided from how its engine stands, whether a stop was requested and
 * whether its lock session is still alive. A pure function; the relay process does the I/O.
 *
 * <p>A lost lock session explains whatever the engine did meanwhile: the database went away (a
 * restart, a failover, a network cut) or the session was ended by the idle timeout while this relay
 * was frozen. Either way the relay stops streaming and goes back to standby, in the same process,
 * and becomes leader again only by taking the lock again. With the lock still held, an engine that
 * stopped by itself is a failure the process cannot explain, and it exits so that it is restarted
 * (or a standby takes over).
 */
public final class LeaderWatch {

  /** How the engine stands when the leader looks. */
  public enum Engine {
    RUNNING,
    /** Completed normally. */
    STOPPED,
    /** Completed exceptionally, or the start-up checks before it failed. */
    FAILED
  }

  /** What the leader does next. */
  public enum Next {
    /** Keep watching: the engine streams, or a requested stop is under way. */
    KEEP_WATCHING,
    /** Exit 0: the engine stopped on request. */
    EXIT_STOPPED,
    /** Exit 1: the engine stopped or failed although this relay still leads. */
    EXIT_ENGINE_FAILED,
    /** Stop the engine, release the lock, stand by and contend for the lock again. */
    BACK_TO_STANDBY
  }

  private LeaderWatch() {}

  /**
   * @param stopRequested the process was asked to stop (SIGTERM)
   * @param lockHeld the lock session is alive; not read once a stop was requested (the stop then
   *     ends the engine either way), so callers need not check the lock then
   */
  public static Next next(Engine engine, boolean stopRequested, boolean lockHeld) {
    if (stopRequested) {
      return switch (engine) {
        case RUNNING -> Next.KEEP_WATCHING;
        case STOPPED -> Next.EXIT_STOPPED;
        case FAILED -> Next.EXIT_ENGINE_FAILED;
      };
    }
    if (!lockHeld) {
      return Next.BACK_TO_STANDBY;
    }
    return engine == Engine.RUNNING ? Next.KEEP_WATCHING : Next.EXIT_ENGINE_FAILED;
  }
}
