package io.herald.devstack;

/**
 * The other JVM of {@link FreePortTest}: hands out {@code args[0]} ports, prints them on one line
 * ({@code ports <port> <port> ...}) and holds their claims until it is ended.
 */
public final class FreePortClaimant {

  private FreePortClaimant() {}

  public static void main(String[] args) throws InterruptedException {
    StringBuilder line = new StringBuilder("ports");
    for (int port : FreePort.distinct(Integer.parseInt(args[0]))) {
      line.append(' ').append(port);
    }
    System.out.println(line);
    System.out.flush();
    // Its claims last as long as it runs: it waits to be killed.
    Thread.currentThread().join();
  }
}
