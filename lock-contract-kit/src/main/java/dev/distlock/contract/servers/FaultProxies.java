package dev.distlock.contract.servers;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The {@link FaultProxy proxies} in front of one registry's servers, delayed together. */
public final class FaultProxies implements AutoCloseable {

    private final List<FaultProxy> proxies = new CopyOnWriteArrayList<>();
    private volatile Duration requestDelay = Duration.ZERO;
    private volatile Duration replyDelay = Duration.ZERO;

    /** A new proxy to {@code host:port} with the delays set so far. Connect to its {@link FaultProxy#port()}. */
    public FaultProxy to(String host, int port) {
        FaultProxy proxy = FaultProxy.to(host, port);
        proxy.delayRequests(requestDelay);
        proxy.delayReplies(replyDelay);
        proxies.add(proxy);
        return proxy;
    }

    /** See {@link FaultProxy#delayRequests}, for every proxy. */
    public void delayRequests(Duration delay) {
        requestDelay = delay;
        proxies.forEach(proxy -> proxy.delayRequests(delay));
    }

    /** See {@link FaultProxy#holdRequests}, for every proxy. */
    public void holdRequests(Duration duration) {
        proxies.forEach(proxy -> proxy.holdRequests(duration));
    }

    /** See {@link FaultProxy#delayReplies}, for every proxy. */
    public void delayReplies(Duration delay) {
        replyDelay = delay;
        proxies.forEach(proxy -> proxy.delayReplies(delay));
    }

    @Override
    public void close() {
        proxies.forEach(FaultProxy::close);
        proxies.clear();
    }
}
