// OpenSSL 3 (libssl and libcrypto), loaded at run time: the TLS client connections of the HTTP
// transport and the SHA-256 and HMAC-SHA256 of the SigV4 signer.
//
// The libraries are opened (dlopen) by the first tracker client that needs them, not linked:
// a daemon on the file sink never maps them, and their relocation tables, symbols and data
// (about 1.7 MB of resident memory) stay out of its memory. Only the calls the daemon makes are
// declared here, over opaque types; OpenSSL's own headers stay in OpenSSL.c, where each pointer
// taken from the library is typed by its declaration there.
#ifndef GPSTRACKD_COPENSSL_H
#define GPSTRACKD_COPENSSL_H

#include <stddef.h>

struct ssl_st;
struct ssl_ctx_st;
struct ssl_session_st;

/// Opens libssl.so.3 and libcrypto.so.3 and finds every function below, once for the process
/// (later calls give the first answer). 1 when usable; else 0 with the reason in `reason`.
int gpstrackd_openssl_load(char *reason, size_t length);

// MARK: - TLS

/// A client context: TLS 1.2 or newer with a short offer (see OpenSSL.c), the peer always
/// verified, trusting `caFile` (a PEM bundle) when given, else OpenSSL's defaults when
/// `useEnvironment` (SSL_CERT_FILE/SSL_CERT_DIR set), else the system's hashed certificate
/// directory (looked up per certificate, not loaded whole). NULL with the reason in `reason`.
struct ssl_ctx_st *gpstrackd_tls_context(const char *caFile, int useEnvironment, char *reason, size_t length);
void gpstrackd_tls_context_free(struct ssl_ctx_st *context);

/// A connection on `fd` for `host`: Server Name Indication (names only, never IP addresses),
/// the certificate required to name `host` (a DNS name, or an IP address for IP literals),
/// resuming `session` when given. NULL on failure.
struct ssl_st *gpstrackd_tls_new(struct ssl_ctx_st *context, int fd, const char *host, int isAddress,
                                 struct ssl_session_st *session);
/// The handshake; 1 on success.
int gpstrackd_tls_connect(struct ssl_st *ssl);
/// Why the server's certificate did not verify, or NULL when it did.
const char *gpstrackd_tls_verify_failure(struct ssl_st *ssl);
/// Whether the handshake resumed an earlier session.
int gpstrackd_tls_session_reused(struct ssl_st *ssl);
/// A copy of the connection's session when it can be resumed, else NULL.
struct ssl_session_st *gpstrackd_tls_resumable_session(struct ssl_st *ssl);
void gpstrackd_tls_session_free(struct ssl_session_st *session);
/// The session in OpenSSL's own encoding (DER), into `bytes` (NULL: only its length); the length,
/// or 0 or less when it cannot be encoded.
int gpstrackd_tls_session_encode(struct ssl_session_st *session, unsigned char *bytes);
/// A session from `gpstrackd_tls_session_encode`'s bytes when they decode whole and it can be
/// resumed, else NULL.
struct ssl_session_st *gpstrackd_tls_session_decode(const unsigned char *bytes, long count);
int gpstrackd_tls_write(struct ssl_st *ssl, const void *bytes, int count);
int gpstrackd_tls_read(struct ssl_st *ssl, void *bytes, int count);
/// Whether the connection speaks TLS 1.3 (TLS 1.2 has no message a peer takes in silence).
int gpstrackd_tls_version_13(struct ssl_st *ssl);
/// Sends a TLS 1.3 KeyUpdate that asks for none back (27 bytes, and the peer says nothing): what
/// keeps an idle connection open through a NAT or a load balancer that closes silent ones. 1 when
/// sent, 0 when it could not be.
int gpstrackd_tls_key_update(struct ssl_st *ssl);
/// Whether a read's result `result` (0 or less) is the peer's orderly close (close_notify).
int gpstrackd_tls_closed_by_peer(struct ssl_st *ssl, int result);
/// Quiet shutdown (the connection is being dropped, no close_notify awaited) and free.
void gpstrackd_tls_close(struct ssl_st *ssl);

/// Bytes a TLS connection put on and took off its socket: records, handshakes and all, what a
/// metered link counts (without the TCP/IP headers).
typedef struct {
    unsigned long long sent;
    unsigned long long received;
} gpstrackd_tls_bytes;

/// Counts into `counts` what `ssl`'s socket carries (after the fd is set: one BIO both ways).
void gpstrackd_tls_count_bytes(struct ssl_st *ssl, gpstrackd_tls_bytes *counts);

/// The oldest queued OpenSSL error as text, or NULL; clears the queue.
const char *gpstrackd_tls_error(char *buffer, size_t length);

// MARK: - Digests

/// SHA-256 of `length` bytes into `digest` (32 bytes); 1 on success.
int gpstrackd_sha256(const void *data, size_t length, unsigned char *digest);
/// HMAC-SHA256 of `length` bytes with `key` into `mac` (32 bytes); 1 on success.
int gpstrackd_hmac_sha256(const void *key, int keyLength, const void *data, size_t length, unsigned char *mac);

#endif
