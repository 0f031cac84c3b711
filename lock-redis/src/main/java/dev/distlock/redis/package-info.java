/**
 * Redis backend: {@link dev.distlock.redis.RedisLockRegistry} for one server or a Redis Cluster,
 * {@link dev.distlock.redis.RedlockLockRegistry} for Redlock over independent servers. The
 * contract they keep is in {@code docs/contract.md}.
 *
 * <h2>Words</h2>
 *
 * The same words as the other backends and the engine, each for one idea:
 * <ul>
 *   <li><em>hold</em>: one owner's possession of a key, from the grant to its release or loss (the
 *       lock key's value while it lasts); the backend's record of it is {@code RedisLease}, after the
 *       SPI's {@code BackendLease}.
 *   <li><em>lease</em>: the server-side expiry of a hold ({@code PX} on the key), renewed by the
 *       engine; "the holder's lease" in a reply is what is left of another owner's.
 *   <li><em>session</em>: none. Redis has no client session that holds locks: a hold outlives the
 *       connection that took it, and a lost connection ends nothing (unlike ZooKeeper's session and
 *       etcd's session lease).
 *   <li><em>attempt</em>: one run of an acquisition script for one request, granted or refused;
 *       a Redlock <em>round</em> is one attempt on every node.
 *   <li><em>wait</em>: what a request does between attempts while its deadline allows
 *       ({@code KeyWait}); <em>wake-up</em>: the release message that ends a wait early
 *       ({@code ReleaseSubscriber.Wakeup}), <em>re-check</em>: the longest a wait lasts without
 *       one; <em>withdraw</em>: the release that frees what a lost or unused attempt may have taken.
 *   <li><em>endpoint</em>: one deployment behind a connection factory ({@code RedisEndpoint}), its
 *       connection ({@code LettuceConnection}), the loading of its scripts ({@code ScriptLoading}),
 *       and the wording of its errors ({@code RedisErrors}).
 * </ul>
 *
 * <h2>Key layout</h2>
 *
 * For a lock key {@code k} (the registry's key prefix included; <code>&#123;</code>, <code>&#125;</code> and
 * {@code %} percent-encoded) there is one Redis key, the string {@code distlock:{k}}. While held its
 * value is {@code <owner> <token> <flags><holder>}: the owner (registry:thread:hold), the hold's
 * fencing token, two flag characters ({@code a} when the token may be ahead of the server's clock,
 * {@code w} when someone waits for a release message, {@code -} otherwise) and a readable
 * description of the holder (application, host, pid, thread). It expires with the lease
 * ({@code PX}), so taking a free key is one {@code SET NX PX} and a release one {@code DEL}. A
 * release deletes it, unless its token is ahead of the server's clock: then {@code #<token>}
 * alone stays, expiring once the clock has passed it (on one server that is at most a
 * millisecond; under Redlock, the clock offset between the nodes). While registries wait for the
 * key, its <em>queue</em> {@code distlock:{k}:q} (a sorted set: each waiting registry's wake-up
 * channel, scored by when it joined) lives beside it, and expires about a second after the last
 * waiter's last attempt; nothing else is ever written per key, so locking many distinct keys
 * leaves nothing behind. A release wakes a waiter only when one set {@code w}: it pops the first
 * registry in the queue and publishes the key's name on that registry's channel {@code
 * distlock:wake:<id>}, or on {@code distlock:released}, which every registry hears, when the queue
 * is empty. Each registry holds one subscription to both channels, opened at its first wait; its
 * waiters take places in queues once it is confirmed. A wake-up that no waiter of the registry takes
 * is passed on ({@code pass.lua}), and so is the place of a waiter that gives up. The thread that
 * receives the message sends the waiter's next attempt at once, and the waiter wakes with its
 * answer.
 *
 * <p>Keys travel as KEYS/ARGV, never inside script text. The scripts ({@code acquire.lua},
 * {@code renew.lua}, {@code release.lua}, {@code raise-fence.lua}, {@code holder.lua}, each sent
 * with {@code lock-value.lua}, which reads a key's value, before its own text) are resources of
 * this package, loaded onto the server at start and after every reconnect or
 * topology change, run with EVALSHA, and sent once more with EVAL should a server answer NOSCRIPT
 * anyway.
 *
 * <h2>Sending</h2>
 *
 * With Lettuce a registry keeps one connection and sends every script on it without blocking.
 * A first acquisition attempt and the release of a plain lock, when sent while other scripts of
 * the same registry await their replies, are held back and go out together, in one write, when
 * the last reply in flight arrives ({@code SendQueue}, the rule of Nagle's algorithm applied to
 * lock commands): many threads locking at once then share the client's writes and the server's
 * reads, which is most of what a lock call costs them, while a lone caller's script goes out at
 * once. Everything else goes at once, taking what is held with it: attempts sent because a key was
 * released (a hand-over should not wait) and read/write releases (the other side usually waits).
 * Order is kept, so a clean-up release always follows the attempt it cleans up after. Nothing
 * waits behind late replies for more than 2 ms.
 *
 * <h2>Fencing tokens and clocks</h2>
 *
 * A grant's token is {@code max(stored token + 1, server TIME in microseconds)}, set in the same
 * script that takes the lock. While the key exists its token makes tokens rise whatever the clocks
 * do.
 * Once it is gone (released, expired, lost in a restart without persistence or a failover to a
 * replica that had not received it) the next token comes from the clock of the server that grants
 * it, so tokens keep rising as long as that server's clock is not behind the clock of the server
 * that issued the earlier token by more than the time between the two grants: on one server, as
 * long as its clock does not step back; after a failover, as long as the promoted replica's clock
 * is not behind the old master's. Under Redlock the token is the largest of the majority's
 * tokens, written back to that majority while the lock is held.
 *
 * <h2>Time bounds</h2>
 *
 * A call waits for its answer at most the command timeout, cut to the caller's deadline plus the
 * registry's answer budget (contract 8; Redlock: 1.25 node timeouts, 250 ms by default, past the
 * deadline), so that a zero-wait attempt gets the whole budget for one round trip; the clean-up of an attempt that got no answer is sent without
 * waiting. Leases are sent to the server rounded up to whole milliseconds.
 */
package dev.distlock.redis;
