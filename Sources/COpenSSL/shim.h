#ifndef PUSHBRIDGE_COPENSSL_SHIM_H
#define PUSHBRIDGE_COPENSSL_SHIM_H
// OpenSSL 3 (Debian libssl-dev): libcrypto's EVP interfaces Web Push needs — P-256 keys
// (generate, PEM in and out, ECDH), ECDSA signatures (ES256), HKDF-SHA256, AES-128-GCM and
// SHA-256 — imported in the library only by Sources/PushBridge/WebPush; and libssl's TLS
// client, for the CLI's `pushbridge health` against an https endpoint (Sources/pushbridge).
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/ssl.h>
#include <string.h>

// What Swift cannot import or call well (macros, variadics, OSSL_PARAM arrays), as functions.

/// A new P-256 key pair (EVP_PKEY_Q_keygen is variadic); 1 on success.
static inline int pb_ssl_keygen_p256(EVP_PKEY **out) {
    *out = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    return *out != NULL;
}

/// A key-generation context for P-256, made once and used for many keys
/// (EVP_PKEY_Q_keygen makes and sets one up for each key); NULL on failure.
static inline EVP_PKEY_CTX *pb_ssl_keygen_context_p256(void) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL) return NULL;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"P-256", 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_CTX_set_params(ctx, params) <= 0) {
        EVP_PKEY_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/// A BIO reading `len` bytes at `data` (BIO_new_mem_buf takes an int length).
static inline BIO *pb_ssl_bio_from(const void *data, size_t len) {
    if (len > 0x7fffffff) return NULL;
    return BIO_new_mem_buf(data, (int)len);
}

/// The bytes a memory BIO holds (BIO_get_mem_data is a macro).
static inline long pb_ssl_bio_bytes(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// GCM controls (macros): set the IV length, read and set the tag.
static inline int pb_ssl_gcm_set_ivlen(EVP_CIPHER_CTX *ctx, int len) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, len, NULL);
}
static inline int pb_ssl_gcm_get_tag(EVP_CIPHER_CTX *ctx, int len, void *tag) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, len, tag);
}
static inline int pb_ssl_gcm_set_tag(EVP_CIPHER_CTX *ctx, int len, void *tag) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, len, tag);
}

/// HKDF-SHA256 (extract and expand) with `kdf` fetched once by the caller
/// (EVP_KDF_fetch(NULL, "HKDF", NULL)): no algorithm lookup per call; 1 on success.
static inline int pb_ssl_hkdf_sha256(EVP_KDF *kdf, const unsigned char *salt, size_t salt_len,
                                      const unsigned char *ikm, size_t ikm_len,
                                      const unsigned char *info, size_t info_len,
                                      unsigned char *out, size_t out_len) {
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[5];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len);
    params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len);
    params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
    params[4] = OSSL_PARAM_construct_end();
    int ok = EVP_KDF_derive(ctx, out, out_len, params) > 0;
    EVP_KDF_CTX_free(ctx);
    return ok;
}

/// The uncompressed public point (65 bytes for P-256) of an EC key; its length, 0 on failure.
static inline size_t pb_ssl_public_point(EVP_PKEY *key, unsigned char *out, size_t cap) {
    size_t len = 0;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, out, cap, &len) != 1) return 0;
    return len;
}

/// A P-256 public key from its uncompressed point; NULL when the bytes are not a point on the curve.
static inline EVP_PKEY *pb_ssl_public_from_point(const unsigned char *point, size_t len) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL) return NULL;
    EVP_PKEY *key = NULL;
    OSSL_PARAM params[3];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"prime256v1", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)point, len);
    params[2] = OSSL_PARAM_construct_end();
    if (EVP_PKEY_fromdata_init(ctx) <= 0 || EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) <= 0) key = NULL;
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/// A P-256 private key from its 32-byte scalar (the public point is derived); NULL on failure.
static inline EVP_PKEY *pb_ssl_private_from_scalar(const unsigned char *scalar, size_t len) {
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *d = BN_bin2bn(scalar, (int)len, NULL);
    EC_POINT *pub = group ? EC_POINT_new(group) : NULL;
    unsigned char point[65];
    size_t pointLen = 0;
    EVP_PKEY *key = NULL;
    if (group && d && pub && EC_POINT_mul(group, pub, d, NULL, NULL, NULL) == 1)
        pointLen = EC_POINT_point2oct(group, pub, POINT_CONVERSION_UNCOMPRESSED, point, sizeof point, NULL);
    if (pointLen == 65) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
        unsigned char native[32];   // OSSL_PARAM_construct_BN takes native byte order
        if (ctx && BN_bn2nativepad(d, native, 32) == 32) {
            OSSL_PARAM params[4];
            params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"prime256v1", 0);
            params[1] = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_PRIV_KEY, native, 32);
            params[2] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, 65);
            params[3] = OSSL_PARAM_construct_end();
            if (EVP_PKEY_fromdata_init(ctx) <= 0 || EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params) <= 0) key = NULL;
        }
        OPENSSL_cleanse(native, sizeof native);
        EVP_PKEY_CTX_free(ctx);
    }
    EC_POINT_free(pub);
    BN_clear_free(d);
    EC_GROUP_free(group);
    return key;
}

/// SNI for a TLS client (SSL_set_tlsext_host_name is a macro); 1 on success.
static inline int pb_ssl_set_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// ECDSA signature DER -> raw r||s (32 bytes each, big-endian); 1 on success.
static inline int pb_ssl_ecdsa_der_to_raw(const unsigned char *der, size_t len, unsigned char *out64) {
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)len);
    if (sig == NULL) return 0;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    int ok = BN_bn2binpad(r, out64, 32) == 32 && BN_bn2binpad(s, out64 + 32, 32) == 32;
    ECDSA_SIG_free(sig);
    return ok;
}
#endif
