package dev.distlock.fencingharness;

import dev.distlock.core.fencing.MemoryFenceStore;
import dev.distlock.fencing.http.FencedEndpoint;
import dev.distlock.fencing.http.FencedEndpointInterceptor;
import java.io.File;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * One instance of a ledger service on Spring MVC and embedded Tomcat: {@code /fenced/{name}} is a
 * {@link FencedEndpoint} (fences in memory, right for one instance), {@code /open/{name}} is not.
 */
final class LedgerHttpServer implements AutoCloseable {

    private final Tomcat tomcat = new Tomcat();
    private final AnnotationConfigWebApplicationContext web = new AnnotationConfigWebApplicationContext();

    LedgerHttpServer() throws Exception {
        File base = Files.createTempDirectory("fencing-harness-tomcat").toFile();
        tomcat.setBaseDir(base.getPath());
        tomcat.setHostname("127.0.0.1");
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", base.getPath());
        web.register(Service.class);
        Tomcat.addServlet(context, "dispatcher", new DispatcherServlet(web)).setLoadOnStartup(1);
        context.addServletMappingDecoded("/", "dispatcher");
        tomcat.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
    }

    @Override
    public void close() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
        web.close();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Service implements WebMvcConfigurer {

        @Override
        public void addInterceptors(InterceptorRegistry registry) {
            registry.addInterceptor(
                    new FencedEndpointInterceptor(new MemoryFenceStore(), List.of(), Duration.ofSeconds(30)));
        }

        @Bean
        LedgerController ledgerController() {
            return new LedgerController();
        }
    }

    @RestController
    static class LedgerController {

        private final Map<String, String> ledgers = new ConcurrentHashMap<>();

        @GetMapping("/fenced/{name}")
        @FencedEndpoint("ledger:{name}")
        String readFenced(@PathVariable("name") String name) {
            return ledgers.getOrDefault(name, "");
        }

        @PutMapping("/fenced/{name}")
        @FencedEndpoint("ledger:{name}")
        String writeFenced(@PathVariable("name") String name, @RequestBody(required = false) String value) {
            ledgers.put(name, value == null ? "" : value);
            return "";
        }

        @GetMapping("/open/{name}")
        String read(@PathVariable("name") String name) {
            return ledgers.getOrDefault(name, "");
        }

        @PutMapping("/open/{name}")
        String write(@PathVariable("name") String name, @RequestBody(required = false) String value) {
            ledgers.put(name, value == null ? "" : value);
            return "";
        }
    }
}
