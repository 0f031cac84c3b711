package dev.distlock.kotlin

import dev.distlock.core.LockHandle
import dev.distlock.core.LockNotAcquiredException
import dev.distlock.core.LockRegistry
import java.util.concurrent.Semaphore
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.Runnable
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.StandardTestDispatcher
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * What the coroutine API promises, on any backend: [registry] and [other] are two owners of one backend
 * (two registries, or one registry whose handle-owned holds exclude each other, contract 12).
 */
@OptIn(ExperimentalCoroutinesApi::class)
abstract class CoroutineLockContract {

    abstract val registry: LockRegistry
    abstract val other: LockRegistry

    private var keys = 0

    private fun key(): String = "kotlin-" + javaClass.simpleName + "-" + (++keys) + "-" + System.nanoTime()

    @Test
    fun withLockRunsTheBlockWithTheHoldInTheCoroutineContext() = runTest {
        val key = key()
        val (argument, fromContext) = registry.withLock(key, 5.seconds) { hold ->
            hold to currentCoroutineContext()[LockHold]
        }
        assertThat(fromContext).isSameAs(argument)
        assertThat(argument.lockKey).isEqualTo(key)
        assertThat(argument.token.value()).isPositive()
        assertThat(argument.isValid).`as`("released when the block returned").isFalse()
        assertKeyFree(key)
    }

    @Test
    fun theHoldFollowsTheBlockAcrossThreads() = runTest {
        val key = key()
        registry.withLock(key, 5.seconds) { hold ->
            val seenOnIo = withContext(Dispatchers.IO) { currentLockHold() }
            assertThat(seenOnIo).isSameAs(hold)
            assertThat(hold.isValid).isTrue()
        }
        assertKeyFree(key)
    }

    @Test
    fun waitingSuspendsWithoutBlockingTheCallersThread() = runTest {
        val key = key()
        val held = other.tryAcquire(key, 5.seconds)!!
        // One thread runs the test and every coroutine in it: if the waiter blocked it, nothing below would run.
        val waiter = async { registry.withLock(key, 1.minutes) { hold -> hold.token.value() } }
        runCurrent()
        assertThat(waiter.isActive).`as`("waits while the key is held elsewhere").isTrue()
        val heldToken = held.token().value()
        held.close()
        assertThat(waiter.await()).isGreaterThan(heldToken)
        assertKeyFree(key)
    }

    @Test
    fun tryAcquireReturnsNullWhenTheKeyStaysBusy() = runTest {
        val key = key()
        other.tryAcquire(key, 5.seconds)!!.use {
            assertThat(registry.tryAcquire(key, 0.seconds)).isNull()
            assertThat(runCatching { registry.withLock(key, 0.seconds) { } }.exceptionOrNull())
                .isInstanceOf(LockNotAcquiredException::class.java)
                .hasMessageContaining(key)
        }
    }

    @Test
    fun cancellingAWaitingCoroutineAbandonsTheAttemptAndLeavesNothingHeld() = runTest {
        val key = key()
        val held = other.tryAcquire(key, 5.seconds)!!
        val waiter = launch { registry.tryAcquire(key, 1.minutes)?.close() }
        runCurrent()
        waiter.cancelAndJoin()
        held.close()
        assertKeyFree(key)
    }

    @Test
    fun cancellingAHoldingCoroutineReleasesTheHold() = runTest {
        val key = key()
        val holding = CompletableDeferred<LockHold>()
        val job = launch(Dispatchers.Default) {
            registry.withLock(key, 5.seconds) { hold ->
                holding.complete(hold)
                awaitCancellation()
            }
        }
        val hold = holding.await()
        assertThat(registry.holds()).isNotEmpty()
        job.cancelAndJoin()
        assertThat(hold.isValid).isFalse()
        assertKeyFree(key)
    }

    /**
     * The race between a grant and a cancellation: the grant reaches the coroutine (its resumption is
     * dispatched) and the coroutine is cancelled before it runs again. The coroutine then ends with a
     * CancellationException and never sees the handle, so the handle must be released for it.
     */
    @Test
    fun aGrantThatArrivesAfterTheCoroutineWasCancelledIsReleased() = runTest {
        val key = key()
        val dispatches = Semaphore(0)
        val watched = CountingDispatcher(StandardTestDispatcher(testScheduler), dispatches)
        val held = other.tryAcquire(key, 5.seconds)!!
        var handle: LockHandle? = null
        val job = launch(watched) { handle = registry.tryAcquire(key, 1.minutes) }
        runCurrent() // starts the attempt; the coroutine suspends in it while the key is held
        held.close()
        // The first dispatch started the coroutine; the second is the grant resuming it. Until the test
        // scheduler runs, that resumption waits in its queue.
        assertThat(dispatches.tryAcquire(2, 30, TimeUnit.SECONDS)).`as`("the grant resumed the coroutine").isTrue()
        job.cancel()
        job.join()
        assertThat(handle).`as`("the cancelled coroutine never took the handle").isNull()
        assertKeyFree(key)
    }

    @Test
    fun cancellationsAtRandomPointsLeaveNothingHeld() = runTest {
        val key = key()
        repeat(50) { round ->
            val job = launch(Dispatchers.Default) { registry.withLock(key, 1.minutes) { delay(1) } }
            if (round % 2 == 0) {
                Thread.yield()
            }
            job.cancelAndJoin()
        }
        assertKeyFree(key)
    }

    @Test
    fun lockingAKeyTheEnclosingBlockHoldsFailsInsteadOfWaitingForever() = runTest {
        val key = key()
        val inner = key()
        registry.withLock(key, 5.seconds) { outer ->
            assertThat(runCatching { registry.withLock(key, 1.minutes) { } }.exceptionOrNull())
                .isInstanceOf(IllegalStateException::class.java)
                .hasMessageContaining(key)
                .hasMessageContaining("not reentrant")
            registry.withLock(inner, 5.seconds) { nested ->
                assertThat(currentLockHold()).isSameAs(nested)
                assertThat(nested.outer).isSameAs(outer)
            }
            assertThat(currentLockHold()).isSameAs(outer)
        }
        assertKeyFree(key)
        assertKeyFree(inner)
    }

    /** Nothing of [key] is held by [registry]: its holds are gone and another owner takes the key. */
    private suspend fun assertKeyFree(key: String) {
        // Bounded wait: a leaked hold keeps the key for its whole (renewed) lease, far past this.
        val probe = other.tryAcquire(key, 10.seconds)
        assertThat(probe).`as`("another owner takes '%s' after the coroutine is done", key).isNotNull()
        val probes = if (other === registry) 1 else 0
        assertThat(registry.holds().count { it.key() == key }).`as`("holds of '%s' left", key).isEqualTo(probes)
        probe!!.close()
    }

    /** Passes every dispatch on to [delegate], and counts it. */
    private class CountingDispatcher(private val delegate: CoroutineDispatcher, private val dispatches: Semaphore) :
        CoroutineDispatcher() {
        override fun dispatch(context: CoroutineContext, block: Runnable) {
            delegate.dispatch(context, block)
            dispatches.release()
        }
    }
}
