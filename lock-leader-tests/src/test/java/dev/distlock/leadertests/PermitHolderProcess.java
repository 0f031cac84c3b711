package dev.distlock.leadertests;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.core.semaphore.Permit;
import dev.distlock.core.semaphore.Permits;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A holder of one semaphore permit in a JVM of its own, for tests that kill or stop it. Arguments: the semaphore's
 * name, its permits, the registry's lease in ms, the permit's lease ({@value #WATCHDOG} for the registry's renewed
 * lease, or a fixed lease in ms), then the backend words of {@link BackendClients}.
 *
 * <p>It prints {@code GRANTED <slot> <token>} (or {@code REFUSED}, or {@code FAILED <message>} for a backend error
 * before it asks again), then {@code VALID <token>} every few ms while
 * {@link Permits#isValid()} answers true, {@code LOST} when {@link Permits#onLost} runs, and, the first time its clock
 * jumps by more than a second (it was stopped and continued), {@code RESUMED <isValid()>}. A stop that lands between
 * asking and printing makes the printed {@code VALID} an answer from before the stop: it is followed by {@value
 * ChildJvm#STOPPED_WHILE_ASKING}, then {@code RESUMED} with a fresh answer, with no other line in between. It exits
 * when its standard input ends, so it does not outlive the test's JVM.
 */
public final class PermitHolderProcess {

    /** The permit-lease argument for a lease renewed by the registry's watchdog. */
    static final String WATCHDOG = "watchdog";

    private static final long JUMP_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private PermitHolderProcess() {}

    public static void main(String[] args) throws Exception {
        try {
            hold(args);
        } catch (Throwable e) {
            e.printStackTrace();
            say("FAILED " + e);
            Runtime.getRuntime().halt(1); // client threads would keep a JVM alive that holds nothing
        }
    }

    private static void hold(String[] args) throws Exception {
        String name = args[0];
        int count = Integer.parseInt(args[1]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        String permitLease = args[3];
        List<String> spec = Arrays.asList(args).subList(4, args.length);
        exitWhenStandardInputEnds();
        BackendClients clients = new BackendClients(spec, lease);
        LeasedSemaphore semaphore = LeasedSemaphore.of(clients.newRegistry(), name, count);
        Optional<Permits> acquired = acquire(semaphore, permitLease);
        if (acquired.isEmpty()) {
            say("REFUSED");
            Runtime.getRuntime().halt(1);
        }
        Permits held = acquired.get();
        Permit permit = held.list().get(0);
        held.onLost(() -> say("LOST"));
        say("GRANTED " + permit.slot() + " " + permit.token());
        long last = System.nanoTime();
        boolean resumed = false;
        while (true) {
            long asked = System.nanoTime();
            if (!resumed && asked - last > JUMP_NANOS) {
                resumed = true;
                say("RESUMED " + held.isValid());
            }
            boolean valid = held.isValid();
            long said;
            // One block, so that LOST, printed by a registry thread, never lands between an answer and its mark.
            synchronized (PermitHolderProcess.class) {
                if (valid) {
                    say("VALID " + permit.token());
                }
                said = System.nanoTime();
                if (!resumed && said - asked > JUMP_NANOS) {
                    resumed = true;
                    if (valid) {
                        say(ChildJvm.STOPPED_WHILE_ASKING);
                    }
                    say("RESUMED " + held.isValid());
                }
            }
            last = said;
            Thread.sleep(5);
        }
    }

    /**
     * One permit, asked again after a backend error within the wait: the first call of a new JVM may be slow enough
     * that a zero-wait step of the acquisition fails (reported as {@code FAILED <message>}).
     */
    private static Optional<Permits> acquire(LeasedSemaphore semaphore, String permitLease)
            throws InterruptedException {
        long until = System.nanoTime() + WAIT.toNanos();
        while (true) {
            Duration wait = Duration.ofNanos(Math.max(0, until - System.nanoTime()));
            try {
                return permitLease.equals(WATCHDOG)
                        ? semaphore.tryAcquire(1, wait)
                        : semaphore.tryAcquire(1, wait, Duration.ofMillis(Long.parseLong(permitLease)));
            } catch (LockBackendException e) {
                say("FAILED " + e.getMessage());
                if (wait.isZero()) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private static void exitWhenStandardInputEnds() {
        Thread watcher = new Thread(
                () -> {
                    try {
                        while (System.in.read() >= 0) {
                            // The test writes nothing; only the end matters.
                        }
                    } catch (IOException e) {
                        // Ended as well.
                    }
                    Runtime.getRuntime().halt(0);
                },
                "stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
