package dev.distlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's published provider test kit run against {@link DistlockLockProvider}: every test of
 * its integration test base (fuzz test included) and of its extensible-provider base. Whether a
 * name is locked is asked from a second registry on the same server, as another instance would.
 */
abstract class LockProviderKit extends AbstractExtensibleLockProviderIntegrationTest {

    /** A lease that a loaded machine grants alive: well above a zero-wait take's round trip under load. */
    private static final Duration GRANTABLE = Duration.ofSeconds(1);

    private LockRegistry registry;
    private LockRegistry otherInstance;
    private DistlockLockProvider provider;

    /** A new registry on the backend under test; registries of one test share its server. */
    protected abstract LockRegistry newRegistry();

    @BeforeEach
    void startInstances() {
        registry = newRegistry();
        otherInstance = newRegistry();
        // As an application's start-up check does: connections and scripts are ready before the
        // first zero-wait attempt, which the backend answers within its small slack.
        registry.verify(Duration.ofSeconds(10));
        otherInstance.verify(Duration.ofSeconds(10));
        provider = new DistlockLockProvider(registry);
    }

    @AfterEach
    void closeInstances() {
        registry.close();
        otherInstance.close();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertUnlocked(String lockName) {
        Optional<LockHandle> taken = tryTake(lockName);
        taken.ifPresent(LockHandle::close);
        assertThat(taken).as("another instance can take '%s'", lockName).isPresent();
    }

    @Override
    protected void assertLocked(String lockName) {
        Optional<LockHandle> taken = tryTake(lockName);
        taken.ifPresent(LockHandle::close);
        assertThat(taken).as("another instance cannot take '%s'", lockName).isEmpty();
    }

    private Optional<LockHandle> tryTake(String lockName) {
        try {
            return otherInstance.obtain(lockName).tryAcquire(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * ShedLock's version asks for a 2 ms lock and expects it granted. distlock never hands out a lock whose lease ended
     * before its grant arrived (contract 4), so on a busy machine that lock comes back empty. Granted or not, a lock
     * past its lease is never extended, and the name is free again.
     */
    @Test
    @Override
    public void shouldNotBeAbleToExtendExpiredLock() {
        Optional<SimpleLock> lock = getLockProvider().lock(lockConfig(LOCK_NAME1, Duration.ofMillis(2), Duration.ZERO));
        sleepFor(Duration.ofMillis(4));
        lock.ifPresent(granted -> assertThat(granted.extend(Duration.ofSeconds(10), Duration.ZERO))
                .as("an expired lock is not extended")
                .isEmpty());
        assertUnlocked(LOCK_NAME1);
    }

    /**
     * ShedLock's version takes and retakes a name with 50 ms leases. As above, a grant that arrives after so short a
     * lease has ended comes back empty on a busy machine (contract 4), so both leases here are at least {@link
     * #GRANTABLE}: the name is held, its lease runs out, and then it is free for the next lock.
     */
    @Override
    protected void doTestTimeout(Duration lockAtMostFor) throws InterruptedException {
        Duration lease = lockAtMostFor.compareTo(GRANTABLE) < 0 ? GRANTABLE : lockAtMostFor;
        assertThat(getLockProvider().lock(lockConfig(LOCK_NAME1, lease, Duration.ZERO)))
                .as("the first lock")
                .isPresent();
        Thread.sleep(lease.multipliedBy(2).toMillis());
        assertUnlocked(LOCK_NAME1);
        Optional<SimpleLock> again = getLockProvider().lock(lockConfig(LOCK_NAME1, lease, Duration.ZERO));
        assertThat(again).as("the name is free once the lease ran out").isPresent();
        again.get().unlock();
    }
}
