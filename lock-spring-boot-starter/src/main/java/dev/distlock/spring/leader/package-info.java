/**
 * Leader election in Spring applications. {@link dev.distlock.spring.leader.LeaderElection} campaigns for the names
 * in {@code distributed-lock.leadership.names} (and any asked for later), and publishes
 * {@link dev.distlock.spring.leader.LeadershipGrantedEvent} and
 * {@link dev.distlock.spring.leader.LeadershipRevokedEvent}. {@link dev.distlock.spring.leader.LeaderOnly} runs a
 * method only on the leader. {@link dev.distlock.spring.leader.LeaderObservation} tells any instance who leads
 * (holder, epoch, value) and publishes {@link dev.distlock.spring.leader.LeaderChangedEvent} for the names in
 * {@code distributed-lock.leadership.observed-names}.
 */
package dev.distlock.spring.leader;
