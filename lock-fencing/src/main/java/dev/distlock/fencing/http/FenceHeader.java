package dev.distlock.fencing.http;

import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.FencingClaim;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The request header that carries a holder's {@link FencingClaim}: {@value #NAME}, in the parameter
 * syntax of HTTP Structured Fields (RFC 9651), e.g. {@code backend=redis; key="order:42";
 * token=1790000000000123}. The key is a quoted string ({@code \"} and {@code \\} escaped), or a
 * display string ({@code %"...")}, UTF-8 percent-encoded) when it has characters outside printable
 * ASCII. The token is a positive decimal of up to 19 digits (a Java long, more than the 15 digits of
 * a Structured Field integer, since clock-based tokens have 16). Unknown parameters are ignored.
 */
public final class FenceHeader {

    /** The header's name. */
    public static final String NAME = "Distlock-Fence";

    /** The longest header value accepted. */
    public static final int MAX_LENGTH = 4096;

    private FenceHeader() {}

    /** The header value that presents {@code claim}. */
    public static String format(FencingClaim claim) {
        return "backend=" + (isToken(claim.backend()) ? claim.backend() : quoted(claim.backend())) + "; key="
                + (isPrintableAscii(claim.lockKey()) ? quoted(claim.lockKey()) : displayString(claim.lockKey()))
                + "; token=" + claim.token().value();
    }

    /**
     * The claim a header value presents.
     *
     * @throws InvalidFenceHeaderException when the value does not parse, or lacks a parameter
     */
    public static FencingClaim parse(String value) {
        if (value == null) {
            throw new InvalidFenceHeaderException("is missing");
        }
        if (value.length() > MAX_LENGTH) {
            throw new InvalidFenceHeaderException("has " + value.length() + " characters; the limit is " + MAX_LENGTH);
        }
        Map<String, String> parameters = new Parser(value).parameters();
        String backend = required(parameters, "backend");
        String key = required(parameters, "key");
        String token = required(parameters, "token");
        if (!token.matches("[0-9]{1,19}")) {
            throw new InvalidFenceHeaderException("has token '" + token + "'; expected a positive decimal integer");
        }
        long number;
        try {
            number = Long.parseLong(token);
        } catch (NumberFormatException e) {
            throw new InvalidFenceHeaderException("has token " + token + ", above the largest fencing token");
        }
        if (number <= 0) {
            throw new InvalidFenceHeaderException("has token " + token + "; fencing tokens are positive");
        }
        if (backend.isBlank() || key.isBlank()) {
            throw new InvalidFenceHeaderException("has a blank backend or key");
        }
        return new FencingClaim(backend, key, FencingToken.of(number));
    }

    private static String required(Map<String, String> parameters, String name) {
        String value = parameters.get(name);
        if (value == null) {
            throw new InvalidFenceHeaderException(
                    "has no '" + name + "' parameter; expected backend=<name>; key=\"<lock key>\"; token=<number>");
        }
        return value;
    }

    private static boolean isToken(String text) {
        return text.matches("[A-Za-z*][A-Za-z0-9:/!#$%&'*+\\-.^_`|~]*");
    }

    private static boolean isPrintableAscii(String text) {
        return text.chars().allMatch(c -> c >= 0x20 && c <= 0x7e);
    }

    private static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static String displayString(String text) {
        StringBuilder out = new StringBuilder("%\"");
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c == '%' || c == '"' || c < 0x20 || c > 0x7e) {
                out.append('%').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
            } else {
                out.append((char) c);
            }
        }
        return out.append('"').toString();
    }

    /** Reads {@code name=value} parameters separated by semicolons, with optional spaces around them. */
    private static final class Parser {

        private final String text;
        private int at;

        Parser(String text) {
            this.text = text;
        }

        Map<String, String> parameters() {
            Map<String, String> parameters = new HashMap<>();
            skipSpaces();
            while (at < text.length()) {
                String name = name();
                expect('=');
                String value = value(name);
                if (parameters.put(name, value) != null) {
                    throw invalid("has parameter '" + name + "' twice");
                }
                skipSpaces();
                if (at < text.length()) {
                    expect(';');
                    skipSpaces();
                    if (at == text.length()) {
                        throw invalid("ends with ';'");
                    }
                }
            }
            return parameters;
        }

        private String name() {
            int start = at;
            while (at < text.length() && "abcdefghijklmnopqrstuvwxyz0123456789_-.*".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            if (at == start) {
                throw invalid("has no parameter name at position " + start);
            }
            return text.substring(start, at);
        }

        private String value(String name) {
            if (at >= text.length()) {
                throw invalid("has no value for '" + name + "'");
            }
            char first = text.charAt(at);
            if (first == '"') {
                return string(name);
            }
            if (first == '%' && at + 1 < text.length() && text.charAt(at + 1) == '"') {
                return displayString(name);
            }
            int start = at;
            while (at < text.length() && text.charAt(at) != ';' && text.charAt(at) != ' ' && text.charAt(at) != '\t') {
                char c = text.charAt(at);
                if (c <= 0x20 || c >= 0x7f || c == '"' || c == ',') {
                    throw invalid("has character '" + c + "' in the value of '" + name + "'");
                }
                at++;
            }
            if (at == start) {
                throw invalid("has no value for '" + name + "'");
            }
            return text.substring(start, at);
        }

        private String string(String name) {
            StringBuilder out = new StringBuilder();
            at++;
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c == '\\') {
                    if (at == text.length() || (text.charAt(at) != '"' && text.charAt(at) != '\\')) {
                        throw invalid("has a bad escape in the value of '" + name + "'");
                    }
                    c = text.charAt(at++);
                } else if (c < 0x20 || c > 0x7e) {
                    throw invalid("has a character outside printable ASCII in the value of '" + name
                            + "'; use a display string (%\"...\") for such keys");
                }
                out.append(c);
            }
            throw invalid("has an unterminated string in the value of '" + name + "'");
        }

        private String displayString(String name) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            at += 2;
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '"') {
                    try {
                        return StandardCharsets.UTF_8
                                .newDecoder()
                                .onMalformedInput(CodingErrorAction.REPORT)
                                .onUnmappableCharacter(CodingErrorAction.REPORT)
                                .decode(ByteBuffer.wrap(bytes.toByteArray()))
                                .toString();
                    } catch (CharacterCodingException e) {
                        throw invalid("has a value of '" + name + "' that is not UTF-8");
                    }
                }
                if (c == '%') {
                    int high = at < text.length() ? Character.digit(text.charAt(at), 16) : -1;
                    int low = at + 1 < text.length() ? Character.digit(text.charAt(at + 1), 16) : -1;
                    if (high < 0 || low < 0) {
                        throw invalid("has a bad percent escape in the value of '" + name + "'");
                    }
                    bytes.write(high << 4 | low);
                    at += 2;
                } else if (c < 0x20 || c > 0x7e) {
                    throw invalid("has a character outside printable ASCII in the value of '" + name + "'");
                } else {
                    bytes.write(c);
                }
            }
            throw invalid("has an unterminated display string in the value of '" + name + "'");
        }

        private void expect(char wanted) {
            if (at >= text.length() || text.charAt(at) != wanted) {
                throw invalid("expected '" + wanted + "' at position " + at);
            }
            at++;
        }

        private void skipSpaces() {
            while (at < text.length() && (text.charAt(at) == ' ' || text.charAt(at) == '\t')) {
                at++;
            }
        }

        private InvalidFenceHeaderException invalid(String problem) {
            return new InvalidFenceHeaderException(problem);
        }
    }
}
