package dev.distlock.core;

/**
 * The backend could not be reached or answered with an error. The message names the
 * backend, its address and the key.
 */
public class LockBackendException extends LockException {

    private final String backend;
    private final String address;
    private final String key;

    public LockBackendException(String backend, String address, String key, String problem, Throwable cause) {
        super(
                backend + " backend at " + address + " failed" + (key == null ? "" : " for lock '" + key + "'") + ": "
                        + problem,
                cause);
        this.backend = backend;
        this.address = address;
        this.key = key;
    }

    public LockBackendException(String backend, String address, String key, String problem) {
        this(backend, address, key, problem, null);
    }

    public String backend() {
        return backend;
    }

    public String address() {
        return address;
    }

    /** The lock key, or null when the failure concerns no single key. */
    public String key() {
        return key;
    }
}
