// OpenSSL 3 opened at run time; see include/COpenSSL.h for why.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "COpenSSL.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

// Every function taken from the libraries: its library and name. The table's pointers are typed
// by OpenSSL's own declarations, so a call through one is checked as a direct call would be.
#define GPSTRACKD_LIBSSL(X) \
    X(TLS_client_method) X(SSL_CTX_new) X(SSL_CTX_ctrl) X(SSL_CTX_set_cipher_list) X(SSL_CTX_set_ciphersuites) \
    X(SSL_CTX_set_verify) X(SSL_CTX_set_options) X(SSL_CTX_free) \
    X(SSL_CTX_load_verify_locations) X(SSL_CTX_set_default_verify_paths) X(SSL_new) X(SSL_free) X(SSL_ctrl) \
    X(SSL_get0_param) X(SSL_set_fd) X(SSL_get_rbio) X(SSL_set_session) X(SSL_connect) X(SSL_get_verify_result) \
    X(SSL_session_reused) X(SSL_get1_session) X(SSL_SESSION_free) X(SSL_SESSION_is_resumable) X(SSL_SESSION_dup) \
    X(SSL_write) X(SSL_read) X(SSL_get_error) X(SSL_set_quiet_shutdown) X(SSL_shutdown) \
    X(SSL_version) X(SSL_key_update) X(SSL_do_handshake) X(i2d_SSL_SESSION) X(d2i_SSL_SESSION)
#define GPSTRACKD_LIBCRYPTO(X) \
    X(X509_VERIFY_PARAM_set_hostflags) X(X509_VERIFY_PARAM_set1_ip_asc) X(X509_VERIFY_PARAM_set1_host) \
    X(X509_verify_cert_error_string) X(X509_get_default_cert_dir) X(BIO_get_callback_arg) X(BIO_set_callback_arg) \
    X(BIO_set_callback_ex) X(ERR_get_error) X(ERR_clear_error) X(ERR_error_string_n) X(EVP_Digest) X(EVP_sha256) X(HMAC)

#define GPSTRACKD_FIELD(name) __typeof__(&name) name;
// Written once, under pthread_once, before any call reads it: the process's dynamic linking of
// OpenSSL, done late.
static struct {
    GPSTRACKD_LIBSSL(GPSTRACKD_FIELD)
    GPSTRACKD_LIBCRYPTO(GPSTRACKD_FIELD)
} api;
static int loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *open_library(const char *soname) {
    void *handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (handle == NULL) snprintf(failure, sizeof failure, "%s", dlerror());
    return handle;
}

static void load(void) {
    void *crypto = open_library("libcrypto.so.3");
    if (crypto == NULL) return;
    void *ssl = open_library("libssl.so.3");
    if (ssl == NULL) return;
    const char *missing = NULL;
#define GPSTRACKD_FIND(library, name) \
    if (missing == NULL && (api.name = (__typeof__(&name))dlsym(library, #name)) == NULL) missing = #name;
#define GPSTRACKD_FIND_SSL(name) GPSTRACKD_FIND(ssl, name)
#define GPSTRACKD_FIND_CRYPTO(name) GPSTRACKD_FIND(crypto, name)
    GPSTRACKD_LIBSSL(GPSTRACKD_FIND_SSL)
    GPSTRACKD_LIBCRYPTO(GPSTRACKD_FIND_CRYPTO)
    if (missing != NULL) {
        snprintf(failure, sizeof failure, "OpenSSL has no %s (OpenSSL 3 is needed)", missing);
        return;
    }
    loaded = 1;
}

int gpstrackd_openssl_load(char *reason, size_t length) {
    pthread_once(&once, load);
    if (!loaded && reason != NULL && length > 0) snprintf(reason, length, "%s", failure);
    return loaded;
}

// MARK: - TLS

struct ssl_ctx_st *gpstrackd_tls_context(const char *caFile, int useEnvironment, char *reason, size_t length) {
    SSL_CTX *context = api.SSL_CTX_new(api.TLS_client_method());
    if (context == NULL) {
        snprintf(reason, length, "cannot create a TLS context");
        return NULL;
    }
    api.SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    // What the ClientHello offers, every handshake's first and largest message from the device
    // (a reconnect after a NAT's idle timeout sends it again): OpenSSL's defaults offer about 30
    // cipher suites, 10 key-exchange groups and 26 signature algorithms, most of them for peers
    // the tracker is not. Offered here: TLS 1.3's suites; for TLS 1.2, forward-secret AEAD suites
    // only; X25519 (the one key share sent), P-256 and P-384; and the signature algorithms of
    // RSA and ECDSA certificates with SHA-2, which the service's chains and TLS 1.3 need.
    const char *tls12 = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
                        "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
    const char *tls13 = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
    const char *groups = "X25519:P-256:P-384";
    const char *signatures = "ECDSA+SHA256:ECDSA+SHA384:ECDSA+SHA512:RSA-PSS+SHA256:RSA-PSS+SHA384:RSA-PSS+SHA512:"
                             "RSA+SHA256:RSA+SHA384:RSA+SHA512";
    if (api.SSL_CTX_set_cipher_list(context, tls12) != 1 || api.SSL_CTX_set_ciphersuites(context, tls13) != 1
        || api.SSL_CTX_ctrl(context, SSL_CTRL_SET_GROUPS_LIST, 0, (void *)groups) != 1
        || api.SSL_CTX_ctrl(context, SSL_CTRL_SET_SIGALGS_LIST, 0, (void *)signatures) != 1) {
        snprintf(reason, length, "this OpenSSL refuses the offered TLS parameters (cipher suites, groups, signatures)");
        api.SSL_CTX_free(context);
        return NULL;
    }
    // Encrypt-then-MAC matters to CBC suites only, and none is offered: its extension would be 4
    // bytes of every ClientHello that can change nothing.
    api.SSL_CTX_set_options(context, SSL_OP_NO_ENCRYPT_THEN_MAC);
    api.SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    api.SSL_CTX_ctrl(context, SSL_CTRL_MODE, SSL_MODE_AUTO_RETRY, NULL);
    int trusted;
    if (caFile != NULL) trusted = api.SSL_CTX_load_verify_locations(context, caFile, NULL);
    else if (useEnvironment) trusted = api.SSL_CTX_set_default_verify_paths(context);
    else trusted = api.SSL_CTX_load_verify_locations(context, NULL, api.X509_get_default_cert_dir());
    if (trusted != 1) {
        snprintf(reason, length, "cannot load trusted certificates from %s",
                 caFile != NULL ? caFile : useEnvironment ? "SSL_CERT_FILE/SSL_CERT_DIR" : api.X509_get_default_cert_dir());
        api.SSL_CTX_free(context);
        return NULL;
    }
    return context;
}

void gpstrackd_tls_context_free(struct ssl_ctx_st *context) { api.SSL_CTX_free(context); }

struct ssl_st *gpstrackd_tls_new(struct ssl_ctx_st *context, int fd, const char *host, int isAddress,
                                 struct ssl_session_st *session) {
    SSL *ssl = api.SSL_new(context);
    if (ssl == NULL) return NULL;
    if (session != NULL) api.SSL_set_session(ssl, session);
    if (!isAddress) api.SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)host);
    X509_VERIFY_PARAM *param = api.SSL_get0_param(ssl);
    api.X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    int named = isAddress ? api.X509_VERIFY_PARAM_set1_ip_asc(param, host) : api.X509_VERIFY_PARAM_set1_host(param, host, 0);
    if (named != 1 || api.SSL_set_fd(ssl, fd) != 1) {
        api.SSL_free(ssl);
        return NULL;
    }
    return ssl;
}

int gpstrackd_tls_connect(struct ssl_st *ssl) { return api.SSL_connect(ssl); }

const char *gpstrackd_tls_verify_failure(struct ssl_st *ssl) {
    long result = api.SSL_get_verify_result(ssl);
    return result == X509_V_OK ? NULL : api.X509_verify_cert_error_string(result);
}

int gpstrackd_tls_session_reused(struct ssl_st *ssl) { return api.SSL_session_reused(ssl); }

struct ssl_session_st *gpstrackd_tls_resumable_session(struct ssl_st *ssl) {
    SSL_SESSION *session = api.SSL_get1_session(ssl);
    if (session == NULL) return NULL;
    // A copy: OpenSSL marks the connection's own session unresumable when the connection ends
    // in an error (a peer or a NAT that closed it while idle).
    SSL_SESSION *copy = api.SSL_SESSION_is_resumable(session) == 1 ? api.SSL_SESSION_dup(session) : NULL;
    api.SSL_SESSION_free(session);
    return copy;
}

void gpstrackd_tls_session_free(struct ssl_session_st *session) { api.SSL_SESSION_free(session); }

int gpstrackd_tls_session_encode(struct ssl_session_st *session, unsigned char *bytes) {
    if (bytes == NULL) return api.i2d_SSL_SESSION(session, NULL);
    unsigned char *end = bytes;
    return api.i2d_SSL_SESSION(session, &end);
}

struct ssl_session_st *gpstrackd_tls_session_decode(const unsigned char *bytes, long count) {
    const unsigned char *end = bytes;
    SSL_SESSION *session = api.d2i_SSL_SESSION(NULL, &end, count);
    if (session == NULL) {
        api.ERR_clear_error();
        return NULL;
    }
    if (end != bytes + count || api.SSL_SESSION_is_resumable(session) != 1) {
        api.SSL_SESSION_free(session);
        return NULL;
    }
    return session;
}

int gpstrackd_tls_write(struct ssl_st *ssl, const void *bytes, int count) { return api.SSL_write(ssl, bytes, count); }

int gpstrackd_tls_read(struct ssl_st *ssl, void *bytes, int count) { return api.SSL_read(ssl, bytes, count); }

int gpstrackd_tls_version_13(struct ssl_st *ssl) { return api.SSL_version(ssl) == TLS1_3_VERSION; }

int gpstrackd_tls_key_update(struct ssl_st *ssl) {
    // Not requested: the server answers nothing, so the idle connection stays quiet on its side.
    if (api.SSL_key_update(ssl, SSL_KEY_UPDATE_NOT_REQUESTED) != 1) return 0;
    return api.SSL_do_handshake(ssl) == 1;
}

int gpstrackd_tls_closed_by_peer(struct ssl_st *ssl, int result) {
    return api.SSL_get_error(ssl, result) == SSL_ERROR_ZERO_RETURN;
}

void gpstrackd_tls_close(struct ssl_st *ssl) {
    // Quietly (nothing sent): freed otherwise, OpenSSL marks the session as not resumable, and
    // the next connection would need a full handshake.
    api.SSL_set_quiet_shutdown(ssl, 1);
    api.SSL_shutdown(ssl);
    api.SSL_free(ssl);
}

static long count_bytes(BIO *bio, int oper, const char *argp, size_t len, int argi, long argl, int ret, size_t *processed) {
    (void)argp; (void)len; (void)argi; (void)argl;
    gpstrackd_tls_bytes *counts = (gpstrackd_tls_bytes *)api.BIO_get_callback_arg(bio);
    if (counts != NULL && ret > 0 && processed != NULL) {
        if (oper == (BIO_CB_WRITE | BIO_CB_RETURN)) counts->sent += *processed;
        else if (oper == (BIO_CB_READ | BIO_CB_RETURN)) counts->received += *processed;
    }
    return ret;
}

void gpstrackd_tls_count_bytes(struct ssl_st *ssl, gpstrackd_tls_bytes *counts) {
    BIO *bio = api.SSL_get_rbio(ssl);
    api.BIO_set_callback_arg(bio, (char *)counts);
    api.BIO_set_callback_ex(bio, count_bytes);
}

const char *gpstrackd_tls_error(char *buffer, size_t length) {
    unsigned long code = api.ERR_get_error();
    api.ERR_clear_error();
    if (code == 0) return NULL;
    api.ERR_error_string_n(code, buffer, length);
    return buffer;
}

// MARK: - Digests

int gpstrackd_sha256(const void *data, size_t length, unsigned char *digest) {
    unsigned int size = 0;
    return api.EVP_Digest(data, length, digest, &size, api.EVP_sha256(), NULL);
}

int gpstrackd_hmac_sha256(const void *key, int keyLength, const void *data, size_t length, unsigned char *mac) {
    unsigned int size = 0;
    return api.HMAC(api.EVP_sha256(), key, keyLength, (const unsigned char *)data, length, mac, &size) != NULL;
}
