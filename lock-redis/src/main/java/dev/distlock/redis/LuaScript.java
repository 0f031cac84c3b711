package dev.distlock.redis;

import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * One Lua script of this package's resources, with the Redis reply type it answers with and how that reply becomes a
 * value. Scripts run with EVALSHA and are loaded onto every server before they are needed ({@link RedisEndpoint}).
 *
 * @param <R> what the script's reply means
 */
final class LuaScript<R> {

    private final String resource;
    private final byte[] body;
    private final String sha1;
    private final byte[] sha1Bytes;
    private final ScriptOutputType output;
    private final Function<Object, R> reading;

    private LuaScript(String resource, ScriptOutputType output, Function<Object, R> reading) {
        this(resource, read(resource), output, reading);
    }

    private LuaScript(String resource, byte[] body, ScriptOutputType output, Function<Object, R> reading) {
        this.resource = resource;
        this.body = body;
        this.sha1 = sha1(body);
        this.sha1Bytes = sha1.getBytes(StandardCharsets.US_ASCII);
        this.output = output;
        this.reading = reading;
    }

    /**
     * This script with the text of the resource {@code prelude} before its own. Redis runs every script on its own, so
     * Lua that several scripts share travels with each of them.
     */
    LuaScript<R> after(String prelude) {
        byte[] shared = read(prelude);
        byte[] both = Arrays.copyOf(shared, shared.length + body.length);
        System.arraycopy(body, 0, both, shared.length, body.length);
        return new LuaScript<>(resource, both, output, reading);
    }

    /** A script answering 1 (done) or 0 (not done). */
    static LuaScript<Boolean> yesNo(String resource) {
        return integer(resource, reply -> reply == 1);
    }

    /** A script answering an integer, read by {@code reading}. */
    static <R> LuaScript<R> integer(String resource, LongFunction<R> reading) {
        return new LuaScript<>(resource, ScriptOutputType.INTEGER, reply -> reading.apply(asLong(reply, resource)));
    }

    /** A script answering an array, read by {@code reading}. */
    static <R> LuaScript<R> array(String resource, Function<List<?>, R> reading) {
        return new LuaScript<>(resource, ScriptOutputType.MULTI, reply -> {
            if (!(reply instanceof List<?> values)) {
                throw new IllegalStateException("Unexpected answer from " + resource + ": " + reply);
            }
            return reading.apply(values);
        });
    }

    byte[] body() {
        return body.clone();
    }

    String sha1() {
        return sha1;
    }

    /** {@link #sha1()} as sent, a constant made with the script. */
    byte[] sha1Bytes() {
        return sha1Bytes;
    }

    ScriptOutputType output() {
        return output;
    }

    R read(Object reply) {
        return reading.apply(reply);
    }

    @Override
    public String toString() {
        return resource;
    }

    /** An integer of a script's reply, sent as an integer or as a decimal string. */
    static long asLong(Object value, String resource) {
        if (value instanceof Long number) {
            return number;
        }
        if (value instanceof byte[] bytes) {
            return parseDecimal(bytes);
        }
        if (value instanceof String text) {
            return Long.parseLong(text);
        }
        throw new IllegalStateException("Unexpected value in the answer of " + resource + ": " + value);
    }

    /** A decimal integer in ASCII, read without an intermediate string. */
    private static long parseDecimal(byte[] digits) {
        int length = digits.length;
        if (length == 0 || length > 18) {
            return Long.parseLong(new String(digits, StandardCharsets.US_ASCII));
        }
        boolean negative = digits[0] == '-';
        long value = 0;
        for (int i = negative ? 1 : 0; i < length; i++) {
            int digit = digits[i] - '0';
            if (digit < 0 || digit > 9 || (negative && length == 1)) {
                return Long.parseLong(new String(digits, StandardCharsets.US_ASCII));
            }
            value = value * 10 + digit;
        }
        return negative ? -value : value;
    }

    static String asText(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    private static byte[] read(String resource) {
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is missing from the lock-redis jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read Lua script " + resource, e);
        }
    }

    private static String sha1(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }
}
