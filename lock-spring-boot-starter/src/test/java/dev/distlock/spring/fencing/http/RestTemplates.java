package dev.distlock.spring.fencing.http;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.util.DefaultUriBuilderFactory;

/**
 * A RestTemplate from Spring Boot's RestTemplateBuilder bean, whichever Boot line's package it is in
 * (the test runs on both); its public {@code build()} is called by name.
 */
final class RestTemplates {

    private RestTemplates() {}

    static RestTemplate build(BeanFactory beans, String baseUrl) {
        String type = ClassUtils.isPresent("org.springframework.boot.restclient.RestTemplateBuilder", null)
                ? "org.springframework.boot.restclient.RestTemplateBuilder"
                : "org.springframework.boot.web.client.RestTemplateBuilder";
        try {
            Object builder = beans.getBean(ClassUtils.forName(type, null));
            RestTemplate template =
                    (RestTemplate) builder.getClass().getMethod("build").invoke(builder);
            template.setUriTemplateHandler(new DefaultUriBuilderFactory(baseUrl));
            template.setErrorHandler(new ResponseErrorHandler() {
                @Override
                public boolean hasError(org.springframework.http.client.ClientHttpResponse response) {
                    return false;
                }
            });
            return template;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("No usable " + type, e);
        }
    }
}
