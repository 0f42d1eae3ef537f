/* sha256.h -- SHA-256 (FIPS 180-4), as Redis 7.0 hashes ACL passwords:
 * a user's passwords are kept, compared and shown (ACL LIST, GETUSER)
 * as the 64 lower-case hex digits of their SHA-256. */
#ifndef GK_SHA256_H
#define GK_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN 64

/* Writes the SHA-256 of p[0..len) into out as 64 lower-case hex digits
 * and a NUL. */
void sha256Hex(const void *p, size_t len, char out[SHA256_HEX_LEN + 1]);

#endif
