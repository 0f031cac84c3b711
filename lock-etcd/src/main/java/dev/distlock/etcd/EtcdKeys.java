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
 * @param namespace the directory of all locks, ending with {@code /}
 */
record EtcdKeys(String namespace) {

    static final String DEFAULT_NAMESPACE = "/distlock/";

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
