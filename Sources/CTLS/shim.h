// TLS client connections from OpenSSL 3's libssl, for the HTTP transport. Several of the calls
// needed are macros over SSL_ctrl, which Swift cannot see; these wrappers can be called.
#ifndef GPSTRACKD_CTLS_SHIM_H
#define GPSTRACKD_CTLS_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

/// A client context: TLS 1.2 or newer, the peer always verified.
static inline SSL_CTX *gpstrackd_tls_context(void) {
    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (context == NULL) return NULL;
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(context, SSL_MODE_AUTO_RETRY);
    return context;
}

/// Server Name Indication for `host` (names only, never IP addresses).
static inline int gpstrackd_tls_set_server_name(SSL *ssl, const char *host) {
    return (int)SSL_set_tlsext_host_name(ssl, host);
}

/// The certificate must name `host`: a DNS name, or an IP address for IP literals.
static inline int gpstrackd_tls_expect_host(SSL *ssl, const char *host, int isAddress) {
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    return isAddress ? X509_VERIFY_PARAM_set1_ip_asc(param, host) : X509_VERIFY_PARAM_set1_host(param, host, 0);
}

/// Bytes a TLS connection put on and took off its socket: records, handshakes and all, what a
/// metered link counts (without the TCP/IP headers).
typedef struct {
    unsigned long long sent;
    unsigned long long received;
} gpstrackd_tls_bytes;

static inline long gpstrackd_tls_count(BIO *bio, int oper, const char *argp, size_t len, int argi, long argl, int ret, size_t *processed) {
    (void)argp; (void)len; (void)argi; (void)argl;
    gpstrackd_tls_bytes *counts = (gpstrackd_tls_bytes *)BIO_get_callback_arg(bio);
    if (counts != NULL && ret > 0 && processed != NULL) {
        if (oper == (BIO_CB_WRITE | BIO_CB_RETURN)) counts->sent += *processed;
        else if (oper == (BIO_CB_READ | BIO_CB_RETURN)) counts->received += *processed;
    }
    return ret;
}

/// Counts into `counts` what `ssl`'s socket carries (after SSL_set_fd: one BIO both ways).
static inline void gpstrackd_tls_count_bytes(SSL *ssl, gpstrackd_tls_bytes *counts) {
    BIO *bio = SSL_get_rbio(ssl);
    BIO_set_callback_arg(bio, (char *)counts);
    BIO_set_callback_ex(bio, gpstrackd_tls_count);
}

/// The oldest queued OpenSSL error as text, or NULL; clears the queue.
static inline const char *gpstrackd_tls_error(char *buffer, size_t length) {
    unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return NULL;
    ERR_error_string_n(code, buffer, length);
    return buffer;
}

#endif
