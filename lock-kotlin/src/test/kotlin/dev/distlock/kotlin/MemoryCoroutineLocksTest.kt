package dev.distlock.kotlin

import dev.distlock.core.LockRegistry
import dev.distlock.core.memory.MemoryLockRegistry
import org.junit.jupiter.api.AfterEach

/** The coroutine API on the memory backend: one registry, whose handle-owned holds exclude each other. */
class MemoryCoroutineLocksTest : CoroutineLockContract() {

    override val registry: LockRegistry = MemoryLockRegistry()
    override val other: LockRegistry get() = registry

    @AfterEach
    fun close() {
        registry.close()
    }
}
