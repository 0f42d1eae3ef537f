/* lzf.h -- the LZF compression format Redis uses for quicklist nodes and
 * for long strings in RDB files.
 *
 * An LZF stream is a sequence of runs, each opened by a control byte:
 *
 *     000LLLLL <L+1 bytes>            a literal run of 1..32 bytes
 *     LLLooooo oooooooo               copy L+2 (3..8) bytes from
 *                                     o+1 (1..8192) bytes back
 *     111ooooo LLLLLLLL oooooooo      copy L+9 (9..264) bytes from
 *                                     o+1 bytes back
 *
 * There is no header and no length: whoever stores the stream keeps the
 * uncompressed size beside it (a quicklist node's sz, an RDB string's
 * second length). lzf.c describes how the compressor picks its copies. */
#ifndef GK_LZF_H
#define GK_LZF_H

#include <stddef.h>
#include <stdint.h>

/* Slots of the compressor's hash table (lzfCompress's htab). */
#define LZF_HTAB_SLOTS (1u << 16)

size_t lzfCompress(const void *in, size_t in_len, void *out, size_t out_len,
                   uint32_t *htab);
size_t lzfDecompress(const void *in, size_t in_len, void *out,
                     size_t out_len);

#endif
