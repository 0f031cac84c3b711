package dev.distlock.spring.metrics;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Lock meters, under {@code distributed-lock.metrics.*}. */
@ConfigurationProperties(prefix = "distributed-lock.metrics")
public class LockMetricsProperties {

    /** Whether to record lock meters (distlock.*) when a Micrometer MeterRegistry bean exists. */
    private boolean enabled = true;

    /**
     * Most distinct lock.name tag values (the part of a key before its first colon). Later names are tagged "other".
     */
    private int maxLockNames = 100;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getMaxLockNames() {
        return maxLockNames;
    }

    public void setMaxLockNames(int maxLockNames) {
        this.maxLockNames = maxLockNames;
    }
}
