/* ports.h -- the machine's TCP ports: the local port each outgoing
 * connection takes, as Linux's connect() picks it, and the sysctls that
 * steer the choice (ports.c). */
#ifndef GK_PORTS_H
#define GK_PORTS_H

#include <stdint.h>
#include "mem.h"
#include "rng.h"

#define PORTS_MAX 65536
#define PORTS_RANGE_LO 32768        /* ip_local_port_range's default */
#define PORTS_RANGE_HI 60999
#define PORTS_UNPRIVILEGED 1024     /* ip_unprivileged_port_start's */
#define PORTS_LOOPBACK 0x7f000001u  /* 127.0.0.1, every node's address */

/* One slot of the perturbation table that a connection moved away from
 * its random start (see _perturb in ports.c). */
typedef struct portsTouched {
    uint32_t index;         /* slot of the 65,536-slot table */
    uint32_t added;         /* added to its initial value so far */
} portsTouched;

/* A port's holders: the connections bound to it locally, chained through
 * gkConn.lport_next from `first`. The first one's destination is kept
 * here too, so that the port search, which may look at every port of the
 * range for each connection once most are taken, reads one small entry
 * per port and no connection. */
typedef struct portsHold {
    int32_t first;          /* a holder, -1 if none */
    uint32_t daddr;         /* first's destination address */
    uint16_t dport;         /* and port */
    uint16_t count;         /* holders (one per destination at most) */
} portsHold;

typedef struct gkPorts {
    int lo, hi;             /* ip_local_port_range, both inclusive */
    uint8_t reserved[PORTS_MAX / 8]; /* ip_local_reserved_ports, a bit
                                        per port */
    portsHold *hold;        /* per port, its holders; NULL until the
                               first connection */
    uint8_t secret[16];     /* the keyed hash's key (the kernel's
                               net_secret) */
    uint8_t table_key[16];  /* the perturbation table's first contents */
    portsTouched *touched;  /* slots moved so far, in first-use order */
    int ntouched, captouched;
    gkRng rng;              /* the small random steps after each pick */
} gkPorts;

struct gkWorld;
struct gkConn;

void portsInit(gkPorts *p, uint64_t seed);
void portsFree(gkPorts *p, gkMem *m);
int portsConnect(struct gkWorld *w, struct gkConn *c, uint32_t daddr,
                 int dport, int reuseaddr);
void portsRelease(struct gkWorld *w, struct gkConn *c);
int portsBindConflict(struct gkWorld *w, int port);
int portsSetRange(gkPorts *p, const char *value);
int portsSetReserved(gkPorts *p, const char *value);
void portsFormatReserved(const gkPorts *p, char *buf, size_t cap);

#endif
