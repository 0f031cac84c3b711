package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 5, fencing tokens. Writes rise past every token, reads name the latest write. */
abstract class ReadWriteRule05FencingTokens extends ReadWriteGroup {

    ReadWriteRule05FencingTokens(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void writeTokensExceedEveryEarlierTokenAndReadTokensNameTheLatestWrite() throws Exception {
        String key = key();
        FencingToken highest = null;
        FencingToken lastWrite = null;
        for (int i = 0; i < 12; i++) {
            LockRegistry owner = i % 2 == 0 ? registryA : registryB;
            boolean writing = i % 3 == 0;
            FencedLock side = writing ? write(owner, key) : read(owner, key);
            try (LockHandle handle = side.tryAcquire(Duration.ofSeconds(10)).orElseThrow()) {
                FencingToken token = handle.token();
                if (writing) {
                    if (highest != null) {
                        assertThat(token.isNewerThan(highest))
                                .as("write %s after %s", token, highest)
                                .isTrue();
                    }
                    lastWrite = token;
                } else if (lastWrite != null) {
                    assertThat(token.compareTo(lastWrite))
                            .as("read %s observes the write %s", token, lastWrite)
                            .isGreaterThanOrEqualTo(0);
                }
                highest = highest == null || token.isNewerThan(highest) ? token : highest;
            }
        }
    }

    @Test
    void concurrentReadersObserveTheSameWriteEpoch() throws Exception {
        String key = key();
        FencingToken written;
        try (LockHandle write = write(registryA, key).acquire()) {
            written = write.token();
        }
        try (LockHandle first = read(registryA, key).acquire();
                LockHandle second = read(registryB, key).acquire()) {
            assertThat(first.token().compareTo(written)).isGreaterThanOrEqualTo(0);
            assertThat(second.token().compareTo(written)).isGreaterThanOrEqualTo(0);
            assertThat(await(inThread(() -> tryNow(write(registryA, key)))))
                    .as("readers exclude the writer")
                    .isEmpty();
            FencingToken newestRead = first.token().isNewerThan(second.token()) ? first.token() : second.token();
            first.close();
            second.close();
            try (LockHandle next = write(registryB, key).acquire()) {
                assertThat(next.token().isNewerThan(newestRead)).isTrue();
            }
        }
    }
}
