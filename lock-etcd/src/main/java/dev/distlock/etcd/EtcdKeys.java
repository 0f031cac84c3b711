package dev.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * Where a lock lives in etcd: {@code <namespace><encoded key>/<session lease id>-<entry number>}
 * (both in hex). The lock key
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

    /** The queue entry of one hold or waiter: named after the session lease and a number unique within it. */
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
