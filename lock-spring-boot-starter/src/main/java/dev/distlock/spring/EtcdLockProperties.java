package dev.distlock.spring;

import java.util.ArrayList;
import java.util.List;

/** etcd backend settings. The client settings apply when the application has no jetcd Client bean. */
public class EtcdLockProperties {

    /** etcd endpoints, e.g. {@code http://127.0.0.1:2379} ({@code https://} with TLS). */
    private List<String> endpoints = new ArrayList<>(List.of("http://127.0.0.1:2379"));

    /** etcd key prefix under which the lock keys live. */
    private String namespace = "/distlock/";

    /** etcd user name, when etcd authentication is enabled. */
    private String username;

    /** Password of the etcd user. */
    private String password;

    private final Tls tls = new Tls();

    public List<String> getEndpoints() {
        return endpoints;
    }

    public void setEndpoints(List<String> endpoints) {
        this.endpoints = endpoints;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public Tls getTls() {
        return tls;
    }

    /** TLS for the etcd client. Set at least ca-file to use TLS. */
    public static class Tls {

        /** PEM file of the CA that signed the etcd server certificates. */
        private String caFile;

        /** PEM client certificate, for etcd client-certificate authentication. */
        private String certFile;

        /** PEM PKCS#8 private key of cert-file. */
        private String keyFile;

        public String getCaFile() {
            return caFile;
        }

        public void setCaFile(String caFile) {
            this.caFile = caFile;
        }

        public String getCertFile() {
            return certFile;
        }

        public void setCertFile(String certFile) {
            this.certFile = certFile;
        }

        public String getKeyFile() {
            return keyFile;
        }

        public void setKeyFile(String keyFile) {
            this.keyFile = keyFile;
        }
    }
}
