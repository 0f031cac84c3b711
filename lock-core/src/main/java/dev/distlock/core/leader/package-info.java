/**
 * Leader election over any {@link dev.distlock.core.LockRegistry}: candidates campaign for a name
 * with {@link dev.distlock.core.leader.Leadership#campaign}, and the one that holds the name's lock
 * leads. Each term's epoch is the fencing token of that hold, so a resource can refuse a deposed
 * leader's late writes exactly as it refuses a lock holder's.
 */
package dev.distlock.core.leader;
