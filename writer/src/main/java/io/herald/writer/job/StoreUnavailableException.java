package io.herald.writer.job;

/**
 * The database could not be reached or refused work for a reason that goes away by itself
 * (connection refused or lost, pool exhausted, server shutting down or starting). The caller may
 * retry the same request later; if the failure hit the commit, the transaction may or may not have
 * committed, which is harmless because a retry of the same intent is answered from the stored job.
 */
public final class StoreUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
