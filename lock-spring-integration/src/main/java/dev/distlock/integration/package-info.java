/**
 * Spring Integration's {@code LockRegistry} over a distlock {@link dev.distlock.core.LockRegistry}:
 * {@link dev.distlock.integration.IntegrationLockRegistry}.
 */
package dev.distlock.integration;
