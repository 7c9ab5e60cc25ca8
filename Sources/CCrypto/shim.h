#ifndef OVERLAYD_CCRYPTO_SHIM_H
#define OVERLAYD_CCRYPTO_SHIM_H

/* OpenSSL 3's libcrypto from Debian (libssl-dev). Only Crypto and SignedToken import this module,
   and privately: no OpenSSL type reaches any other module's API. Swift calls the functions it needs
   directly (the 3.0 ones: EVP_PKEY_get_bits and EVP_PKEY_is_a, not the macros that alias them). */
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#endif
