package dev.distlock.redis;

/**
 * One invocation of a {@link LuaScript}, with its keys and arguments ready to send and the lock key it concerns (for
 * error messages).
 *
 * @param <R> what the script's reply means
 */
record ScriptCall<R>(LuaScript<R> script, String lockKey, byte[][] keys, byte[][] args) {

    /** KEYS followed by ARGV, as clients without a separate keys parameter want them. */
    byte[][] keysAndArgs() {
        byte[][] all = new byte[keys.length + args.length][];
        System.arraycopy(keys, 0, all, 0, keys.length);
        System.arraycopy(args, 0, all, keys.length, args.length);
        return all;
    }
}
