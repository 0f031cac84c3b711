package dev.distlock.core.fencing;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** A fence store in this JVM's memory, for one instance and for tests. */
public final class MemoryFenceStore implements FenceStore {

    private final ConcurrentMap<String, Fence> fences = new ConcurrentHashMap<>();

    @Override
    public Fence admitWrite(String resource, FencingClaim claim) {
        FenceRule.checkResource(resource);
        return fences.compute(resource, (name, current) -> FenceRule.admitWrite(name, current, claim));
    }

    @Override
    public void admitRead(String resource, FencingClaim claim) {
        FenceRule.admitRead(resource, fences.get(FenceRule.checkResource(resource)), claim);
    }

    @Override
    public Optional<Fence> fenceOf(String resource) {
        return Optional.ofNullable(fences.get(FenceRule.checkResource(resource)));
    }

    @Override
    public Fence rebind(String resource, FencingClaim claim) {
        Fence fence = new Fence(FenceRule.checkResource(resource), claim.backend(), claim.lockKey(), claim.token());
        fences.put(resource, fence);
        return fence;
    }
}
