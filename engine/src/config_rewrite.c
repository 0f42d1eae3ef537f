/* config_rewrite.c -- CONFIG REWRITE. */
#include "server.h"

/* CONFIG REWRITE: the host rewrites the configuration file it started
 * with; a server started without one refuses, as Redis does. */
void configRewriteCommand(client *c) {
    redisServer *s = c->srv;
    sds err = NULL;
    if (!s->config_rewrite) {
        addReplyError(c, "The server is running without a config file");
        return;
    }
    if (s->config_rewrite(s->config_rewrite_ctx, s, 0, &err) != C_OK) {
        serverLog(s, LL_WARNING, "CONFIG REWRITE failed: %s", err);
        addReplyErrorFormat(c, "Rewriting config file: %s", err);
        sdsfree(s->mem, err);
        return;
    }
    serverLog(s, LL_NOTICE, "CONFIG REWRITE executed with success.");
    addReplyOK(c);
}
