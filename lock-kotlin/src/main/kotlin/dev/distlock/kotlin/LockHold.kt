package dev.distlock.kotlin

import dev.distlock.core.FencingToken
import dev.distlock.core.LockHandle
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext

/**
 * The hold of the enclosing [withLock] block (or of the enclosing `@DistributedLock` suspend function,
 * see [currentLockHold]), as an element of the coroutine context: `coroutineContext[LockHold]`.
 *
 * The hold belongs to its [handle], not to a thread (contract 12), so the block may move between
 * threads freely. Blocks nest. [outer] is the hold of the enclosing block, if any.
 */
public class LockHold internal constructor(
    /** The handle of the hold. [withLock] closes it, the block must not. */
    public val handle: LockHandle,
    /** The backend's name, to tell keys of different backends apart. */
    public val backend: String,
    /** The hold of the enclosing block, or null. */
    public val outer: LockHold?,
) : AbstractCoroutineContextElement(LockHold) {

    /** The key of the hold. */
    public val lockKey: String get() = handle.key()

    /** The fencing token of the hold. Send it with every write to a fenced resource. */
    public val token: FencingToken get() = handle.token()

    /** False once the hold was released or its lease is known lost. Stop writing then. */
    public val isValid: Boolean get() = handle.isValid

    /** The hold of [key] on [backend] in this chain of nested blocks, or null. */
    internal fun find(key: String, backend: String): LockHold? {
        var hold: LockHold? = this
        while (hold != null) {
            if (hold.lockKey == key && hold.backend == backend) {
                return hold
            }
            hold = hold.outer
        }
        return null
    }

    override fun toString(): String = "LockHold(key=$lockKey, backend=$backend, token=${token.value()})"

    /** The key of the element in the coroutine context. */
    public companion object Key : CoroutineContext.Key<LockHold>
}
