/**
 * The resource's half of fencing. It holds the rule a resource applies to the tokens it is shown ({@link
 * dev.distlock.core.fencing.FenceRule}), the value a holder presents ({@link dev.distlock.core.fencing.FencingClaim}),
 * what a resource remembers ({@link dev.distlock.core.fencing.Fence}) and the store that keeps it ({@link
 * dev.distlock.core.fencing.FenceStore}). SQL, Redis and HTTP stores build on these. The rules and which store fits
 * which case are in {@code docs/fencing.md}.
 */
package dev.distlock.core.fencing;
