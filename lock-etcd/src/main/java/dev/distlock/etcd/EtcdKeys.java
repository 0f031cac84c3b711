package dev.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * Where a lock lives in etcd: {@code <namespace><encoded key>/<session lease id>} (in hex), or
 * {@code .../<session lease id>-<entry number>} while the first name is still taken by an earlier
 * entry of the same session. Reusing one name per session and key keeps etcd's index of the
 * queue small: every name ever used under a prefix stays in the index until etcd compacts. The lock key
 * is percent-encoded (everything but {@code A-Z a-z 0-9 - . _ ~}), so the encoding is
 * injective and no key can contain a {@code /} and reach another key's queue or leave the namespace.
 *
 * <p>A key's read/write lock has a queue of its own beside the plain one: {@code <namespace><encoded
 * key>@rw/<kind><session lease id>[.<thread id>|-<entry number>]}, kind {@code w}, {@code r} or {@code d} (see
 * {@link ReadWriteRule}). An encoded key never contains {@code @} or {@code /}, so this prefix is
 * neither under nor above any plain queue, nor under another key's read/write queue.
 *
 * @param namespace the directory of all locks, ending with {@code /}
 */
record EtcdKeys(String namespace) {

    static final String DEFAULT_NAMESPACE = "/distlock/";

    /** After the encoded key, where its read/write queue starts; {@code @} never occurs in an encoded key. */
    static final String READ_WRITE_SUFFIX = "@rw/";

    EtcdKeys {
        if (namespace == null || namespace.isBlank()) {
            throw new IllegalArgumentException("The etcd namespace must not be blank, was '" + namespace + "'");
        }
        if (!namespace.endsWith("/")) {
            namespace = namespace + "/";
        }
    }

    /** The queue of {@code key}: every hold and waiter of the key has one entry under it. */
    ByteSequence queue(String key) {
        return bytes(namespace + encode(key) + "/");
    }

    /** The usual name of a queue entry of the session lease {@code sessionLeaseId}. */
    ByteSequence entry(String key, long sessionLeaseId) {
        return bytes(namespace + encode(key) + "/" + Long.toHexString(sessionLeaseId));
    }

    /** A name for a queue entry when the usual one is taken: with a number unique within the session. */
    ByteSequence entry(String key, long sessionLeaseId, long number) {
        return bytes(namespace + encode(key) + "/" + Long.toHexString(sessionLeaseId) + "-" + Long.toHexString(number));
    }

    /** The read/write queue of {@code key}: every read and write hold and waiter of the key has one entry under it. */
    ByteSequence readWriteQueue(String key) {
        return bytes(namespace + encode(key) + READ_WRITE_SUFFIX);
    }

    /** The usual name of a read/write entry of {@code kind} of the session lease {@code sessionLeaseId}. */
    ByteSequence readWriteEntry(String key, char kind, long sessionLeaseId) {
        return bytes(namespace + encode(key) + READ_WRITE_SUFFIX + kind + Long.toHexString(sessionLeaseId));
    }

    /** The usual name of a read entry of {@code kind} of one thread of the registry whose session lease is {@code sessionLeaseId}. */
    ByteSequence readWriteEntryOfThread(String key, char kind, long sessionLeaseId, long thread) {
        return bytes(namespace + encode(key) + READ_WRITE_SUFFIX + kind + Long.toHexString(sessionLeaseId) + "."
                + Long.toHexString(thread));
    }

    /** A name for a read/write entry when the usual one is taken: with a number unique within the registry. */
    ByteSequence readWriteEntry(String key, char kind, long sessionLeaseId, long number) {
        return bytes(namespace + encode(key) + READ_WRITE_SUFFIX + kind + Long.toHexString(sessionLeaseId) + "-"
                + Long.toHexString(number));
    }

    static String encode(String key) {
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        StringBuilder encoded = new StringBuilder(utf8.length + 16);
        for (byte b : utf8) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                encoded.append((char) c);
            } else {
                encoded.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return encoded.toString();
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
