/* scanwalk.h -- SCAN walks (glasskv.h's gkScanWalk*): what the rest of the
 * world needs of them. */
#ifndef GK_SCANWALK_H
#define GK_SCANWALK_H

#include <stdint.h>

struct gkWorld;
struct gkNode;

void scanWalkRelease(struct gkWorld *w, struct gkNode *n);
uint64_t scanWalkDigest(const struct gkNode *n, uint64_t crc);

#endif
