package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What the acquire script answered: granted with a token, or held by another owner for
 * {@code holderLeaseMillis} more; {@code sentAtNanos} is when the script was sent.
 */
record AcquireReply(boolean granted, long token, long holderLeaseMillis, long sentAtNanos) {

    static AcquireReply parse(Object reply, long sentAtNanos) {
        if (!(reply instanceof List<?> values) || values.size() != 2) {
            throw new IllegalStateException("Unexpected answer from acquire.lua: " + reply);
        }
        boolean granted = asLong(values.get(0)) == 1;
        long value = asLong(values.get(1));
        return granted ? new AcquireReply(true, value, 0, sentAtNanos) : new AcquireReply(false, 0, value, sentAtNanos);
    }

    private static long asLong(Object value) {
        if (value instanceof Long number) {
            return number;
        }
        if (value instanceof byte[] bytes) {
            return Long.parseLong(new String(bytes, StandardCharsets.US_ASCII));
        }
        if (value instanceof String text) {
            return Long.parseLong(text);
        }
        throw new IllegalStateException("Unexpected value in the answer of acquire.lua: " + value);
    }
}
