package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.core.semaphore.PermitCountConflictException;
import dev.distlock.core.semaphore.Permits;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Contract section 15, semaphores, their declarations. One permit count per name, refused acquisitions leave
 * nothing held, a semaphore's keys are its own, and bad input fails clearly.
 */
abstract class Rule15SemaphoreDeclarations extends LockGroup {

    private static final Duration LONG = Duration.ofSeconds(60);

    Rule15SemaphoreDeclarations(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void differentPermitCountsForOneNameFailWhereTheyMeet() throws Exception {
        String name = key("count");
        // On a held permit. A declaration of 1 finds its only slot held by a declaration of 2.
        Permits both = LeasedSemaphore.of(registryA, name, 2)
                .tryAcquire(2, timingSlack())
                .orElseThrow();
        assertThatThrownBy(() -> LeasedSemaphore.of(registryB, name, 1).tryAcquire(timingSlack()))
                .isInstanceOf(PermitCountConflictException.class)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining(registryB.backend())
                .hasMessageContaining("1 permits here")
                .hasMessageContaining("with 2 by the holder");
        // A waiter of the declaration of 2 holds <name>:permit:waiting while it waits. A declaration of 3 meets it
        // there, or on the held permit it tries first while it reads whether anyone waits.
        // (From a third registry: registryA's own threads would wait in the JVM for the permits it holds.)
        LockRegistry third = newRegistry();
        Future<Optional<Permits>> waiter =
                inThread(() -> LeasedSemaphore.of(third, name, 2).tryAcquire(LONG));
        LeasedSemaphore three = LeasedSemaphore.of(registryB, name, 3);
        Rule15Semaphores.awaitCondition(
                this, () -> registryB.holderOf(three.waitingKey()).isPresent(), "the waiter did not queue");
        assertThatThrownBy(() -> three.tryAcquire(timingSlack()))
                .isInstanceOf(PermitCountConflictException.class)
                .hasMessageContaining("3 permits here")
                .hasMessageContaining("with 2 by the holder of '" + name + ":");
        both.close();
        await(waiter).orElseThrow().close();
        // The waiter's wait for the other slot was withdrawn (rule 12). It may take that slot and give it back.
        LeasedSemaphore two = LeasedSemaphore.of(registryB, name, 2);
        Rule15Semaphores.awaitCondition(
                this, () -> two.holders().isEmpty(), "the refused acquisitions left a permit held");
    }

    @Test
    void aPlainLockCannotNameASemaphoresKey() throws Exception {
        String name = key("space");
        LeasedSemaphore semaphore = LeasedSemaphore.of(registryA, name, 2);
        Permits held = semaphore.tryAcquire(timingSlack()).orElseThrow();
        int free = 1 - held.list().get(0).slot();
        for (String clash : List.of(semaphore.slotKey(free), semaphore.queueKey(), semaphore.waitingKey())) {
            assertThatThrownBy(() -> registryB.obtain(clash))
                    .as("a plain lock on %s", clash)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + clash + "'")
                    .hasMessageContaining(registryB.backend())
                    .hasMessageContaining("semaphore");
        }
        assertThat(semaphore.tryAcquire(timingSlack()))
                .as("the other permit is still there for the semaphore")
                .isPresent()
                .get()
                .satisfies(Permits::close);
        held.close();
    }

    @Test
    void badInputGetsAClearError() {
        String backend = registryA.backend();
        assertThatThrownBy(() -> LeasedSemaphore.of(registryA, " ", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank")
                .hasMessageContaining(backend);
        assertThatThrownBy(() -> LeasedSemaphore.of(registryA, "s", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'s'")
                .hasMessageContaining(backend);
        assertThatThrownBy(() -> LeasedSemaphore.of(registryA, "s", LeasedSemaphore.MAX_PERMITS + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeasedSemaphore.of(registryA, "s".repeat(10_000), 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(backend);
        LeasedSemaphore semaphore = LeasedSemaphore.of(registryA, key("input"), 2);
        assertThatThrownBy(() -> semaphore.tryAcquire(3, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(semaphore.name())
                .hasMessageContaining(backend);
        assertThatThrownBy(() -> semaphore.acquireAsync(0, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> semaphore.slotKey(2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(semaphore.name())
                .hasMessageContaining(backend);
    }
}
