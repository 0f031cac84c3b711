package dev.distlock.redis;

import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.RedisCommand;

/**
 * A lock script's command that records when it was handed to the connection: a lease it grants counts from then
 * (contract 4), not from time it spent waiting for the connection to be made or in the {@link SendQueue}.
 */
final class SentCommand extends AsyncCommand<byte[], byte[], Object> {

    private volatile long sentAtNanos = System.nanoTime();

    SentCommand(RedisCommand<byte[], byte[], Object> command) {
        super(command);
    }

    /** {@link System#nanoTime()} just before the command was handed to the connection; until then, when it was made. */
    long sentAtNanos() {
        return sentAtNanos;
    }

    /** Called by {@link LettuceConnection} just before it hands the command to Lettuce. */
    void sending() {
        sentAtNanos = System.nanoTime();
    }
}
