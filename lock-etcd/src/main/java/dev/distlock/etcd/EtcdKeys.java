package dev.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * Where a lock's queue entries live in etcd. A plain entry is {@code <namespace><encoded
 * key>/<session lease id>}, with {@code -<entry number>} while that name is taken. A read/write
 * entry is {@code <namespace><encoded key>@rw/<kind><session lease id>}, with {@code .<thread id>}
 * or {@code -<entry number>}. Keys are percent-encoded, so no key reaches another key's queue.
 *
 * @param namespace the directory of all locks, ending with {@code /}
 */
record EtcdKeys(String namespace) {

    static final String DEFAULT_NAMESPACE = "/distlock/";

    /** After the encoded key, where its read/write queue starts. An encoded key has no {@code @}. */
    static final String READ_WRITE_SUFFIX = "@rw/";

    EtcdKeys {
        if (namespace == null || namespace.isBlank()) {
            throw new IllegalArgumentException("The etcd namespace must not be blank, was '" + namespace + "'");
        }
        if (!namespace.endsWith("/")) {
            namespace = namespace + "/";
        }
    }

    /** The queue of {@code key}, with one entry per hold or waiter. */
    ByteSequence queue(String key) {
        return bytes(namespace + encode(key) + "/");
    }

    /** The usual name of a queue entry of the session lease {@code sessionLeaseId}. */
    ByteSequence entry(String key, long sessionLeaseId) {
        return bytes(namespace + encode(key) + "/" + Long.toHexString(sessionLeaseId));
    }

    /** A name for a queue entry when the usual one is taken, with a number unique within the registry. */
    ByteSequence entry(String key, long sessionLeaseId, long number) {
        return bytes(namespace + encode(key) + "/" + Long.toHexString(sessionLeaseId) + "-" + Long.toHexString(number));
    }

    /** The read/write queue of {@code key}, with one entry per read or write hold or waiter. */
    ByteSequence readWriteQueue(String key) {
        return bytes(namespace + encode(key) + READ_WRITE_SUFFIX);
    }

    /** The usual name of a read/write entry of {@code kind} of the session lease {@code sessionLeaseId}. */
    ByteSequence readWriteEntry(String key, char kind, long sessionLeaseId) {
        return bytes(namespace + encode(key) + READ_WRITE_SUFFIX + kind + Long.toHexString(sessionLeaseId));
    }

    /** The usual name of a read entry of {@code kind} of one thread on the session lease {@code sessionLeaseId}. */
    ByteSequence readWriteEntryOfThread(String key, char kind, long sessionLeaseId, long thread) {
        return bytes(namespace + encode(key) + READ_WRITE_SUFFIX + kind + Long.toHexString(sessionLeaseId) + "."
                + Long.toHexString(thread));
    }

    /** A name for a read/write entry when the usual one is taken, with a number unique within the registry. */
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
