package dev.distlock.contract.timing;

/** A child JVM's main class that knows nothing of the probe: it says it runs, then waits to be killed. */
final class ProbedChild {

    private ProbedChild() {}

    static void main(String[] args) throws InterruptedException {
        System.out.println("running " + String.join(" ", args));
        System.out.flush();
        Thread.sleep(60_000);
    }
}
