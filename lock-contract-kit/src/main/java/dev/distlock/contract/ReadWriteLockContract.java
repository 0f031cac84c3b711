package dev.distlock.contract;

import java.time.Duration;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestClassOrder;

/**
 * Contract rule 13, read/write locks ({@code docs/read-write-locks.md}). What every backend's read/write locks keep,
 * one {@code @Nested} group per rule, run in rule order of {@code docs/contract.md} they are checked against. A backend's test class
 * extends this and supplies registries over one shared server. Each registry stands for another JVM. Backends
 * override the timing hooks only, never an assertion.
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
public abstract class ReadWriteLockContract extends ContractSupport {

    protected ReadWriteLockContract() {
        super("rw-");
    }

    /** How long a writer may take to get in past 8 looping readers. */
    protected Duration writerStarvationBound() {
        return Duration.ofSeconds(10);
    }

    @Nested
    @Order(1)
    @DisplayName("13. Read/write locks: 1. Mutual exclusion")
    class Rule01 extends ReadWriteRule01MutualExclusion {
        Rule01() {
            super(ReadWriteLockContract.this);
        }
    }

    @Nested
    @Order(2)
    @DisplayName("13. Read/write locks: 2. Reentrancy")
    class Rule02 extends ReadWriteRule02Reentrancy {
        Rule02() {
            super(ReadWriteLockContract.this);
        }
    }

    @Nested
    @Order(3)
    @DisplayName("13. Read/write locks: 3. Owner-only release")
    class Rule03 extends ReadWriteRule03OwnerOnlyRelease {
        Rule03() {
            super(ReadWriteLockContract.this);
        }
    }

    @Nested
    @Order(4)
    @DisplayName("13. Read/write locks: 4. Leases")
    class Rule04 extends ReadWriteRule04Leases {
        Rule04() {
            super(ReadWriteLockContract.this);
        }
    }

    @Nested
    @Order(5)
    @DisplayName("13. Read/write locks: 5. Fencing tokens")
    class Rule05 extends ReadWriteRule05FencingTokens {
        Rule05() {
            super(ReadWriteLockContract.this);
        }
    }

    @Nested
    @Order(6)
    @DisplayName("13. Read/write locks: 6. Waiting without spinning")
    class Rule06 extends ReadWriteRule06WaitingWithoutSpinning {
        Rule06() {
            super(ReadWriteLockContract.this);
        }
    }

    @Nested
    @Order(7)
    @DisplayName("13. Read/write locks: 8. Waits end on time")
    class Rule08 extends ReadWriteRule08WaitsEndOnTime {
        Rule08() {
            super(ReadWriteLockContract.this);
        }
    }

    @Nested
    @Order(8)
    @DisplayName("13. Read/write locks: 10. Bad input gets a clear error")
    class Rule10 extends ReadWriteRule10BadInputGetsAClearError {
        Rule10() {
            super(ReadWriteLockContract.this);
        }
    }

    @Nested
    @Order(9)
    @DisplayName("13. Read/write locks: 11. Operations")
    class Rule11 extends ReadWriteRule11Operations {
        Rule11() {
            super(ReadWriteLockContract.this);
        }
    }
}
