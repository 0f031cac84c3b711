/**
 * The etcd backend: each hold is a key under {@code <namespace><encoded key>/} attached to
 * its own etcd lease; the key with the lowest create revision holds the lock, and its create
 * revision is the fencing token. Users call {@link dev.distlock.etcd.EtcdLockRegistry}; the
 * contract it keeps is DESIGN.md in the repository root.
 */
package dev.distlock.etcd;
