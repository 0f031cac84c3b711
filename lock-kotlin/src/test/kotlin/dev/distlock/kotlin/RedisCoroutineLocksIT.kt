package dev.distlock.kotlin

import dev.distlock.core.LockRegistry
import dev.distlock.contract.servers.ManagedProcess
import dev.distlock.redis.RedisLockRegistry
import dev.distlock.redis.RedisServers
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory

/** The coroutine API on Redis (a redis-server child process): two registries, two owners. */
class RedisCoroutineLocksIT : CoroutineLockContract() {

    override val registry: LockRegistry = RedisLockRegistry.builder(factory).build()
    override val other: LockRegistry = RedisLockRegistry.builder(factory).build()

    @AfterEach
    fun close() {
        registry.close()
        other.close()
    }

    companion object {
        private lateinit var servers: RedisServers
        private lateinit var server: ManagedProcess
        private lateinit var factory: LettuceConnectionFactory

        @JvmStatic
        @BeforeAll
        fun startServer() {
            servers = RedisServers()
            server = servers.start()
            factory = servers.factory(server)
        }

        @JvmStatic
        @AfterAll
        fun stopServer() {
            if (::servers.isInitialized) {
                servers.close()
            }
        }
    }
}
