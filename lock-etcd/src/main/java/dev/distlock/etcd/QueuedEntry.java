package dev.distlock.etcd;

import io.etcd.jetcd.ByteSequence;

/**
 * One attempt's entry in a key's queue, on the registry's session lease.
 *
 * @param key the entry's etcd key
 * @param value the entry's value, unique to the attempt, which deletes compare
 * @param session the session lease the entry lives on
 */
record QueuedEntry(ByteSequence key, ByteSequence value, Session session) {}
