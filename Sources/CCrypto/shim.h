// SHA-256 and HMAC-SHA256 from OpenSSL 3's libcrypto, one-shot, for the SigV4 signer.
#ifndef GPSTRACKD_CCRYPTO_SHIM_H
#define GPSTRACKD_CCRYPTO_SHIM_H

#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

/// SHA-256 of `length` bytes into `digest` (32 bytes); 1 on success.
static inline int gpstrackd_sha256(const void *data, size_t length, unsigned char *digest) {
    unsigned int size = 0;
    return EVP_Digest(data, length, digest, &size, EVP_sha256(), NULL);
}

/// HMAC-SHA256 of `length` bytes with `key` into `mac` (32 bytes); 1 on success.
static inline int gpstrackd_hmac_sha256(const void *key, int keyLength, const void *data, size_t length, unsigned char *mac) {
    unsigned int size = 0;
    return HMAC(EVP_sha256(), key, keyLength, (const unsigned char *)data, length, mac, &size) != NULL;
}

#endif
