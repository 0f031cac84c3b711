package dev.distlock.fencingharness;

import dev.distlock.core.fencing.FencingClaim;
import java.util.Arrays;
import java.util.List;

/**
 * A ledger that workers append operation ids to by read-modify-write, kept in one of the stores
 * under test. A fenced append shows its claim to the store before it reads; an unfenced one (claim
 * null) reads and writes plainly, as code without fencing would.
 */
interface Ledger extends AutoCloseable {

    /**
     * Reads the ledger, runs {@code afterRead} (where a fault may strike), writes it back with {@code op}
     * appended.
     *
     * @return true when the store accepted the write, false when it refused a stale token
     */
    boolean append(FencingClaim claim, String op, Runnable afterRead) throws Exception;

    /** The ledger's entries now. */
    List<String> entries() throws Exception;

    @Override
    default void close() throws Exception {}

    static List<String> split(String value) {
        return value == null || value.isEmpty() ? List.of() : Arrays.asList(value.split(","));
    }

    static String join(String value, String op) {
        return value == null || value.isEmpty() ? op : value + "," + op;
    }

    /** Opens the ledger {@code name} in {@code store} at {@code address}. */
    static Ledger open(String store, String address, String name) {
        return switch (store) {
            case "redis" -> new RedisLedger(address, name);
            case "http" -> new HttpLedger(address, name);
            default -> SqlLedgers.open(store, address, name);
        };
    }
}
