#ifndef TOKENVAULT_COPENSSL_SHIM_H
#define TOKENVAULT_COPENSSL_SHIM_H

// libcrypto only (no TLS): public-key signature verification for JWS (RS256, ES256).
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

// EVP_PKEY_PUBLIC_KEY is a macro of macros, which Swift does not import.
static inline int tokenvault_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }

// The parameters of a public key, for EVP_PKEY_fromdata; free them with OSSL_PARAM_free. Built in C
// because OSSL_PARAM_BLD keeps the name and buffer pointers it is given until OSSL_PARAM_BLD_to_param,
// which the temporary C strings Swift passes for a call do not outlive.
static inline OSSL_PARAM *tokenvault_rsa_public_parameters(const BIGNUM *n, const BIGNUM *e) {
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (builder == NULL) return NULL;
    OSSL_PARAM *parameters = NULL;
    if (OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, n) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, e) == 1) {
        parameters = OSSL_PARAM_BLD_to_param(builder);
    }
    OSSL_PARAM_BLD_free(builder);
    return parameters;
}

static inline OSSL_PARAM *tokenvault_p256_public_parameters(const unsigned char *point, size_t length) {
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (builder == NULL) return NULL;
    OSSL_PARAM *parameters = NULL;
    if (OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1
        && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, length) == 1) {
        parameters = OSSL_PARAM_BLD_to_param(builder);
    }
    OSSL_PARAM_BLD_free(builder);
    return parameters;
}

#endif
