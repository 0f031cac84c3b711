package dev.distlock.spring;

/**
 * Why the starter cannot start the application, and what to do about it. Spring Boot prints both
 * parts as its failure analysis ("APPLICATION FAILED TO START ... Description ... Action").
 */
public class LockStartupException extends IllegalStateException {

    private final String description;
    private final String action;

    public LockStartupException(String description, String action, Throwable cause) {
        super(description + " " + action, cause);
        this.description = description;
        this.action = action;
    }

    public LockStartupException(String description, String action) {
        this(description, action, null);
    }

    /** What is wrong. */
    public String description() {
        return description;
    }

    /** What to change. */
    public String action() {
        return action;
    }
}
