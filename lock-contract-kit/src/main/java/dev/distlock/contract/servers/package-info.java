/**
 * Servers under test: free loopback ports, a server run as a child process that a test can kill, pause and restart,
 * and what a test does when its server is missing (skipped on a developer's machine, failed on CI).
 */
package dev.distlock.contract.servers;
