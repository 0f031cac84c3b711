package dev.distlock.spring;

/**
 * The key expression of a {@link DistributedLock} method failed at run time or gave a blank key (blank keys are
 * refused, {@code docs/contract.md} rule 10). The message names the method, the expression and the cause. A web
 * request gets a {@code 500} problem detail naming the method only.
 */
public class LockKeyException extends IllegalArgumentException {

    private final String methodName;
    private final String expression;

    /**
     * @param annotation the annotation whose key failed, e.g. {@code @DistributedSemaphore}
     * @param methodName the method, as {@code Class.method()}
     * @param expression the key expression as written in the annotation
     * @param problem what went wrong, completing the message's sentence
     * @param cause the expression's failure, or null
     */
    public LockKeyException(String annotation, String methodName, String expression, String problem, Throwable cause) {
        super("The " + annotation + " key '" + expression + "' of " + methodName + " " + problem, cause);
        this.methodName = methodName;
        this.expression = expression;
    }

    /**
     * A failure that has no cause of its own, such as a blank key.
     *
     * @param annotation the annotation whose key failed, e.g. {@code @DistributedSemaphore}
     * @param methodName the method, as {@code Class.method()}
     * @param expression the key expression as written in the annotation
     * @param problem what went wrong, completing the message's sentence
     */
    public LockKeyException(String annotation, String methodName, String expression, String problem) {
        this(annotation, methodName, expression, problem, null);
    }

    /** The method, as {@code Class.method()}. */
    public String methodName() {
        return methodName;
    }

    /** The key expression as written in the annotation. */
    public String expression() {
        return expression;
    }
}
