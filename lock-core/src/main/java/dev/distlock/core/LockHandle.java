package dev.distlock.core;

import java.time.Duration;

/**
 * One hold of a lock. Closing it releases that hold, and the key is freed when the owner's last hold is closed.
 * Closing twice is harmless.
 */
public interface LockHandle extends AutoCloseable {

    /** The key as the caller named it (without the registry's key prefix). */
    String key();

    /** The fencing token of this hold. Reentrant holds of one owner share it. */
    FencingToken token();

    /**
     * False once the hold was released or its lease is known to be lost (renewal failed, fixed lease ran out,
     * session expired). A holder that finds it false must stop writing. The token lets the resource refuse it if it
     * does not.
     */
    boolean isValid();

    /**
     * Runs {@code callback} once when this hold's lease is known lost (renewal refused or
     * failed past the lease, fixed lease ran out, session expired, registry closed while held),
     * never on a normal release. Added after the loss, it runs at once. Callbacks run on a
     * registry thread and must not block.
     */
    void onLost(Runnable callback);

    /**
     * Makes a fixed lease end {@code leaseTime} from now, on the server and here.
     *
     * @return false when the hold is already lost or released, and nothing was extended
     * @throws IllegalStateException for a hold whose lease the watchdog renews
     */
    boolean extend(Duration leaseTime);

    /**
     * Keeps the key held until at least {@code minimum} after the acquisition, even when released earlier. The release
     * then turns the hold into a fixed lease on the server that ends at that time, and the releasing thread goes on at
     * once. Keeps a short scheduled job from running
     * twice when the instances' schedulers fire a little apart. If this process dies meanwhile,
     * the key frees when the server-side lease (or, on ZooKeeper, the session) ends.
     */
    void holdAtLeast(Duration minimum);

    /** Releases this hold. Never throws because the lease was lost ({@code docs/contract.md}, rule 3). */
    @Override
    void close();
}
