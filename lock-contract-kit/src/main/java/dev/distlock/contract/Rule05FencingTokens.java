package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Contract rule 5, fencing tokens. Each new hold of a key gets a strictly larger token. */
abstract class Rule05FencingTokens extends LockGroup {

    Rule05FencingTokens(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void tokensStrictlyRiseAcrossOwners() throws Exception {
        String key = key();
        FencingToken last = null;
        for (int i = 0; i < 30; i++) {
            LockRegistry owner = i % 3 == 0 ? registryA : registryB;
            try (LockHandle handle =
                    owner.obtain(key).tryAcquire(Duration.ofSeconds(10)).orElseThrow()) {
                if (last != null) {
                    assertThat(handle.token().isNewerThan(last))
                            .as("token %s after %s", handle.token(), last)
                            .isTrue();
                }
                last = handle.token();
            }
        }
    }

    @Test
    void tokensRiseAcrossExpiredLeases() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        FencingToken first = expiring.obtain(key)
                .tryAcquire(Duration.ZERO, leaseTime())
                .orElseThrow()
                .token();
        try (LockHandle second = registryB
                .obtain(key)
                .tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3))
                .orElseThrow()) {
            assertThat(second.token().isNewerThan(first)).isTrue();
        }
    }

    @Test
    void tokensOfDifferentHoldsOfOneThreadRise() throws Exception {
        FencedLock lock = registryA.obtain(key());
        FencingToken first;
        try (LockHandle handle = lock.acquire()) {
            first = handle.token();
        }
        try (LockHandle handle = lock.acquire()) {
            assertThat(handle.token().isNewerThan(first)).isTrue();
        }
    }
}
