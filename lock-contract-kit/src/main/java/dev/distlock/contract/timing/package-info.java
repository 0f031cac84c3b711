/**
 * Timing checks that tell a broken time promise from a busy machine: {@link dev.distlock.contract.timing.StallProbe}
 * measures how late each JVM ran, child JVMs included, and {@link dev.distlock.contract.timing.TimingBound} repeats
 * an overrun that a stall explains, at most twice (the "Tests and servers" section of the design).
 */
package dev.distlock.contract.timing;
