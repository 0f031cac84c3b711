package dev.distlock.redis;

import java.time.Duration;

/**
 * How long a call waits for Redis, at most the command timeout and no longer than its wait time plus the registry's
 * answer budget (contract 8).
 */
record CallLimits(Duration commandTimeout, Duration answerBudget) {}
