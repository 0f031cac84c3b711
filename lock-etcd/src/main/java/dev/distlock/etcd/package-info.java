/**
 * The etcd backend: each hold or waiter is a key under {@code <namespace><encoded key>/} attached
 * to the registry's one session lease; the key with the lowest create revision holds the lock,
 * and its create revision is the fencing token. Read/write locks queue the same way under {@code
 * <namespace><encoded key>@rw/} by the rule of {@code ReadWriteRule}. Users call
 * {@link dev.distlock.etcd.EtcdLockRegistry}; the contract it keeps is {@code docs/contract.md} in the repository.
 */
package dev.distlock.etcd;
