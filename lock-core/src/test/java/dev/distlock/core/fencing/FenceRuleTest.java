package dev.distlock.core.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class FenceRuleTest {

    private static FencingClaim claim(long token) {
        return new FencingClaim("redis", "order:42", FencingToken.of(token));
    }

    @Test
    void firstWriteSetsTheGuardAndTheHighestToken() {
        Fence fence = FenceRule.admitWrite("orders/42", null, claim(7));

        assertThat(fence).isEqualTo(new Fence("orders/42", "redis", "order:42", FencingToken.of(7)));
    }

    @Test
    void sameHoldWritesAgainWithAnEqualToken() {
        Fence fence = FenceRule.admitWrite("orders/42", null, claim(7));

        assertThat(FenceRule.admitWrite("orders/42", fence, claim(7))).isEqualTo(fence);
    }

    @Test
    void newerHolderRaisesTheFence() {
        Fence fence = FenceRule.admitWrite("orders/42", null, claim(7));

        assertThat(FenceRule.admitWrite("orders/42", fence, claim(9)).highest()).isEqualTo(FencingToken.of(9));
    }

    @Test
    void staleWriteIsRefusedNamingResourceKeyAndBothTokens() {
        Fence fence = FenceRule.admitWrite("orders/42", null, claim(9));

        assertThatThrownBy(() -> FenceRule.admitWrite("orders/42", fence, claim(7)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo("orders/42");
                    assertThat(e.lockKey()).isEqualTo("order:42");
                    assertThat(e.refused()).isEqualTo(FencingToken.of(7));
                    assertThat(e.highest()).isEqualTo(FencingToken.of(9));
                })
                .hasMessageContaining("orders/42")
                .hasMessageContaining("order:42")
                .hasMessageContaining("7")
                .hasMessageContaining("9");
    }

    @Test
    void readIsCurrentAtOrAboveTheHighestTokenAndRefusedBelowIt() {
        Fence fence = FenceRule.admitWrite("orders/42", null, claim(9));

        FenceRule.admitRead("orders/42", fence, claim(9));
        FenceRule.admitRead("orders/42", fence, claim(10));
        assertThatThrownBy(() -> FenceRule.admitRead("orders/42", fence, claim(8)))
                .isInstanceOf(StaleTokenException.class);
    }

    @Test
    void tokenOfAnotherKeyIsRefusedWhateverItsValue() {
        Fence fence = FenceRule.admitWrite("orders/42", null, claim(9));
        FencingClaim otherKey = new FencingClaim("redis", "order:43", FencingToken.of(1_000_000));

        assertThatThrownBy(() -> FenceRule.admitWrite("orders/42", fence, otherKey))
                .isInstanceOf(FenceMismatchException.class)
                .hasMessageContaining("order:43")
                .hasMessageContaining("rebind");
    }

    @Test
    void tokenOfAnotherBackendIsRefusedWhateverItsValue() {
        Fence fence = FenceRule.admitWrite("orders/42", null, claim(1_790_000_000_000_123L));
        FencingClaim etcd = new FencingClaim("etcd", "order:42", FencingToken.of(2_000_000_000_000_000L));

        assertThatThrownBy(() -> FenceRule.admitWrite("orders/42", fence, etcd))
                .isInstanceOf(FenceMismatchException.class)
                .hasMessageContaining("etcd")
                .hasMessageContaining("redis");
    }

    @Test
    void blankOrOverlongResourceNamesAreRefused() {
        assertThatThrownBy(() -> FenceRule.admitWrite(" ", null, claim(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("non-blank");
        String longName = "r".repeat(FenceRule.MAX_RESOURCE_LENGTH + 1);
        assertThatThrownBy(() -> FenceRule.admitWrite(longName, null, claim(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(FenceRule.MAX_RESOURCE_LENGTH));
    }

    @Test
    void claimWithoutBackendOrKeyIsRefused() {
        assertThatThrownBy(() -> new FencingClaim("", "k", FencingToken.of(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backend");
        assertThatThrownBy(() -> new FencingClaim("redis", " ", FencingToken.of(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock key");
    }

    @Test
    void memoryStoreRebindMovesTheResourceToAnotherBackend() {
        MemoryFenceStore store = new MemoryFenceStore();
        store.admitWrite("orders/42", claim(1_790_000_000_000_123L));
        FencingClaim etcd = new FencingClaim("etcd", "order:42", FencingToken.of(406));

        store.rebind("orders/42", etcd);

        assertThat(store.admitWrite("orders/42", etcd).highest()).isEqualTo(FencingToken.of(406));
        assertThatThrownBy(() -> store.admitWrite("orders/42", claim(1_790_000_000_000_999L)))
                .isInstanceOf(FenceMismatchException.class);
    }

    /** Writers with rising tokens race; whatever the order, the fence ends at the highest token. */
    @Test
    void memoryStoreNeverLowersTheFenceUnderConcurrentWriters() throws Exception {
        MemoryFenceStore store = new MemoryFenceStore();
        int writers = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int offset = w;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (long t = 1 + offset; t <= 2_000; t += writers) {
                        try {
                            store.admitWrite("ledger", claim(t));
                        } catch (StaleTokenException expectedWhenOvertaken) {
                            // a lower token that lost the race is refused; the fence must not move down
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            threads.add(thread);
            thread.start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }

        assertThat(store.fenceOf("ledger").orElseThrow().highest()).isEqualTo(FencingToken.of(2_000));
    }
}
