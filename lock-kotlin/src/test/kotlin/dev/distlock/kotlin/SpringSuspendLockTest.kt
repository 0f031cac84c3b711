package dev.distlock.kotlin

import dev.distlock.core.LockNotAcquiredException
import dev.distlock.core.LockRegistry
import dev.distlock.spring.DistributedLock
import dev.distlock.spring.DistributedLock.OnFailure
import dev.distlock.spring.DistributedLockAutoConfiguration
import dev.distlock.spring.ReactiveLockContext
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration

/** `@DistributedLock` on suspend functions and on functions that return a Flow (memory backend). */
class SpringSuspendLockTest {

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, DistributedLockAutoConfiguration::class.java))
        .withPropertyValues("distributed-lock.backend=memory")
        .withUserConfiguration(Beans::class.java)

    open class Jobs {

        @DistributedLock(name = "job", key = "#id")
        open suspend fun work(id: String, entered: CompletableDeferred<Long>, gate: CompletableDeferred<String>): String {
            entered.complete(currentLockHold()!!.token.value())
            return gate.await()
        }

        @DistributedLock(name = "job", key = "#id", waitTime = "0s")
        open suspend fun now(id: String): String = "ran"

        @DistributedLock(name = "job", key = "#id", waitTime = "0s", onFailure = OnFailure.SKIP)
        open suspend fun nowOrSkip(id: String): String? = "ran"

        @DistributedLock(name = "job", key = "#id", waitTime = "1m")
        open suspend fun waiting(id: String): String = "ran after waiting"

        @DistributedLock(name = "job", key = "#id")
        open fun numbers(id: String, entered: CompletableDeferred<Long>, gate: CompletableDeferred<Int>): Flow<Int> =
            flow {
                emit(1)
                entered.complete(currentLockHold()!!.token.value())
                emit(gate.await())
            }

        @DistributedLock(name = "job", key = "#id", waitTime = "0s")
        open fun numbersNow(id: String): Flow<Int> = flow { emit(1) }
    }

    @Configuration(proxyBeanMethods = false)
    open class Beans {
        @Bean
        open fun jobs(): Jobs = Jobs()
    }

    @Test
    fun aSuspendFunctionHoldsTheKeyUntilItReturns() {
        runner.run { context ->
        val jobs = context.getBean(Jobs::class.java)
        val registry = context.getBean(LockRegistry::class.java)
        runBlocking {
            val entered = CompletableDeferred<Long>()
            val gate = CompletableDeferred<String>()
            val call = async(Dispatchers.Default) { jobs.work("a", entered, gate) }
            val token = entered.await()
            assertThat(registry.holds().single { it.key() == "job:a" }.token().value()).isEqualTo(token)
            assertThat(runCatching { jobs.now("a") }.exceptionOrNull())
                .`as`("the key is busy while the suspended function has not returned")
                .isInstanceOf(LockNotAcquiredException::class.java)
                .hasMessageContaining("job:a")
            assertThat(jobs.nowOrSkip("a")).`as`("onFailure = SKIP").isNull()
            val waiter = async(Dispatchers.Default) { jobs.waiting("a") }
            gate.complete("done")
            assertThat(call.await()).isEqualTo("done")
            assertThat(waiter.await()).`as`("a waiting call runs once the key is free").isEqualTo("ran after waiting")
            assertThat(jobs.now("a")).isEqualTo("ran")
        }
    }
    }

    @Test
    fun cancellingTheCallerOfASuspendFunctionReleasesTheKey() {
        runner.run { context ->
        val jobs = context.getBean(Jobs::class.java)
        val registry = context.getBean(LockRegistry::class.java)
        runBlocking {
            val entered = CompletableDeferred<Long>()
            val caller = launch(Dispatchers.Default) { jobs.work("b", entered, CompletableDeferred()) }
            entered.await()
            caller.cancelAndJoin()
            // The release runs on the cancellation signal, which may still be on its way when the join returns.
            awaitNoHolds(registry)
            assertThat(registry.holds()).`as`("holds after the caller was cancelled").isEmpty()
            assertThat(jobs.now("b")).isEqualTo("ran")
        }
    }
    }

    @Test
    fun cancellingACallerThatWaitsForTheKeyLeavesNothingHeld() {
        runner.run { context ->
        val jobs = context.getBean(Jobs::class.java)
        val registry = context.getBean(LockRegistry::class.java)
        runBlocking {
            val entered = CompletableDeferred<Long>()
            val gate = CompletableDeferred<String>()
            val holder = async(Dispatchers.Default) { jobs.work("c", entered, gate) }
            entered.await()
            val waiter = launch(Dispatchers.Default) { jobs.waiting("c") }
            waiter.cancelAndJoin()
            gate.complete("done")
            holder.await()
            // The abandoned attempt may still take the key once and give it back at once; a bounded wait.
            assertThat(registry.tryAcquire("job:c", kotlin.time.Duration.parse("10s"))?.also { it.close() })
                .`as`("the key is free again").isNotNull()
        }
    }
    }

    @Test
    fun aFlowHoldsTheKeyUntilItsCollectionEnds() {
        runner.run { context ->
        val jobs = context.getBean(Jobs::class.java)
        val registry = context.getBean(LockRegistry::class.java)
        runBlocking {
            val entered = CompletableDeferred<Long>()
            val gate = CompletableDeferred<Int>()
            val flow = jobs.numbers("d", entered, gate)
            assertThat(registry.holds()).`as`("nothing is held before the Flow is collected").isEmpty()
            val collected = async(Dispatchers.Default) { flow.toList() }
            entered.await()
            assertThat(runCatching { jobs.numbersNow("d").toList() }.exceptionOrNull())
                .isInstanceOf(LockNotAcquiredException::class.java)
            gate.complete(2)
            assertThat(collected.await()).containsExactly(1, 2)
            assertThat(jobs.numbersNow("d").toList()).containsExactly(1)
        }
    }
    }

    @Test
    fun cancellingTheCollectorOfAFlowReleasesTheKey() {
        runner.run { context ->
        val jobs = context.getBean(Jobs::class.java)
        val registry = context.getBean(LockRegistry::class.java)
        runBlocking {
            val entered = CompletableDeferred<Long>()
            val collector = launch(Dispatchers.Default) { jobs.numbers("e", entered, CompletableDeferred()).toList() }
            entered.await()
            collector.cancelAndJoin()
            // The release runs on the cancellation signal, which may still be on its way when the join returns.
            awaitNoHolds(registry)
            assertThat(registry.holds()).`as`("holds after the collector was cancelled").isEmpty()
            assertThat(jobs.numbersNow("e").toList()).containsExactly(1)
        }
    }
    }

    @Test
    fun theStarterKeepsTheHoldUnderTheKeyLockKotlinReads() {
        assertThat(SPRING_CONTEXT_KEY).isEqualTo(ReactiveLockContext.KEY)
    }
}

/** Waits at most 5 s for the registry to hold nothing (a release that was already under way). */
private suspend fun awaitNoHolds(registry: LockRegistry) {
    val until = System.nanoTime() + 5_000_000_000L
    while (registry.holds().isNotEmpty() && System.nanoTime() < until) {
        delay(5)
    }
}
