/**
 * Timing checks that tell a broken time promise from a busy machine: {@link dev.distlock.contract.timing.StallProbe}
 * measures how late each JVM ran, child JVMs included, and {@link dev.distlock.contract.timing.TimingBound} repeats
 * an overrun that a stall explains, at most twice (see {@code docs/internals/kit.md}).
 */
package dev.distlock.contract.timing;
