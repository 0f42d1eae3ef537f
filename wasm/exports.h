/* exports.h -- what the module's own calls (exports.c) hand back.
 *
 * wasm/seam.mjs reads this header as it reads glasskv.h: each struct here
 * gets a TypeScript reader, and its layout is checked at build time. The
 * structs carry addresses as uint32_t: they exist only in the wasm32 build. */
#ifndef GK_EXPORTS_H
#define GK_EXPORTS_H

#include <stdint.h>
#include "glasskv.h"

#define GKW_CLI_BAD_REPEAT -3 /* gkwCliLine: a repeat count that is zero,
                                 negative or too large ("Invalid redis-cli
                                 repeat command option value.") */

/* One console line as gkwCliLine split it. */
typedef struct gkwCliRequest {
    uint32_t resp;      /* the RESP request for one copy of the command
                           (from malloc; the caller frees it), or 0 */
    uint32_t resp_len;  /* its length in bytes */
    gkBool raw;         /* redis-cli prints this command's reply raw */
    int32_t repeat;     /* copies redis-cli sends ("3 INCR x": 3) */
} gkwCliRequest;

/* A reply as gkwCliFormatReply printed it. */
typedef struct gkwCliText {
    uint32_t text;      /* the text (from malloc; the caller frees it), or 0 */
    uint32_t len;       /* its length in bytes */
} gkwCliText;

#endif
