/**
 * The etcd backend. Each hold or waiter is a key under {@code <namespace><encoded key>/} on the
 * registry's session lease. The key with the lowest create revision holds the lock, and its create
 * revision is the fencing token. Users call {@link dev.distlock.etcd.EtcdLockRegistry}, which keeps
 * the contract in {@code docs/contract.md}.
 */
package dev.distlock.etcd;
