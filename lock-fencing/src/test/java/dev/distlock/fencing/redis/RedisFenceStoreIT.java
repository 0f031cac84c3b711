package dev.distlock.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceMismatchException;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import dev.distlock.redis.RedisServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The Redis fence store and fenced values against a real redis-server. */
class RedisFenceStoreIT {

    private static RedisServers servers;
    private static LettuceConnectionFactory factory;
    private static RedisFenceStore store;
    private static StringRedisTemplate redis;

    @BeforeAll
    static void startServer() {
        servers = new RedisServers();
        factory = servers.factory(servers.start());
        store = RedisFenceStore.builder(factory).build();
        redis = new StringRedisTemplate(factory);
    }

    @AfterAll
    static void stopServer() {
        if (servers != null) {
            servers.close();
        }
    }

    private static FencingClaim claim(String lock, long token) {
        return new FencingClaim("redis", lock, FencingToken.of(token));
    }

    @Test
    void staleWriterIsRefusedAndItsValueIsNotStored() {
        store.set("stock:1", claim("stock:1", 1_790_000_000_000_200L), "95");

        assertThatThrownBy(() -> store.set("stock:1", claim("stock:1", 1_790_000_000_000_100L), "97"))
                .isInstanceOf(StaleTokenException.class)
                .hasMessageContaining("stock:1")
                .hasMessageContaining("1790000000000100")
                .hasMessageContaining("1790000000000200");
        assertThat(redis.opsForValue().get("stock:1")).isEqualTo("95");
    }

    @Test
    void theSameHoldWritesAgainAndANewerOneRaisesTheFence() {
        store.set("stock:2", claim("stock:2", 500), "1");
        store.set("stock:2", claim("stock:2", 500), "2");
        Fence fence = store.set("stock:2", claim("stock:2", 501), "3");

        assertThat(fence.highest()).isEqualTo(FencingToken.of(501));
        assertThat(redis.opsForValue().get("stock:2")).isEqualTo("3");
        assertThat(store.fenceOf("stock:2")).contains(new Fence("stock:2", "redis", "stock:2", FencingToken.of(501)));
    }

    @Test
    void readForWriteShutsOutTheEarlierHolderBeforeItWrites() {
        store.set("stock:3", claim("stock:3", 10), "100");
        // The old holder read (token 10), then paused; the new holder (11) reads before writing.
        assertThat(store.getForWrite("stock:3", claim("stock:3", 11))).contains("100");

        assertThatThrownBy(() -> store.set("stock:3", claim("stock:3", 10), "98"))
                .isInstanceOf(StaleTokenException.class);
        store.set("stock:3", claim("stock:3", 11), "97");
        assertThat(redis.opsForValue().get("stock:3")).isEqualTo("97");
    }

    @Test
    void readForWriteOfAMissingValueIsEmptyAndStillRaisesTheFence() {
        assertThat(store.getForWrite("stock:4", claim("stock:4", 7))).isEmpty();
        assertThat(store.fenceOf("stock:4")).map(Fence::highest).contains(FencingToken.of(7));
    }

    @Test
    void tokensAboveTwoToThe53AreComparedExactly() {
        // 2^53 and 2^53 + 1 are the same double: a Lua number comparison would call them equal.
        long high = (1L << 53) + 1;
        store.set("big", claim("big", high), "new");

        assertThatThrownBy(() -> store.set("big", claim("big", high - 1), "old"))
                .isInstanceOf(StaleTokenException.class);
        assertThat(store.fenceOf("big")).map(Fence::highest).contains(FencingToken.of(high));

        store.set("big", claim("big", Long.MAX_VALUE), "max");
        assertThat(store.fenceOf("big")).map(Fence::highest).contains(FencingToken.of(Long.MAX_VALUE));
        assertThatThrownBy(() -> store.admitWrite("big", claim("big", Long.MAX_VALUE - 1)))
                .isInstanceOf(StaleTokenException.class);
    }

    @Test
    void aShorterTokenIsBelowALongerOne() {
        store.admitWrite("lengths", claim("lengths", 1000));
        assertThatThrownBy(() -> store.admitWrite("lengths", claim("lengths", 999)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(store.admitWrite("lengths", claim("lengths", 10000)).highest())
                .isEqualTo(FencingToken.of(10000));
    }

    @Test
    void aReadIsCheckedWithoutRaisingTheFence() {
        store.admitWrite("doc", claim("doc", 20));
        store.admitRead("doc", claim("doc", 25));
        assertThat(store.fenceOf("doc")).map(Fence::highest).contains(FencingToken.of(20));
        assertThatThrownBy(() -> store.admitRead("doc", claim("doc", 19))).isInstanceOf(StaleTokenException.class);
        store.admitRead("never-written", claim("never-written", 1));
        assertThat(store.fenceOf("never-written")).isEmpty();
    }

    @Test
    void aTokenOfAnotherLockKeyOrBackendIsRefusedUntilTheResourceIsRebound() {
        store.set("ledger", claim("ledger-lock", 1_800_000_000_000_000L), "1");

        assertThatThrownBy(
                        () -> store.set("ledger", new FencingClaim("etcd", "ledger-lock", FencingToken.of(406)), "2"))
                .isInstanceOf(FenceMismatchException.class)
                .hasMessageContaining("'ledger'")
                .hasMessageContaining("etcd")
                .hasMessageContaining("rebind");
        assertThatThrownBy(() -> store.admitWrite("ledger", claim("other-lock", Long.MAX_VALUE)))
                .isInstanceOf(FenceMismatchException.class);
        assertThat(redis.opsForValue().get("ledger")).isEqualTo("1");

        store.rebind("ledger", new FencingClaim("etcd", "ledger-lock", FencingToken.of(406)));
        store.set("ledger", new FencingClaim("etcd", "ledger-lock", FencingToken.of(407)), "2");
        assertThat(redis.opsForValue().get("ledger")).isEqualTo("2");
    }

    @Test
    void blankOrOverlongResourceNamesAreRefusedBeforeRedisIsAsked() {
        assertThatThrownBy(() -> store.admitWrite(" ", claim("k", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("non-blank");
        assertThatThrownBy(() -> store.set("x".repeat(201), claim("k", 1), "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("201 characters");
    }

    @Test
    void fenceKeySharesTheHashSlotOfTheValueKey() {
        assertThat(store.fenceKey("stock:42")).isEqualTo("distlock:fence:{stock:42}");
        assertThat(store.fenceKey("user:{7}:cart")).isEqualTo("distlock:fence:user:{7}:cart");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aStoppedServerFailsTheCallWithinTheClientsCommandTimeout() {
        try (RedisServers own = new RedisServers()) {
            ManagedProcess server = own.start();
            LettuceConnectionFactory ownFactory = own.factory(server);
            RedisFenceStore ownStore = RedisFenceStore.builder(ownFactory).build();
            ownStore.set("down", claim("down", 1), "before");
            server.stop();

            assertThatThrownBy(() -> ownStore.set("down", claim("down", 2), "after"))
                    .isInstanceOf(DataAccessException.class);
        }
    }

    @Test
    void concurrentWritersLeaveTheHighestTokenAndItsValue() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int i = 1; i <= 200; i++) {
                long token = 1_790_000_000_000_000L + (i * 7919L) % 200; // every value once, shuffled
                writes.add(pool.submit(() -> {
                    try {
                        store.set("race", claim("race", token), Long.toString(token));
                    } catch (StaleTokenException refused) {
                        // expected for most: a higher token got there first
                    }
                }));
            }
            for (Future<?> write : writes) {
                write.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long highest = 1_790_000_000_000_199L;
        assertThat(store.fenceOf("race")).map(Fence::highest).contains(FencingToken.of(highest));
        assertThat(redis.opsForValue().get("race")).isEqualTo(Long.toString(highest));
    }
}
