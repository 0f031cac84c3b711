package dev.distlock.fencingharness;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FencingClaim;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One worker: {@code ops} times, takes the lock, appends an operation id to the ledger, releases.
 * At operation {@code faultAt} it stops right after its read, before its write: a child JVM waits
 * for the harness's next line on its standard input while the harness stops it (SIGSTOP) and later
 * resumes or kills it; a thread waits for the harness. It reports
 * each step as a line: {@code ACQUIRED op token}, {@code PAUSED op}, {@code ACCEPTED op}, {@code
 * STALE op}, {@code NOLOCK op}, {@code ERROR op message}, {@code DONE}.
 */
final class LedgerWorker {

    /** What one worker does. */
    record Plan(String lockKey, String worker, int ops, int faultAt, boolean fenced, Duration fixedLease) {}

    private LedgerWorker() {}

    static void run(LockRegistry registry, Ledger ledger, Plan plan, Consumer<String> events, Runnable pause) {
        for (int i = 0; i < plan.ops(); i++) {
            String op = plan.worker() + "-" + i;
            int index = i;
            Optional<LockHandle> acquired;
            try {
                acquired = plan.fixedLease() == null
                        ? registry.obtain(plan.lockKey()).tryAcquire(Duration.ofSeconds(60))
                        : registry.obtain(plan.lockKey()).tryAcquire(Duration.ofSeconds(60), plan.fixedLease());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                events.accept("ERROR " + op + " " + oneLine(e));
                continue;
            }
            if (acquired.isEmpty()) {
                events.accept("NOLOCK " + op);
                continue;
            }
            LockHandle handle = acquired.get();
            events.accept("ACQUIRED " + op + " " + handle.token());
            try {
                FencingClaim claim = plan.fenced() ? FencingClaim.of(registry, handle) : null;
                boolean accepted = ledger.append(claim, op, () -> {
                    if (index == plan.faultAt()) {
                        events.accept("PAUSED " + op);
                        pause.run();
                    }
                });
                events.accept((accepted ? "ACCEPTED " : "STALE ") + op);
            } catch (Exception e) {
                events.accept("ERROR " + op + " " + oneLine(e));
            } finally {
                try {
                    handle.close();
                } catch (RuntimeException lost) {
                    // The hold was lost while paused: nothing to release.
                }
            }
        }
        events.accept("DONE");
    }

    private static String oneLine(Exception e) {
        return (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' ');
    }

    /** A child JVM: {@code key=value} arguments (backend, backendAddress, store, storeAddress, ledger, plan). */
    public static void main(String[] args) throws Exception {
        Map<String, String> arguments = new HashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            arguments.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        Plan plan = new Plan(
                arguments.get("lockKey"),
                arguments.get("worker"),
                Integer.parseInt(arguments.get("ops")),
                Integer.parseInt(arguments.get("faultAt")),
                Boolean.parseBoolean(arguments.get("fenced")),
                null);
        Consumer<String> out = line -> {
            synchronized (System.out) {
                System.out.println(line);
                System.out.flush();
            }
        };
        try (Backends backend = new Backends(arguments.get("backend"), arguments.get("backendAddress"));
                Ledger ledger =
                        Ledger.open(arguments.get("store"), arguments.get("storeAddress"), arguments.get("ledger"))) {
            out.accept("READY");
            // Every worker starts at once, when the harness says so.
            java.io.BufferedReader harness = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
            harness.readLine();
            // At its fault, the worker waits for the harness's next line. Meanwhile the harness stops this JVM
            // (SIGSTOP, so that nothing in it runs, the watchdog neither) or kills it; to resume it, it sends the
            // line, then SIGCONT. The line makes the order certain: a stop that lands late cannot let the write run
            // before the harness resumes the worker.
            run(backend.registry(), ledger, plan, out, () -> awaitResume(harness));
        }
        System.exit(0);
    }

    private static void awaitResume(java.io.BufferedReader harness) {
        try {
            if (harness.readLine() == null) {
                throw new IllegalStateException("the harness went away before resuming this worker");
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("could not read the harness's resume", e);
        }
    }
}
