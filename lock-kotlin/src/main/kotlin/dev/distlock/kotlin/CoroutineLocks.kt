@file:JvmName("CoroutineLocks")

package dev.distlock.kotlin

import dev.distlock.core.FencedLock
import dev.distlock.core.LockHandle
import dev.distlock.core.LockNotAcquiredException
import dev.distlock.core.LockRegistry
import java.util.Optional
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext

// Suspending acquisition, built on FencedLock.acquireAsync (contract 12). The hold belongs to its handle,
// never to a thread, so a coroutine may resume on any thread and still release it.
//
// While it waits, the calling coroutine suspends and its thread is free. The engine's attempt itself waits on a
// thread of its own (a virtual thread on Java 21 and later, a pooled daemon thread on Java 17). Releases run
// on Dispatchers.IO, because a release is a server call that blocks its thread.
//
// Not reentrant. Acquiring a key that an enclosing withLock block of the same coroutine already holds fails
// at once with IllegalStateException. Waiting would never end. The outer block cannot release before the
// inner call (or a child coroutine it awaits) returns. Sharing the hold instead would be unsound, because
// child coroutines inherit the context and run concurrently, so "the same coroutine" would be several.

/** Waits as long as it takes for [key]. The lease is renewed by the watchdog. Close the handle to release. */
public suspend fun LockRegistry.acquire(key: String): LockHandle = obtain(key).acquireSuspending()

/**
 * Waits at most [wait] for [key] and returns the handle, or null when the time ran out. With [lease], a fixed lease
 * that is not renewed. Without, the watchdog renews it. Close the handle to release.
 */
public suspend fun LockRegistry.tryAcquire(key: String, wait: Duration, lease: Duration? = null): LockHandle? =
    obtain(key).tryAcquireSuspending(wait, lease)

/**
 * Runs [block] while holding [key], waiting at most [wait] for it. See [FencedLock.withLock].
 *
 * @throws LockNotAcquiredException when the key did not come free in time
 */
public suspend fun <T> LockRegistry.withLock(
    key: String,
    wait: Duration,
    lease: Duration? = null,
    block: suspend (LockHold) -> T,
): T = obtain(key).withLock(wait, lease, block)

/** Waits as long as it takes (named so, because the member `acquire()` blocks the thread). */
public suspend fun FencedLock.acquireSuspending(): LockHandle {
    while (true) {
        tryAcquireSuspending(Duration.INFINITE)?.let { return it }
    }
}

/** Waits at most [wait] and returns the handle, or null when the time ran out. See [LockRegistry.tryAcquire]. */
public suspend fun FencedLock.tryAcquireSuspending(wait: Duration, lease: Duration? = null): LockHandle? {
    refuseReentry(this)
    val javaWait = if (wait.isInfinite()) FOREVER else wait.toJavaDuration()
    return awaitGrant(if (lease == null) acquireAsync(javaWait) else acquireAsync(javaWait, lease.toJavaDuration()))
}

/**
 * Runs [block] while holding this lock, waiting at most [wait] for it, with the hold in the coroutine
 * context (`coroutineContext[LockHold]`) and as the block's argument. The hold is released when the block
 * returns, throws or is cancelled. The release completes even then (it runs non-cancellable).
 *
 * @throws LockNotAcquiredException when the key did not come free in time
 * @throws IllegalStateException when an enclosing block already holds this key (not reentrant)
 */
public suspend fun <T> FencedLock.withLock(wait: Duration, lease: Duration? = null, block: suspend (LockHold) -> T): T {
    val handle = tryAcquireSuspending(wait, lease)
        ?: throw LockNotAcquiredException(key(), backendName(), if (wait.isInfinite()) FOREVER else wait.toJavaDuration())
    val hold = LockHold(handle, backendName(), currentCoroutineContext()[LockHold])
    var failure: Throwable? = null
    try {
        return withContext(hold) { block(hold) }
    } catch (e: Throwable) {
        failure = e
        throw e
    } finally {
        try {
            release(handle)
        } catch (e: RuntimeException) {
            // As with try-with-resources. The block's own failure wins, the release's is attached to it.
            failure?.addSuppressed(e) ?: throw e
        }
    }
}

/**
 * The hold of the enclosing [withLock] block, or of the enclosing `@DistributedLock` suspend function
 * (which the Spring starter keeps in the Reactor context that Spring hands to the coroutine). Null outside.
 */
public suspend fun currentLockHold(): LockHold? {
    val context = currentCoroutineContext()
    context[LockHold]?.let { return it }
    val reactor = context[kotlinx.coroutines.reactor.ReactorContext]?.context ?: return null
    val handle = reactor.getOrDefault<LockHandle>(SPRING_CONTEXT_KEY, null) ?: return null
    return LockHold(handle, backend = "", outer = null)
}

/** The Reactor context key of the starter's `ReactiveLockContext.KEY` (a test checks they agree). */
internal const val SPRING_CONTEXT_KEY: String = "dev.distlock.spring.LockHandle"

private val FOREVER: java.time.Duration = java.time.Duration.ofSeconds(Long.MAX_VALUE)

private suspend fun refuseReentry(lock: FencedLock) {
    val held = currentCoroutineContext()[LockHold]?.find(lock.key(), lock.backendName()) ?: return
    throw IllegalStateException(
        "Lock '${lock.key()}' on ${lock.backendName()} is already held by an enclosing withLock block of this" +
            " coroutine (token ${held.token.value()}); coroutine holds are not reentrant. Use the enclosing hold" +
            " (coroutineContext[LockHold]) instead of locking the key again."
    )
}

/**
 * Suspends until the attempt ends. Cancelling the coroutine cancels the attempt (the engine releases a
 * grant that arrives after that). A grant that was delivered but not yet taken up by the coroutine when it
 * was cancelled is released here, so a cancelled caller never leaves a hold behind.
 */
private suspend fun awaitGrant(attempt: CompletableFuture<Optional<LockHandle>>): LockHandle? =
    suspendCancellableCoroutine { continuation ->
        attempt.whenComplete { result, error ->
            if (error != null) {
                continuation.resumeWithException(
                    if (error is CompletionException && error.cause != null) error.cause!! else error
                )
            } else {
                continuation.resume(result.orElse(null)) { _, granted, _ -> granted?.let(::releaseQuietly) }
            }
        }
        continuation.invokeOnCancellation { attempt.cancel(true) }
    }

private suspend fun release(handle: LockHandle) {
    withContext(NonCancellable + Dispatchers.IO) { handle.close() }
}

private fun releaseQuietly(handle: LockHandle) {
    try {
        handle.close()
    } catch (e: RuntimeException) {
        // Nobody is left to tell. The coroutine was cancelled. The engine logs a failed release at WARN.
    }
}
