package dev.distlock.fencingharness;

import dev.distlock.core.LockRegistry;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One run: three workers append to one ledger under one lock key while the harness strikes each at
 * one operation, right after its read: worker 0 is paused past its lease, worker 1 is force-released
 * (then resumed), worker 2 is killed (kill -9; with the memory backend's threads, paused instead).
 * A paused or evicted worker is resumed only once another worker had a write accepted, so its own
 * write always comes after a newer holder's. Then the ledger is compared with the accepted writes.
 */
final class LedgerRun {

    static final String[] FAULTS = {"pause", "force-release", "kill"};
    /** The lines that end an op's write. */
    private static final Set<String> OUTCOMES = Set.of("ACCEPTED", "STALE", "ERROR");

    private static final Duration RUN_LIMIT = Duration.ofMinutes(3);
    private static final Duration TAKEOVER_LIMIT = Duration.ofSeconds(20);
    // In the SQL transaction form the paused holder keeps the fence row locked, so no one else can
    // write until it resumes: waiting for a takeover would only wait out the limit.
    private static final Duration BLOCKED_TAKEOVER_LIMIT = Duration.ofSeconds(4);

    /** The figures of one run. */
    record Figures(
            String backend,
            String store,
            boolean fenced,
            int workers,
            int attempted,
            int accepted,
            int stale,
            int killedInFlight,
            int takeovers,
            int resumedRefused,
            int resumedAccepted,
            int resumedFailed,
            int wroteBeforeTakeover,
            int lost,
            int duplicated,
            int unaccounted,
            List<String> errorLines,
            List<String> faults,
            Duration took,
            List<String> eventLog) {

        /** Operations that ended in an error. */
        int errors() {
            return errorLines.size();
        }
    }

    private record Event(int worker, String line) {}

    private interface Worker {
        /** Stops a worker that said PAUSED (a child JVM: SIGSTOP, once it is stopped); a thread is held already. */
        void pause() throws Exception;

        void resume() throws Exception;

        void kill() throws Exception;

        /** Writes the worker's thread stacks to this JVM's standard error (a child's, through its own). */
        void dumpThreads() throws Exception;

        void close() throws Exception;
    }

    private LedgerRun() {}

    /**
     * @param parent a registry of the backend in this JVM, for force-release (for memory: the workers' own)
     */
    static Figures run(
            String backend,
            String backendAddress,
            String store,
            String storeAddress,
            boolean fenced,
            int ops,
            LockRegistry parent,
            Ledger ledger,
            String name)
            throws Exception {
        long started = System.nanoTime();
        String lockKey = "lock-" + name;
        BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        List<Worker> workers = new ArrayList<>();
        boolean threads = backend.equals("memory");
        try {
            for (int w = 0; w < FAULTS.length; w++) {
                int faultAt = w + 1;
                workers.add(
                        threads
                                ? thread(
                                        w,
                                        parent,
                                        ledger,
                                        new LedgerWorker.Plan(lockKey, "w" + w, ops, faultAt, fenced, Backends.LEASE),
                                        events)
                                : child(
                                        w,
                                        backend,
                                        backendAddress,
                                        store,
                                        storeAddress,
                                        name,
                                        lockKey,
                                        ops,
                                        faultAt,
                                        fenced,
                                        events));
            }
            if (!threads) {
                awaitReady(events, workers.size());
                for (Worker worker : workers) {
                    ((Child) worker).go();
                }
            }
            Duration takeover = store.equals("sql-tx") && fenced ? BLOCKED_TAKEOVER_LIMIT : TAKEOVER_LIMIT;
            return watch(backend, store, fenced, threads, parent, ledger, lockKey, workers, events, started, takeover);
        } finally {
            for (Worker worker : workers) {
                worker.close();
            }
        }
    }

    private static Figures watch(
            String backend,
            String store,
            boolean fenced,
            boolean threads,
            LockRegistry parent,
            Ledger ledger,
            String lockKey,
            List<Worker> workers,
            BlockingQueue<Event> events,
            long started,
            Duration takeoverLimit)
            throws Exception {
        Set<String> accepted = new HashSet<>();
        int attempted = 0;
        int stale = 0;
        int killed = 0;
        List<String> errorLines = new ArrayList<>();
        int takeovers = 0;
        List<String> faults = new ArrayList<>();
        Set<Integer> finished = new HashSet<>();
        Map<Integer, Long> awaitingTakeover = new HashMap<>(); // worker -> since (nanos)
        // Each op's token, from its ACQUIRED line. Lines of different workers reach this queue through
        // different pipes (or threads), so another worker's ACCEPTED can arrive after a PAUSED although
        // its write came first: only a write under a newer token than the paused one's is a takeover.
        Map<String, Long> tokens = new HashMap<>();
        Map<Integer, String> pausedOps = new HashMap<>(); // worker -> the op it paused in
        // The ops of holders resumed after a newer holder's write, and how each ended: STALE, ACCEPTED or ERROR.
        Set<String> resumedOps = new HashSet<>();
        Map<String, String> resumedOutcomes = new HashMap<>(); // op -> STALE, ACCEPTED or ERROR
        Map<String, String> takenOverBy = new HashMap<>(); // resumed op -> the newer op whose write resumed it
        // How each op ended, as far as the lines have said: a paused op whose end was already seen when a newer
        // write arrived had written before it (its worker was not stopped at that point) and is no takeover.
        Set<String> ended = new HashSet<>();
        int wroteBeforeTakeover = 0;
        List<String> eventLog = new ArrayList<>();
        long deadline = started + RUN_LIMIT.toNanos();
        while (finished.size() < workers.size()) {
            if (System.nanoTime() > deadline) {
                for (int w = 0; w < workers.size(); w++) {
                    if (!finished.contains(w)) {
                        workers.get(w).dumpThreads();
                    }
                }
                throw new IllegalStateException(backend + "/" + store + ": the run did not end within " + RUN_LIMIT
                        + "; finished workers " + finished + "; paused ops " + pausedOps + "; the run's last lines:\n"
                        + String.join("\n", eventLog.subList(Math.max(0, eventLog.size() - 40), eventLog.size())));
            }
            Event event = events.poll(200, TimeUnit.MILLISECONDS);
            if (event != null) {
                eventLog.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms, worker "
                        + event.worker() + ": " + event.line());
                String[] parts = event.line().split(" ", 3);
                if (parts.length > 1 && OUTCOMES.contains(parts[0])) {
                    ended.add(parts[1].trim());
                }
                if (parts.length > 1 && resumedOps.contains(parts[1].trim())) {
                    // After its PAUSED, the only line about a resumed holder's op is how its write ended.
                    resumedOutcomes.put(parts[1].trim(), parts[0]);
                }
                switch (parts[0]) {
                    case "ACQUIRED" -> {
                        attempted++;
                        tokens.put(parts[1], Long.parseLong(parts[2].trim()));
                    }
                    case "ACCEPTED" -> {
                        accepted.add(parts[1]);
                        long token = tokens.getOrDefault(parts[1], Long.MIN_VALUE);
                        for (Integer paused : List.copyOf(awaitingTakeover.keySet())) {
                            if (paused != event.worker()
                                    && token > tokens.getOrDefault(pausedOps.get(paused), Long.MAX_VALUE)) {
                                awaitingTakeover.remove(paused);
                                if (ended.contains(pausedOps.get(paused))) {
                                    wroteBeforeTakeover++;
                                    System.err.println(backend + "/" + store + ": worker " + paused + " ended "
                                            + pausedOps.get(paused) + " before a newer write was seen; lines so far: "
                                            + eventLog);
                                    workers.get(paused).resume();
                                    continue;
                                }
                                takeovers++;
                                resumedOps.add(pausedOps.get(paused));
                                takenOverBy.put(pausedOps.get(paused), parts[1]);
                                workers.get(paused).resume();
                            }
                        }
                    }
                    case "STALE" -> stale++;
                    case "ERROR" -> {
                        errorLines.add("worker " + event.worker() + ": " + event.line());
                        System.err.println(backend + "/" + store + " worker " + event.worker() + ": " + event.line());
                    }
                    case "DONE", "EXIT" -> finished.add(event.worker());
                    case "PAUSED" -> {
                        pausedOps.put(event.worker(), parts[1].trim());
                        String fault = threads && event.worker() == 2 ? "pause" : FAULTS[event.worker()];
                        faults.add(fault);
                        switch (fault) {
                            case "kill" -> {
                                workers.get(event.worker()).kill();
                                killed++;
                                finished.add(event.worker());
                            }
                            case "force-release" -> {
                                workers.get(event.worker()).pause();
                                parent.forceRelease(lockKey);
                                awaitingTakeover.put(event.worker(), System.nanoTime());
                            }
                            default -> {
                                workers.get(event.worker()).pause();
                                awaitingTakeover.put(event.worker(), System.nanoTime());
                            }
                        }
                    }
                    default -> {}
                }
            }
            // No other worker can take over (all done) or none did in time: resume anyway; the figures show it.
            for (Map.Entry<Integer, Long> paused : List.copyOf(awaitingTakeover.entrySet())) {
                boolean othersDone = finished.size() >= workers.size() - 1;
                if (othersDone || System.nanoTime() - paused.getValue() > takeoverLimit.toNanos()) {
                    awaitingTakeover.remove(paused.getKey());
                    workers.get(paused.getKey()).resume();
                }
            }
        }
        List<String> entries = ledger.entries();
        // The ledger keeps writes in their order. A resumed op whose write was accepted but stands before the newer
        // write that was to resume it wrote first: its worker did not stay stopped until the harness resumed it (its
        // lines reach the harness through another pipe than the newer worker's). That is no takeover; a resumed write
        // accepted after the newer one is (and fails a fenced run).
        for (Map.Entry<String, String> resumed : List.copyOf(takenOverBy.entrySet())) {
            int at = entries.indexOf(resumed.getKey());
            int newer = entries.indexOf(resumed.getValue());
            if ("ACCEPTED".equals(resumedOutcomes.get(resumed.getKey())) && at >= 0 && newer >= 0 && at < newer) {
                takeovers--;
                wroteBeforeTakeover++;
                resumedOutcomes.remove(resumed.getKey());
                System.err.println(backend + "/" + store + ": " + resumed.getKey() + " was written before "
                        + resumed.getValue() + " (ledger order), although its worker was to be stopped; lines: "
                        + eventLog);
            }
        }
        Map<String, Long> outcomeCounts = new HashMap<>();
        resumedOutcomes.values().forEach(outcome -> outcomeCounts.merge(outcome, 1L, Long::sum));
        Map<String, Integer> counts = new HashMap<>();
        entries.forEach(entry -> counts.merge(entry, 1, Integer::sum));
        int lost = (int) accepted.stream().filter(op -> !counts.containsKey(op)).count();
        int duplicated = counts.values().stream().mapToInt(count -> count - 1).sum();
        int unaccounted = (int)
                counts.keySet().stream().filter(op -> !accepted.contains(op)).count();
        return new Figures(
                backend,
                threads ? store + " (threads)" : store,
                fenced,
                workers.size(),
                attempted,
                accepted.size(),
                stale,
                killed,
                takeovers,
                outcomeCounts.getOrDefault("STALE", 0L).intValue(),
                outcomeCounts.getOrDefault("ACCEPTED", 0L).intValue(),
                outcomeCounts.getOrDefault("ERROR", 0L).intValue(),
                wroteBeforeTakeover,
                lost,
                duplicated,
                unaccounted,
                errorLines,
                faults,
                Duration.ofNanos(System.nanoTime() - started),
                eventLog);
    }

    private static void awaitReady(BlockingQueue<Event> events, int workers) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        int ready = 0;
        while (ready < workers) {
            Event event = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (event == null) {
                throw new IllegalStateException(
                        "Only " + ready + " of " + workers + " worker JVMs started within 90 s");
            }
            if (event.line().equals("READY")) {
                ready++;
            } else if (event.line().startsWith("EXIT")) {
                throw new IllegalStateException(
                        "Worker " + event.worker() + " ended before it was ready: " + event.line());
            }
        }
    }

    private static Worker thread(
            int index, LockRegistry registry, Ledger ledger, LedgerWorker.Plan plan, BlockingQueue<Event> events) {
        Semaphore resumed = new Semaphore(0);
        Thread thread = new Thread(
                () -> LedgerWorker.run(registry, ledger, plan, line -> events.add(new Event(index, line)), () -> {
                    try {
                        if (!resumed.tryAcquire(120, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("not resumed within 120 s");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }),
                "ledger-worker-" + index);
        thread.setDaemon(true);
        thread.start();
        return new Worker() {
            @Override
            public void pause() {
                // The thread waits for resume() already.
            }

            @Override
            public void resume() {
                resumed.release();
            }

            @Override
            public void kill() {
                throw new UnsupportedOperationException("threads cannot be killed");
            }

            @Override
            public void dumpThreads() {
                StringBuilder stack = new StringBuilder("ledger-worker-" + index + " " + thread.getState() + "\n");
                for (StackTraceElement frame : thread.getStackTrace()) {
                    stack.append("\tat ").append(frame).append('\n');
                }
                System.err.print(stack);
            }

            @Override
            public void close() throws InterruptedException {
                resumed.release(10);
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        };
    }

    private static Child child(
            int index,
            String backend,
            String backendAddress,
            String store,
            String storeAddress,
            String ledger,
            String lockKey,
            int ops,
            int faultAt,
            boolean fenced,
            BlockingQueue<Event> events)
            throws Exception {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx192m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                LedgerWorker.class.getName(),
                "backend=" + backend,
                "backendAddress=" + backendAddress,
                "store=" + store,
                "storeAddress=" + storeAddress,
                "ledger=" + ledger,
                "lockKey=" + lockKey,
                "worker=w" + index,
                "ops=" + ops,
                "faultAt=" + faultAt,
                "fenced=" + fenced);
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = out.readLine()) != null) {
                            events.add(new Event(index, line));
                        }
                    } catch (Exception e) {
                        // the process was killed
                    }
                    events.add(new Event(index, "EXIT"));
                },
                "ledger-worker-reader-" + index);
        reader.setDaemon(true);
        reader.start();
        return new Child(process);
    }

    private static final class Child implements Worker {

        private final Process process;

        Child(Process process) {
            this.process = process;
        }

        void go() throws Exception {
            OutputStream in = process.getOutputStream();
            in.write("GO\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
        }

        /** The child waits for a line after it said PAUSED; this stops it, and returns once it is stopped. */
        @Override
        public void pause() throws Exception {
            signal("STOP");
            Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (process.isAlive() && System.nanoTime() < deadline && !stopped(stat)) {
                Thread.sleep(5);
            }
        }

        /** The line the child waits for, then CONT: it reads the line once it runs again. */
        @Override
        public void resume() throws Exception {
            if (process.isAlive()) {
                OutputStream in = process.getOutputStream();
                in.write("RESUME\n".getBytes(StandardCharsets.US_ASCII));
                in.flush();
            }
            signal("CONT");
        }

        private static boolean stopped(Path stat) {
            try {
                String text = java.nio.file.Files.readString(stat);
                // state is the field after the command name in parentheses
                return text.substring(text.lastIndexOf(')') + 2).startsWith("T");
            } catch (java.io.IOException e) {
                return false;
            }
        }

        @Override
        public void kill() throws Exception {
            signal("KILL");
            process.waitFor(30, TimeUnit.SECONDS);
        }

        /** SIGQUIT: the child's JVM prints every thread's stack to its standard error, which is this JVM's. */
        @Override
        public void dumpThreads() throws Exception {
            signal("CONT");
            signal("QUIT");
            Thread.sleep(1000);
        }

        @Override
        public void close() throws Exception {
            if (process.isAlive()) {
                signal("CONT");
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }

        private void signal(String signal) throws Exception {
            if (process.isAlive()) {
                new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                        .redirectError(new File("/dev/null"))
                        .start()
                        .waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
