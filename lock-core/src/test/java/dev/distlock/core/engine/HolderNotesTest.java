package dev.distlock.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Notes recorded with holds ({@link FencedLock#withNote}): what is stored, what is refused. */
class HolderNotesTest {

    private final MemoryLockStore store = new MemoryLockStore();

    @Test
    void theNoteOfAThreadOwnedHoldAndOfAHandleOwnedHoldIsReadBack() throws Exception {
        try (MemoryLockRegistry registry =
                MemoryLockRegistry.builder().store(store).build()) {
            FencedLock lock = registry.obtain("job").withNote("url=http://a:8080");
            try (LockHandle handle = lock.tryAcquire(Duration.ZERO).orElseThrow()) {
                LockHolder holder = registry.holderOf("job").orElseThrow();
                assertThat(holder.note()).contains("url=http://a:8080");
                assertThat(holder.holder())
                        .contains("thread " + Thread.currentThread().getName());
                assertThat(lock.holdCount())
                        .as("the noted lock is the same lock")
                        .isEqualTo(1);
                assertThat(registry.obtain("job").holdCount()).isEqualTo(1);
            }
            try (LockHandle handle =
                    lock.acquireAsync(Duration.ZERO).get(10, TimeUnit.SECONDS).orElseThrow()) {
                assertThat(registry.holderOf("job").orElseThrow().note()).contains("url=http://a:8080");
            }
        }
    }

    @Test
    void aLongDescriptionIsCutBeforeTheNoteNeverTheNote() {
        HolderDescription description = new HolderDescription("a".repeat(300));
        String note = "n".repeat(LockHolder.MAX_NOTE_LENGTH);
        String text = description.of(Thread.currentThread(), note);
        assertThat(text).hasSize(LockRequest.MAX_HOLDER_LENGTH).endsWith(LockHolder.NOTE_MARKER + note);
        assertThat(new LockHolder("k", text, null, java.util.Optional.empty()).note())
                .contains(note);
    }

    @Test
    void aThreadNameThatLooksLikeANoteIsNotReadAsOne() throws Exception {
        HolderDescription description = new HolderDescription("app");
        Thread thread = new Thread(() -> {}, "worker note: fake");
        String text = description.of(thread, null);
        assertThat(new LockHolder("k", text, null, java.util.Optional.empty()).note())
                .isEmpty();
    }

    @Test
    void badNotesAreRefusedNamingTheKeyAndTheBackend() {
        try (MemoryLockRegistry registry =
                MemoryLockRegistry.builder().store(store).build()) {
            FencedLock lock = registry.obtain("job");
            assertThatThrownBy(() -> lock.withNote(""))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'job'")
                    .hasMessageContaining("memory");
            assertThatThrownBy(() -> lock.withNote("x".repeat(LockHolder.MAX_NOTE_LENGTH + 1)))
                    .hasMessageContaining("at most " + LockHolder.MAX_NOTE_LENGTH);
            assertThatThrownBy(() -> lock.withNote("caf\u00e9")).hasMessageContaining("printable ASCII");
            assertThatThrownBy(() -> lock.withNote("a note: b")).hasMessageContaining("reword");
        }
    }
}
