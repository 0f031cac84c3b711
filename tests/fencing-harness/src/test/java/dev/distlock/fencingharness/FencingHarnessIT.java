package dev.distlock.fencingharness;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.EtcdProcess;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RequiredServer;
import dev.distlock.redis.RedisServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The proof that fencing reaches the data: on every lock backend, three workers (child JVMs; threads
 * for the memory backend) append to a ledger under one lock while one is paused past its lease, one
 * force-released and one killed, right between its read and its write; the writes go through each
 * store. Fenced runs must lose and duplicate nothing; the same runs without fencing must lose
 * updates, which shows the harness sees them. Figures go to a results file. The short run is part
 * of the build; {@code -Dfencing.harness.long=true} runs every backend with every store, with more
 * operations.
 */
class FencingHarnessIT {

    private static final String POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test";

    private static RedisServers redisServers;
    private static String redis;
    private static TestingServer zooKeeper;
    private static ManagedProcess etcd;
    private static LedgerHttpServer http;
    private static HikariDataSource postgres;

    @BeforeAll
    static void startServers() throws Exception {
        redisServers = new RedisServers();
        redis = "127.0.0.1:" + redisServers.start().port();
        // A short tick, so that sessions as short as the harness's lease are allowed.
        zooKeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 250, -1), true);
        etcd = startEtcd();
        http = new LedgerHttpServer();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(POSTGRES);
        config.setUsername("postgres");
        config.setMaximumPoolSize(2);
        config.setInitializationFailTimeout(-1);
        postgres = new HikariDataSource(config);
        boolean reachable;
        try (Connection connection = postgres.getConnection()) {
            reachable = connection.isValid(5);
        } catch (Exception e) {
            reachable = false;
        }
        RequiredServer.require(reachable, "PostgreSQL", "nothing answers at " + POSTGRES);
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (http != null) {
            http.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
        if (redisServers != null) {
            redisServers.close();
        }
    }

    @Test
    void fencedWritesLoseNothingUnderPauseKillAndForceReleaseWhileUnfencedOnesLoseUpdates() throws Exception {
        boolean longRun = Boolean.getBoolean("fencing.harness.long");
        int ops = longRun ? 12 : 5;
        List<String[]> fenced = new ArrayList<>();
        List<String[]> unfenced = new ArrayList<>();
        String[] backends = {"memory", "redis", "zookeeper", "etcd", "postgresql"};
        String[] stores = {"redis", "http", "sql-tx", "sql-column"};
        if (longRun) {
            for (String backend : backends) {
                for (String store : stores) {
                    fenced.add(new String[] {backend, store});
                    unfenced.add(new String[] {backend, store});
                }
            }
        } else {
            // Every backend and every store at least once, fenced; every store once without fencing, on
            // the memory backend's threads (no JVMs to start), and once with child JVMs.
            fenced.add(new String[] {"memory", "redis"});
            fenced.add(new String[] {"memory", "http"});
            fenced.add(new String[] {"redis", "redis"});
            fenced.add(new String[] {"zookeeper", "http"});
            fenced.add(new String[] {"etcd", "redis"});
            fenced.add(new String[] {"postgresql", "sql-tx"});
            fenced.add(new String[] {"redis", "sql-column"});
            for (String store : stores) {
                unfenced.add(new String[] {"memory", store});
            }
            unfenced.add(new String[] {"redis", "redis"});
        }
        String only = System.getProperty("fencing.harness.runs", "");
        if (!only.isBlank()) {
            // For chasing one run: backend/store pairs, with "/unfenced" after a pair for its control run.
            fenced.clear();
            unfenced.clear();
            for (String pair : only.split(",")) {
                String[] parts = pair.trim().split("/");
                (parts.length > 2 && parts[2].equals("unfenced") ? unfenced : fenced)
                        .add(new String[] {parts[0], parts[1]});
            }
        }
        Instant began = Instant.now();
        List<LedgerRun.Figures> results = new ArrayList<>();
        // Figures are written after every run, so a run that fails leaves those before it on record.
        for (String[] run : fenced) {
            results.add(run(run[0], run[1], true, ops));
            writeResults(results, longRun, ops, began);
        }
        for (String[] run : unfenced) {
            results.add(run(run[0], run[1], false, ops));
            writeResults(results, longRun, ops, began);
        }

        for (LedgerRun.Figures figures : results) {
            String name = figures.backend() + " / " + figures.store() + (figures.fenced() ? " fenced" : " unfenced");
            assertThat(figures.accepted()).as("%s: accepted writes", name).isPositive();
            assertThat(figures.unaccounted())
                    .as("%s: ledger entries of no accepted write", name)
                    .isZero();
            if (figures.fenced()) {
                assertThat(figures.lost()).as("%s: lost updates", name).isZero();
                assertThat(figures.duplicated())
                        .as("%s: duplicated updates", name)
                        .isZero();
                assertThat(figures.resumedAccepted())
                        .as("%s: writes accepted from holders resumed after a newer one wrote; %s", name, figures)
                        .isZero();
                if (!figures.store().startsWith("sql-tx")) {
                    // The run made a stale writer (a paused or evicted holder writing after a newer one
                    // took the key) and the store refused it. (A paused holder resumed by the time limit,
                    // when no other worker wrote meanwhile, counts as no takeover; on a slow machine that
                    // can be all of them, so the takeover count alone is not required to be positive.)
                    assertThat(figures.stale())
                            .as("%s: stale writes refused; %s", name, figures)
                            .isPositive();
                    // Every holder resumed after a newer one wrote was refused, or its write failed without
                    // reaching the store (a connection that did not survive the pause; its error is listed).
                    assertThat(figures.resumedRefused() + figures.resumedFailed())
                            .as(
                                    "%s: holders resumed after a takeover whose write was refused or failed; %s",
                                    name, figures)
                            .isEqualTo(figures.takeovers());
                }
            } else {
                assertThat(figures.lost())
                        .as("%s: lost updates without fencing (the harness must see them)", name)
                        .isPositive();
            }
        }
    }

    private LedgerRun.Figures run(String backend, String store, boolean fenced, int ops) throws Exception {
        String name = backend + "-" + store + "-" + (fenced ? "f" : "u") + "-"
                + UUID.randomUUID().toString().substring(0, 8);
        String backendAddress = switch (backend) {
            case "redis" -> redis;
            case "zookeeper" -> zooKeeper.getConnectString();
            case "etcd" -> etcd.address();
            case "postgresql" -> POSTGRES;
            default -> "";
        };
        String storeAddress = switch (store) {
            case "redis" -> redis;
            case "http" -> http.baseUrl();
            default -> POSTGRES;
        };
        if (store.startsWith("sql")) {
            SqlLedgers.prepare(postgres, name);
        }
        try (Backends parent = new Backends(backend, backendAddress);
                Ledger ledger = Ledger.open(store, storeAddress, name)) {
            // Tables are created on first use; the first use is here, not in three workers at once.
            warmUp(parent);
            if (fenced && ledger instanceof SqlLedgers.Warmable warmable) {
                warmable.warmUp();
            }
            LedgerRun.Figures figures = LedgerRun.run(
                    backend, backendAddress, store, storeAddress, fenced, ops, parent.registry(), ledger, name);
            System.out.println("fencing harness: " + figures);
            return figures;
        }
    }

    // The first lock call of this JVM on a backend loads its client's classes; on a loaded machine it may
    // time out once. That is not what the harness measures, so it is tried again (three times at most).
    private static void warmUp(Backends parent) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                parent.registry()
                        .obtain("warm-up")
                        .tryAcquire(Duration.ofSeconds(30))
                        .orElseThrow()
                        .close();
                return;
            } catch (RuntimeException e) {
                if (attempt == 3) {
                    throw e;
                }
                System.err.println("fencing harness: warm-up attempt " + attempt + " failed: " + e.getMessage());
            }
        }
    }

    private static ManagedProcess startEtcd() throws IOException {
        Path dir = Files.createTempDirectory("fencing-harness-etcd");
        return EtcdProcess.member("harness")
                .flags(
                        "--initial-cluster-state=new",
                        "--heartbeat-interval=50",
                        "--election-timeout=500",
                        "--log-level=error")
                .start(EtcdProcess.requireExecutable(), "etcd", dir)
                .process();
    }

    private static void writeResults(List<LedgerRun.Figures> results, boolean longRun, int ops, Instant began)
            throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Fencing harness results\n\n");
        md.append(longRun ? "Long run" : "Short run")
                .append(", ")
                .append(began.truncatedTo(ChronoUnit.SECONDS))
                .append(" to ")
                .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores. Three workers per run, ")
                .append(ops)
                .append(" ledger appends each (read, then write back with the operation's id), lease ")
                .append(Backends.LEASE.toMillis())
                .append(" ms. In every run worker 0 is paused (SIGSTOP) past its lease, worker 1 is")
                .append(" force-released, worker 2 is killed (kill -9), each right after its read of one")
                .append(" operation; the memory backend's workers are threads, and its worker 2 is paused")
                .append(" instead. A paused or evicted worker resumes once another worker's write was accepted")
                .append(" (in the fenced SQL transaction form, which blocks the next holder until it ends,")
                .append(" after 4 s).\n\n");
        md.append("Resumed after takeover: paused or evicted workers resumed once another worker's write was")
                .append(" accepted (their own write then comes after a newer holder's); of those, how many had that")
                .append(
                        " write refused by the store, and how many had it fail with an error (listed below the table). ");
        md.append("Lost: accepted writes missing from the ledger. Duplicated: entries in it more than once.")
                .append(" Unaccounted: entries of no accepted write.\n\n");
        md.append(
                "| backend | store | fencing | attempted | accepted | refused stale | killed in flight"
                        + " | resumed after takeover | of those refused | of those failed | lost | duplicated | unaccounted | errors | seconds |\n");
        md.append(
                "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (LedgerRun.Figures f : results) {
            md.append("| ")
                    .append(f.backend())
                    .append(" | ")
                    .append(f.store())
                    .append(" | ")
                    .append(f.fenced() ? "fenced" : "none")
                    .append(" | ")
                    .append(f.attempted())
                    .append(" | ")
                    .append(f.accepted())
                    .append(" | ")
                    .append(f.stale())
                    .append(" | ")
                    .append(f.killedInFlight())
                    .append(" | ")
                    .append(f.takeovers())
                    .append(" | ")
                    .append(f.resumedRefused())
                    .append(" | ")
                    .append(f.resumedFailed())
                    .append(" | ")
                    .append(f.lost())
                    .append(" | ")
                    .append(f.duplicated())
                    .append(" | ")
                    .append(f.unaccounted())
                    .append(" | ")
                    .append(f.errors())
                    .append(" | ")
                    .append(String.format("%.1f", f.took().toMillis() / 1000.0))
                    .append(" |\n");
        }
        for (LedgerRun.Figures f : results) {
            for (String error : f.errorLines()) {
                md.append("\n- ")
                        .append(f.backend())
                        .append(" / ")
                        .append(f.store())
                        .append(f.fenced() ? " fenced, " : " unfenced, ")
                        .append(error);
            }
        }
        for (LedgerRun.Figures f : results) {
            if (f.wroteBeforeTakeover() > 0) {
                // A paused holder is stopped until the harness resumes it, so its write should come after the
                // newer write that resumes it; the run's lines show how this one came first.
                md.append("\n- ")
                        .append(f.backend())
                        .append(" / ")
                        .append(f.store())
                        .append(f.fenced() ? " fenced: " : " unfenced: ")
                        .append(f.wroteBeforeTakeover())
                        .append(" paused holder(s) had written before a newer holder's write was seen, so they count")
                        .append(" as no takeover. The run's lines: ")
                        .append(String.join("; ", f.eventLog()));
            }
        }
        Path file = Path.of(System.getProperty(
                "fencing.harness.results", longRun ? "results/fencing.md" : "target/fencing-short.md"));
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, md);
        System.out.println("fencing harness: figures written to " + file.toAbsolutePath());
    }
}
