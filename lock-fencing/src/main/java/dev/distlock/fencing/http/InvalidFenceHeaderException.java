package dev.distlock.fencing.http;

/** A {@value FenceHeader#NAME} header that does not parse. Its message names the header and the fault. */
public class InvalidFenceHeaderException extends IllegalArgumentException {

    InvalidFenceHeaderException(String problem) {
        super("The " + FenceHeader.NAME + " header " + problem
                + " (format: backend=redis; key=\"order:42\"; token=1790000000000123)");
    }
}
