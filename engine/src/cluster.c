/* cluster.c -- CLUSTER, ASKING, READONLY and READWRITE as a Redis 7.0
 * server started without cluster-enabled answers them.
 *
 * glasskv is never a cluster node: it has no slots, no cluster bus and
 * no nodes.conf. Redis's own commands check cluster-enabled before
 * anything else and refuse with one error, so every subcommand of
 * CLUSTER (HELP and KEYSLOT included) and the three connection commands
 * answer the same. What a command line gets before that -- the arity
 * errors, the unknown subcommand, a script's noscript refusal of CLUSTER
 * RESET -- comes from the dispatcher, from each command's row in the
 * table (commands.c). */
#include "server.h"

static void _clusterDisabled(client *c) {
    addReplyError(c, "This instance has cluster support disabled");
}

/* CLUSTER <subcommand> ...: every subcommand. */
void clusterCommand(client *c) { _clusterDisabled(c); }

/* ASKING: would let the next command reach a slot being imported. */
void askingCommand(client *c) { _clusterDisabled(c); }

/* READONLY: would let a replica node serve this connection's reads. */
void readonlyCommand(client *c) { _clusterDisabled(c); }

/* READWRITE: would undo READONLY. */
void readwriteCommand(client *c) { _clusterDisabled(c); }
