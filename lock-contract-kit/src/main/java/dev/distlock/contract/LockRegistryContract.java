package dev.distlock.contract;

import dev.distlock.contract.servers.FaultProxies;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestClassOrder;

/**
 * The contract every backend keeps ({@code docs/contract.md}), one {@code @Nested} group per rule, named by its
 * number. A backend's test class extends this, supplies registries over one shared server through {@link
 * #createRegistry}, and starts and stops that server itself ({@code @BeforeAll}/{@code @AfterAll}). Each registry
 * stands for another JVM. Backends with documented differences override the timing hooks, never an assertion.
 *
 * <p>Rules 7 (server time) and 9 (bounded state) depend on how a backend stores its locks. Each backend checks them
 * in tests of its own. Rule 13 (read/write locks) is {@link ReadWriteLockContract}. Rule 14 (multi-key locks) checks
 * the {@code MultiLock} recipe over the backend, which needs nothing of the backend beyond rules 1 to 12.
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
public abstract class LockRegistryContract extends ContractSupport {

    protected LockRegistryContract() {
        super("contract-");
    }

    /** Threads per registry in the contention tests. */
    protected int contendersPerRegistry() {
        return 3;
    }

    /**
     * Whether this backend takes {@code key} on the condition that {@code guardKey} is free, both checked in one step
     * on the server ({@code FencedLock.tryAcquireUnlessHeld}). Rule 12 checks that it does when this says so, and
     * that it refuses clearly otherwise.
     */
    protected boolean guardsTakes(String key, String guardKey) {
        return false;
    }

    /**
     * The names {@code LockRegistry.backend()} may return. A backend of your own returns its own name here, so that
     * its errors and metrics can be told apart from distlock's backends.
     */
    protected Collection<String> backendNames() {
        return List.of("redis", "zookeeper", "etcd", "jdbc", "memory");
    }

    /**
     * A new registry over the server under test whose every connection goes through {@code proxies} ({@link
     * FaultProxies#to} each server address), built but not used yet, so that its first call meets the backend's
     * one-time set-up. The kit closes the registry after the test. Null, the default, where the backend has no
     * connection to slow (memory). The group "4. Leases: counted from the take" then says so and does not run.
     */
    protected LockRegistry createRegistryThrough(FaultProxies proxies, RegistryOptions options) {
        return null;
    }

    /**
     * True where a hold lasts as long as its client's session (ZooKeeper) rather than a lease of its own. The session
     * is opened by the client before the registry exists, and an answer later than the session timeout ends it, so
     * the group "4. Leases: counted from the take" runs only its renewal test there.
     */
    protected boolean holdsLastAsSessions() {
        return false;
    }

    @Nested
    @Order(1)
    @DisplayName("1. Mutual exclusion")
    class Rule01 extends Rule01MutualExclusion {
        Rule01() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(2)
    @DisplayName("2. Reentrancy")
    class Rule02 extends Rule02Reentrancy {
        Rule02() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(3)
    @DisplayName("3. Owner-only release")
    class Rule03 extends Rule03OwnerOnlyRelease {
        Rule03() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(4)
    @DisplayName("4. Leases")
    class Rule04 extends Rule04Leases {
        Rule04() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(5)
    @DisplayName("4. Leases: lost holds")
    class Rule04Lost extends Rule04LeasesLost {
        Rule04Lost() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(6)
    @DisplayName("4. Leases: minimum holds")
    class Rule04MinimumHolds extends Rule04LeasesMinimumHolds {
        Rule04MinimumHolds() {
            super(LockRegistryContract.this);
        }
    }

    /** Tagged, so that {@code -Dgroups=lease-start} runs this group alone. */
    @Nested
    @Order(7)
    @DisplayName("4. Leases: counted from the take")
    @Tag("lease-start")
    class Rule04LeaseStart extends Rule04LeasesCountFromTheTake {
        Rule04LeaseStart() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(7)
    @DisplayName("5. Fencing tokens")
    class Rule05 extends Rule05FencingTokens {
        Rule05() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(8)
    @DisplayName("6. Waiting without spinning")
    class Rule06 extends Rule06WaitingWithoutSpinning {
        Rule06() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(9)
    @DisplayName("8. Waits end on time")
    class Rule08 extends Rule08WaitsEndOnTime {
        Rule08() {
            super(LockRegistryContract.this);
        }
    }

    /** Tagged, so that {@code -Dgroups=answer-budget} runs this group alone. */
    @Nested
    @Order(9)
    @DisplayName("8. Waits end on time: the answer budget")
    @Tag("answer-budget")
    class Rule08Budget extends Rule08AnswerBudget {
        Rule08Budget() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(10)
    @DisplayName("10. Bad input gets a clear error")
    class Rule10 extends Rule10BadInputGetsAClearError {
        Rule10() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(11)
    @DisplayName("11. Operations")
    class Rule11 extends Rule11Operations {
        Rule11() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(12)
    @DisplayName("12. Asynchronous holds")
    class Rule12 extends Rule12AsynchronousHolds {
        Rule12() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(13)
    @DisplayName("14. Multi-key locks")
    class Rule14 extends Rule14MultiKeyLocks {
        Rule14() {
            super(LockRegistryContract.this);
        }
    }

    @Nested
    @Order(13)
    @DisplayName("14. Multi-key locks: handles")
    class Rule14Handles extends Rule14MultiKeyHandles {
        Rule14Handles() {
            super(LockRegistryContract.this);
        }
    }

    /** Tagged, so that {@code -Dgroups=semaphores} runs this group alone. */
    @Nested
    @Order(14)
    @DisplayName("15. Semaphores")
    @Tag("semaphores")
    class Rule15 extends Rule15Semaphores {
        Rule15() {
            super(LockRegistryContract.this);
        }
    }

    /** Tagged, so that {@code -Dgroups=semaphores} runs it with the group above. */
    @Nested
    @Order(14)
    @DisplayName("15. Semaphores: declarations")
    @Tag("semaphores")
    class Rule15Declarations extends Rule15SemaphoreDeclarations {
        Rule15Declarations() {
            super(LockRegistryContract.this);
        }
    }
}
