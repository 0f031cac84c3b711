package dev.distlock.contract.timing;

/** A child JVM that runs its stall probe, reporting to the file its parent named, until it is killed. */
public final class ProbedChild {

    private ProbedChild() {}

    public static void main(String[] args) throws InterruptedException {
        StallProbe.shared();
        System.out.println("probing");
        System.out.flush();
        Thread.sleep(60_000);
    }
}
