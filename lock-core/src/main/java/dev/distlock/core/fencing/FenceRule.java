package dev.distlock.core.fencing;

/**
 * The acceptance rule of fencing, the one place every store applies it. A write is accepted when its token is not
 * below the highest the resource accepted, and raises it. An equal token is the same hold writing again. A read is
 * current when its token is not below the highest. One lock key of one backend guards a resource, and a token of any
 * other is refused whatever its value.
 */
public final class FenceRule {

    /** The longest resource name a store must keep. */
    public static final int MAX_RESOURCE_LENGTH = 200;

    private FenceRule() {}

    /**
     * The fence after {@code claim} writes to {@code resource}, whose fence is {@code current} (null
     * when nothing was accepted yet).
     *
     * @throws StaleTokenException when the token is below the highest accepted
     * @throws FenceMismatchException when the resource is guarded by another lock key or backend
     */
    public static Fence admitWrite(String resource, Fence current, FencingClaim claim) {
        checkResource(resource);
        if (current == null) {
            return new Fence(resource, claim.backend(), claim.lockKey(), claim.token());
        }
        admitRead(resource, current, claim);
        return claim.token().isNewerThan(current.highest())
                ? new Fence(resource, current.backend(), current.lockKey(), claim.token())
                : current;
    }

    /**
     * Checks that {@code claim} may read {@code resource} as current, because its token is not below the highest
     * accepted.
     *
     * @throws StaleTokenException when the token is below the highest accepted
     * @throws FenceMismatchException when the resource is guarded by another lock key or backend
     */
    public static void admitRead(String resource, Fence current, FencingClaim claim) {
        checkResource(resource);
        if (current == null) {
            return;
        }
        if (!current.backend().equals(claim.backend()) || !current.lockKey().equals(claim.lockKey())) {
            throw new FenceMismatchException(current, claim);
        }
        if (current.highest().isNewerThan(claim.token())) {
            throw new StaleTokenException(resource, claim.lockKey(), claim.token(), current.highest());
        }
    }

    /**
     * @throws IllegalArgumentException when the name is null, blank or over {@link #MAX_RESOURCE_LENGTH}
     */
    public static String checkResource(String resource) {
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("A fenced resource needs a non-blank name, was '" + resource + "'");
        }
        if (resource.length() > MAX_RESOURCE_LENGTH) {
            throw new IllegalArgumentException("Fenced resource name '" + resource.substring(0, 40) + "...' has "
                    + resource.length() + " characters; the limit is " + MAX_RESOURCE_LENGTH);
        }
        return resource;
    }
}
