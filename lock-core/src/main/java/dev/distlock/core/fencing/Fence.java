package dev.distlock.core.fencing;

import dev.distlock.core.FencingToken;

/**
 * What a fenced resource remembers, which is the lock key and backend that guard it and the highest token it
 * accepted.
 *
 * @param resource the resource's name (a table row, a document, an endpoint)
 * @param backend the backend whose tokens the resource accepts
 * @param lockKey the one lock key whose tokens the resource accepts
 * @param highest the highest token accepted so far
 */
public record Fence(String resource, String backend, String lockKey, FencingToken highest) {}
