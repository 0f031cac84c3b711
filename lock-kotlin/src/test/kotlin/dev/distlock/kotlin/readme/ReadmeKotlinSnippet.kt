// The README's Kotlin snippet, compiled with the module's tests (ReadmeKotlinTest keeps the two the same).
// readme:kotlin start
package com.example.orders

import dev.distlock.core.LockRegistry
import dev.distlock.kotlin.currentLockHold
import dev.distlock.kotlin.withLock
import dev.distlock.spring.DistributedLock
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import org.springframework.stereotype.Service

interface Stock {
    suspend fun reserve(sku: String, quantity: Int, fencingToken: Long): Int
    suspend fun restock(sku: String, fencingToken: Long): Int
}

@Service
class Reservations(private val locks: LockRegistry, private val stock: Stock) {

    // Suspends (no thread waits) until the key is free, at most 5 s; the hold is released when the
    // block returns, throws or is cancelled.
    suspend fun reserve(sku: String, quantity: Int): Int =
        locks.withLock("stock:$sku", wait = 5.seconds) { hold ->
            stock.reserve(sku, quantity, fencingToken = hold.token.value())
        }
}

// Open for Spring's proxy through the kotlin-spring compiler plugin (build setup above).
@Service
class Restocking(private val stock: Stock) {

    // Holds "restock:<sku>" until the function returns, fails or its caller is cancelled.
    @DistributedLock(name = "restock", key = "#sku", waitTime = "2s")
    suspend fun restock(sku: String): Int = stock.restock(sku, currentLockHold()!!.token.value())

    // Holds "report" from the start of the collection until it completes or is cancelled.
    @DistributedLock(name = "report", waitTime = "0s")
    fun report(skus: List<String>): Flow<String> = flow {
        for (sku in skus) emit("$sku restocked under token ${currentLockHold()!!.token.value()}")
    }
}
// readme:kotlin end
