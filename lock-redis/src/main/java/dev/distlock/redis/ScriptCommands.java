package dev.distlock.redis;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/** The Lettuce commands the lock connection sends, a script by its SHA-1 or its text, and WAIT. */
final class ScriptCommands {

    private ScriptCommands() {}

    /** {@code EVALSHA <sha1> ..} with the script's keys and arguments. */
    static SentCommand evalSha(ScriptCall<?> call) {
        return command(CommandType.EVALSHA, call.script().sha1Bytes(), call);
    }

    /** {@code EVAL <body> ..}, for a server that answered NOSCRIPT. */
    static SentCommand eval(ScriptCall<?> call) {
        return command(CommandType.EVAL, call.script().body(), call);
    }

    @SuppressWarnings("unchecked")
    private static SentCommand command(CommandType type, byte[] script, ScriptCall<?> call) {
        CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE)
                .add(script)
                .add(call.keys().length)
                .addKeys(call.keys())
                .addValues(call.args());
        CommandOutput<byte[], byte[], ?> output = call.script().output() == ScriptOutputType.INTEGER
                ? new IntegerOutput<>(ByteArrayCodec.INSTANCE)
                : new NestedMultiOutput<>(ByteArrayCodec.INSTANCE);
        return new SentCommand(new Command<>(type, (CommandOutput<byte[], byte[], Object>) output, args));
    }

    /** {@code WAIT replicas timeout}, which answers how many replicas acknowledged the writes sent before it. */
    @SuppressWarnings("unchecked")
    static AsyncCommand<byte[], byte[], Object> waitForReplicas(int replicas, long timeoutMillis) {
        CommandArgs<byte[], byte[]> args =
                new CommandArgs<>(ByteArrayCodec.INSTANCE).add(replicas).add(timeoutMillis);
        return new AsyncCommand<>(new Command<>(
                CommandType.WAIT,
                (CommandOutput<byte[], byte[], Object>)
                        (CommandOutput<byte[], byte[], ?>) new IntegerOutput<>(ByteArrayCodec.INSTANCE),
                args));
    }
}
