package dev.distlock.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.timing.CpuHog;
import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Instances starting at the same moment on a loaded machine, each creating the fence table and writing a resource's
 * first fence: the table and the row are created once, every write is either admitted or refused as stale, and the
 * highest token wins. None may fail on its way. On H2 a store that found the table while another was still creating
 * it (H2 shows a table before its primary key exists) could write its row in that window; the creator's key then
 * failed on a duplicate and H2 closed the in-memory database.
 */
class ConcurrentFirstWritesIT {

    private static final int INSTANCES = 6;
    private static final int ROUNDS = 300;
    private static final Duration STORE_TIMEOUT = Duration.ofSeconds(3);

    private final List<String> tables = new ArrayList<>();
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final ExecutorService writers = Executors.newFixedThreadPool(INSTANCES);

    @AfterEach
    void close() {
        writers.shutdownNow();
        if (!pools.isEmpty()) {
            FenceDatabase.dropTables(pools.get(0), tables.toArray(String[]::new));
        }
        pools.forEach(HikariDataSource::close);
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void firstWritesOfOneResourceAtOnceAreEachAdmittedOrRefusedAsStale(FenceDatabase database) throws Exception {
        database.require();
        for (int i = 0; i < INSTANCES; i++) {
            pools.add(database.pool("fence-first-" + i, 1));
        }
        List<String> failures = new ArrayList<>();
        try (CpuHog load = CpuHog.onEveryCore(4, Duration.ofMinutes(2))) {
            for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
                String table = FenceDatabase.uniqueTableName("first");
                tables.add(table);
                List<JdbcFenceStore> stores = new ArrayList<>();
                for (HikariDataSource pool : pools) {
                    stores.add(JdbcFenceStore.builder(pool)
                            .tableName(table)
                            .initializeSchema(true)
                            .timeout(STORE_TIMEOUT)
                            .build());
                }
                String resource = "stock:SKU-1";
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Fence>> writes = new ArrayList<>();
                for (int i = 0; i < INSTANCES; i++) {
                    JdbcFenceStore store = stores.get(i);
                    FencingClaim claim = new FencingClaim("redis", resource, FencingToken.of(100 + i));
                    writes.add(writers.submit(() -> {
                        start.await();
                        return store.admitWrite(resource, claim);
                    }));
                }
                start.countDown();
                for (Future<Fence> write : writes) {
                    try {
                        write.get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof StaleTokenException)) {
                            failures.add("round " + round + ": " + FenceTable.causes(e.getCause()));
                        }
                    }
                }
                if (failures.isEmpty()) {
                    assertThat(stores.get(0).fenceOf(resource).map(Fence::highest))
                            .as("the fence after round %d", round)
                            .contains(FencingToken.of(100 + INSTANCES - 1));
                }
                FenceDatabase.dropTables(pools.get(0), table);
                tables.remove(table);
            }
        }
        assertThat(failures).as("first writes that failed on %s", database).isEmpty();
    }
}
