package dev.distlock.redis;

import java.util.List;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Scripts run on the calling thread, over a connection of the factory per call. They serve clients other than Lettuce,
 * which bound each call with their own timeout.
 */
final class BlockingScripts {

    private final RedisConnectionFactory factory;

    BlockingScripts(RedisConnectionFactory factory) {
        this.factory = factory;
    }

    /** Runs {@code call} with EVALSHA, and with EVAL should the server answer NOSCRIPT. */
    Object run(ScriptCall<?> call) {
        ReturnType type = ReturnType.fromJavaType(
                call.script().output() == io.lettuce.core.ScriptOutputType.INTEGER ? Long.class : List.class);
        try (RedisConnection blocking = factory.getConnection()) {
            byte[][] keysAndArgs = call.keysAndArgs();
            try {
                return blocking.scriptingCommands()
                        .evalSha(call.script().sha1(), type, call.keys().length, keysAndArgs);
            } catch (DataAccessException e) {
                if (String.valueOf(e.getMessage()).contains("NOSCRIPT")) {
                    return blocking.scriptingCommands()
                            .eval(call.script().body(), type, call.keys().length, keysAndArgs);
                }
                throw e;
            }
        }
    }

    /** PING and SCRIPT LOAD of every script, with the client's own timeout. */
    void verify() {
        try (RedisConnection blocking = factory.getConnection()) {
            blocking.ping();
            LockScripts.ALL.forEach(script -> blocking.scriptingCommands().scriptLoad(script.body()));
        }
    }
}
