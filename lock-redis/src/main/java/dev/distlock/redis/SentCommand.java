package dev.distlock.redis;

import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.RedisCommand;

/**
 * A lock script's command that records when it was handed to the connection. A lease it grants counts from then
 * (contract 4), not from time spent waiting for the connection or in the {@link SendQueue}.
 */
final class SentCommand extends AsyncCommand<byte[], byte[], Object> {

    private volatile long sentAtNanos = System.nanoTime();

    SentCommand(RedisCommand<byte[], byte[], Object> command) {
        super(command);
    }

    /**
     * {@link System#nanoTime()} just before the command was handed to the connection, or when it was made until then.
     */
    long sentAtNanos() {
        return sentAtNanos;
    }

    /** Called by {@link LettuceConnection} just before it hands the command to Lettuce. */
    void sending() {
        sentAtNanos = System.nanoTime();
    }
}
