package dev.distlock.core.multi;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.fencing.FencingClaim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One hold of every key of a {@link MultiLock}, each key's hold with its own fencing token. Tokens of
 * different keys are never compared. Show each resource the token of the key that guards it ({@link
 * #token(String)}, {@link #claim(String)}). Losing any key's hold loses the whole hold: {@link #isValid()}
 * turns false and the {@link #onLost} callbacks run once. Closing releases every key, in reverse order.
 */
public final class MultiLockHandle implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MultiLockHandle.class);

    private final String backend;
    private final List<String> keys;
    private final List<LockHandle> handles;
    private final Map<String, LockHandle> byKey = new LinkedHashMap<>();
    private final Map<String, FencingToken> tokens = new LinkedHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object monitor = new Object();

    /** True from the first key's loss on. Guarded by {@link #monitor}. */
    private boolean lost;

    /** The callbacks waiting for the loss, null once they ran. Guarded by {@link #monitor}. */
    private List<Runnable> callbacks = new ArrayList<>();

    /** @param handles one hold per key, in the order they were taken */
    MultiLockHandle(String backend, List<LockHandle> handles) {
        this.backend = backend;
        this.handles = List.copyOf(handles);
        List<String> names = new ArrayList<>(handles.size());
        for (LockHandle handle : this.handles) {
            names.add(handle.key());
            byKey.put(handle.key(), handle);
            tokens.put(handle.key(), handle.token());
        }
        this.keys = List.copyOf(names);
        for (LockHandle handle : this.handles) {
            handle.onLost(this::keyLost); // runs at once for a key already lost
        }
    }

    /** The keys held, in the order they were taken (their natural order). */
    public List<String> keys() {
        return keys;
    }

    /**
     * The fencing token of {@code key}'s hold. Compare it only with tokens of the same key.
     *
     * @throws IllegalArgumentException when {@code key} is not one of {@link #keys()}
     */
    public FencingToken token(String key) {
        return handle(key).token();
    }

    /** Every key's fencing token, in the order the keys were taken. */
    public Map<String, FencingToken> tokens() {
        return Collections.unmodifiableMap(tokens);
    }

    /**
     * The claim to show the resource guarded by {@code key}, naming the backend, the key and its token.
     *
     * @throws IllegalArgumentException when {@code key} is not one of {@link #keys()}
     */
    public FencingClaim claim(String key) {
        return new FencingClaim(backend, key, token(key));
    }

    /**
     * False once this hold was released or any key's hold is known lost (renewal failed, fixed lease ran
     * out, session expired, force-released). A holder that finds it false must stop writing.
     */
    public boolean isValid() {
        if (closed.get()) {
            return false;
        }
        synchronized (monitor) {
            if (lost) {
                return false;
            }
        }
        for (LockHandle handle : handles) {
            if (!handle.isValid()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs {@code callback} once when the first key's hold is known lost, never on a normal release. Added
     * after the loss, it runs at once. Callbacks run on a registry thread and must not block.
     */
    public void onLost(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        synchronized (monitor) {
            if (!lost) {
                callbacks.add(callback);
                return;
            }
        }
        run(callback);
    }

    /**
     * For a fixed lease, makes every key's lease end {@code leaseTime} from now, key by key in order.
     *
     * @return false when this hold was released or a key's hold is lost (the keys after it are not extended)
     * @throws IllegalStateException for a hold whose leases the watchdog renews
     */
    public boolean extend(Duration leaseTime) {
        if (closed.get()) {
            return false;
        }
        for (LockHandle handle : handles) {
            if (!handle.extend(leaseTime)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Keeps every key held until at least {@code minimum} after its acquisition, even when released earlier
     * (see {@link LockHandle#holdAtLeast(Duration)}).
     */
    public void holdAtLeast(Duration minimum) {
        for (LockHandle handle : handles) {
            handle.holdAtLeast(minimum);
        }
    }

    /**
     * Releases every key, in reverse order. A release that throws does not stop the others. The first
     * failure is thrown once all were tried, with the later ones suppressed. Closing twice releases once.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            RuntimeException failure = releaseInReverse(handles);
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** Closes {@code handles} last first. Returns the first failure with the later ones suppressed, or null. */
    static RuntimeException releaseInReverse(List<LockHandle> handles) {
        RuntimeException first = null;
        for (int i = handles.size() - 1; i >= 0; i--) {
            try {
                handles.get(i).close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        return first;
    }

    private LockHandle handle(String key) {
        LockHandle handle = byKey.get(key);
        if (handle == null) {
            throw new IllegalArgumentException("The hold of locks " + keys + " on " + backend + " has no key '" + key
                    + "'; ask for one of its keys (as passed to MultiLock.of, without the key prefix).");
        }
        return handle;
    }

    private void keyLost() {
        List<Runnable> due;
        synchronized (monitor) {
            if (lost || closed.get()) {
                return; // a reentrant outer owner's hold may be lost after this handle was closed
            }
            lost = true;
            due = callbacks;
            callbacks = null;
        }
        due.forEach(this::run);
    }

    private void run(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.warn("A lease-loss callback of locks {} on {} failed", keys, backend, e);
        }
    }

    @Override
    public String toString() {
        return "MultiLockHandle[tokens=" + tokens + ", valid=" + isValid() + "]";
    }
}
