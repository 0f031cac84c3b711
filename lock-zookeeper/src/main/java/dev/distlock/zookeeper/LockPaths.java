package dev.distlock.zookeeper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.zookeeper.common.PathUtils;

/**
 * Where locks live. Each key has one node under the root path, named by an encoding that keeps any key inside the root
 * and inside ZooKeeper's path rules, and its lock nodes go below it.
 */
final class LockPaths {

    /**
     * The longest full key, in chars. A char encodes to at most 9 (three UTF-8 bytes as {@code %XX}), so a key node
     * name stays under 9,216 chars. That is far below the 1 MiB ({@code jute.maxbuffer}) that bounds every request and
     * the child list that names it.
     */
    static final int MAX_KEY_LENGTH = 1024;

    /**
     * The name of plain lock nodes. ZooKeeper appends the 10-digit sequence, and Curator's protection prefixes a UUID.
     */
    static final String LOCK_NODE = "lock-";

    /** Names of the nodes of read/write locks, which live under the key's {@link #readWriteKeyPath} instead. */
    static final String READ_NODE = "read-";

    static final String WRITE_NODE = "write-";

    /** A read hold taken by the thread that holds the key's write lock. */
    static final String DOWNGRADE_NODE = "downgrade-";

    private static final List<String> NODE_NAMES = List.of(LOCK_NODE, READ_NODE, WRITE_NODE, DOWNGRADE_NODE);

    /** Appended to the encoded key for the node of the key's read/write lock. Encoding never yields a {@code :}. */
    private static final String READ_WRITE_SUFFIX = ":rw";

    private static final int SEQUENCE_DIGITS = 10;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final String root;

    LockPaths(String rootPath) {
        this.root = normalizeRoot(rootPath);
    }

    String root() {
        return root;
    }

    /** The node of {@code fullKey}, one child of the root whatever the key contains. */
    String keyPath(String fullKey) {
        return root + '/' + encode(fullKey);
    }

    /**
     * The node of {@code fullKey}'s read/write lock, also a child of the root. It is a sibling of the plain lock's
     * node, so the two never share a queue.
     */
    String readWriteKeyPath(String fullKey) {
        return keyPath(fullKey) + READ_WRITE_SUFFIX;
    }

    /**
     * The name of the lock nodes of one owner's attempt, {@code <owner>-<nodeName>}. The attempt finds its node by it
     * when the answer to its create was lost. {@code owner} holds no {@code /}.
     */
    static String ownedNodeName(String owner, String nodeName) {
        return owner + '-' + nodeName;
    }

    /** What to pass to Curator to create a node named {@code nodeName} (one of the names above) under {@code keyPath}. */
    static String lockNodePath(String keyPath, String nodeName) {
        return keyPath + '/' + nodeName;
    }

    /**
     * Percent-encodes every char except {@code [A-Za-z0-9_-]}, as the UTF-8 bytes of its code
     * point ({@code %} included, so the mapping is injective). A lone surrogate is encoded as its
     * own three-byte form, so it neither collides with {@code ?} nor with another key. The
     * result has no {@code /} and no {@code .}, so it cannot leave the root, and holds nothing
     * that ZooKeeper rejects.
     */
    static String encode(String key) {
        StringBuilder out = new StringBuilder(key.length() + 16);
        for (int i = 0; i < key.length(); ) {
            int cp = key.codePointAt(i);
            i += Character.charCount(cp);
            if (isPlain(cp)) {
                out.append((char) cp);
            } else if (cp < 0x80) {
                appendByte(out, cp);
            } else if (cp < 0x800) {
                appendByte(out, 0xC0 | (cp >> 6));
                appendByte(out, 0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                appendByte(out, 0xE0 | (cp >> 12));
                appendByte(out, 0x80 | ((cp >> 6) & 0x3F));
                appendByte(out, 0x80 | (cp & 0x3F));
            } else {
                appendByte(out, 0xF0 | (cp >> 18));
                appendByte(out, 0x80 | ((cp >> 12) & 0x3F));
                appendByte(out, 0x80 | ((cp >> 6) & 0x3F));
                appendByte(out, 0x80 | (cp & 0x3F));
            }
        }
        return out.toString();
    }

    /**
     * The lock nodes among {@code children}, in the order they were created. They are sorted by the sequence number
     * ZooKeeper appended, whatever Curator's protection prefix. Other nodes are left out.
     */
    static List<String> queue(List<String> children) {
        List<String> locks = new ArrayList<>(children.size());
        for (String child : children) {
            if (sequenceOf(child) >= 0) {
                locks.add(child);
            }
        }
        locks.sort(Comparator.comparingLong(LockPaths::sequenceOf));
        return locks;
    }

    /** The node's sequence number, or -1 when it is not a lock node (of any of the names above). */
    static long sequenceOf(String node) {
        int start = node.length() - SEQUENCE_DIGITS;
        if (NODE_NAMES.stream().noneMatch(name -> isNamed(node, name))) {
            return -1;
        }
        for (int i = start; i < node.length(); i++) {
            if (!Character.isDigit(node.charAt(i)) || node.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(node, start, node.length(), 10);
    }

    /** Whether {@code node} is a lock node created under the name {@code name}, whatever its protection prefix. */
    static boolean isNamed(String node, String name) {
        int start = node.length() - SEQUENCE_DIGITS;
        return start >= name.length() && node.startsWith(name, start - name.length());
    }

    private static String normalizeRoot(String rootPath) {
        if (rootPath == null || rootPath.isBlank()) {
            throw new IllegalArgumentException("The ZooKeeper root path must not be blank; use e.g. /distlock");
        }
        String root = rootPath.strip();
        while (root.length() > 1 && root.endsWith("/")) {
            root = root.substring(0, root.length() - 1);
        }
        if (root.equals("/")) {
            throw new IllegalArgumentException("The ZooKeeper root path must not be '/': lock keys would sit beside"
                    + " ZooKeeper's own /zookeeper node. Use e.g. /distlock");
        }
        try {
            PathUtils.validatePath(root);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "The ZooKeeper root path '" + rootPath + "' is not a valid ZooKeeper path: " + e.getMessage(), e);
        }
        return root;
    }

    private static boolean isPlain(int cp) {
        return (cp >= 'a' && cp <= 'z')
                || (cp >= 'A' && cp <= 'Z')
                || (cp >= '0' && cp <= '9')
                || cp == '_'
                || cp == '-';
    }

    private static void appendByte(StringBuilder out, int b) {
        out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
    }
}
