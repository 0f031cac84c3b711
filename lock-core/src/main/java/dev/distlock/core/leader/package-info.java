/**
 * Leader election over any {@link dev.distlock.core.LockRegistry}. Candidates campaign for a name
 * with {@link dev.distlock.core.leader.Leadership#campaign}, and the one that holds the name's lock
 * leads. Each term's epoch is the fencing token of that hold, so a resource can refuse a deposed
 * leader's late writes exactly as it refuses a lock holder's. Any instance reads who leads from the server
 * ({@link dev.distlock.core.leader.Leadership#leaderOf}, {@link dev.distlock.core.leader.Leadership#observe}),
 * with the value the leader publishes with its term.
 */
package dev.distlock.core.leader;
