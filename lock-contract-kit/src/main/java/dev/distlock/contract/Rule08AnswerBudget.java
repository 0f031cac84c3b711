package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Contract rule 8, the answer budget: a zero wait on a live server that a busy machine answers slowly gets an answer,
 * not an exception, within the registry's answer budget.
 */
abstract class Rule08AnswerBudget extends LockGroup {

    /** Long enough for tens of calls; short, since the machine is shared. */
    private static final Duration HOG = Duration.ofSeconds(4);

    Rule08AnswerBudget(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void aZeroWaitOnABusyMachineIsAnsweredWithinTheBudget() throws Exception {
        Duration budget = RegistryOptions.DEFAULT_ANSWER_BUDGET;
        String held = key("held");
        registryA.obtain(key("warm")).tryAcquire(Duration.ZERO).ifPresent(LockHandle::close); // one-time work
        try (LockHandle other = registryB.obtain(held).acquire();
                CpuHog hog = CpuHog.onEveryCore(8, HOG)) {
            int calls = 0;
            Duration slowest = Duration.ZERO;
            while (hog.running()) {
                calls++;
                long start = System.nanoTime();
                Optional<LockHandle> free =
                        registryA.obtain(key("free" + calls)).tryAcquire(Duration.ZERO);
                Duration tookFree = Duration.ofNanos(System.nanoTime() - start);
                assertThat(free).as("call %d: a free key under load", calls).isPresent();
                free.get().close();
                start = System.nanoTime();
                Optional<LockHandle> taken = registryA.obtain(held).tryAcquire(Duration.ZERO);
                Duration tookHeld = Duration.ofNanos(System.nanoTime() - start);
                assertThat(taken).as("call %d: a held key under load", calls).isEmpty();
                slowest = max(slowest, max(tookFree, tookHeld));
                assertThat(slowest)
                        .as("call %d: the answer came within the budget", calls)
                        .isLessThan(budget);
            }
            System.out.printf(
                    "%s: %d zero-wait pairs under load, slowest %d ms%n",
                    registryA.backend(), calls, slowest.toMillis());
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
