/* module.c -- MODULE, as a Redis 7.0 without modules answers it. glasskv
 * loads no modules: LIST is empty, and LOAD, LOADEX and UNLOAD (refused
 * first unless enable-module-command allows them, as in Redis) fail as
 * Redis's do when a library cannot be loaded or no module has the name. */
#include "server.h"

void moduleHelpCommand(client *c) {
    static const char *help[] = {
        "LIST",
        "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional "
        "arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load a module library from <path>, while passing it module "
        "configurations and optional arguments.",
        "UNLOAD <name>",
        "    Unload a module.",
        NULL };
    addReplyHelp(c, help);
}

void moduleListCommand(client *c) {
    addReplyArrayLen(c, 0);
}

void moduleLoadCommand(client *c) {
    serverLog(c->srv, LL_WARNING, "Module %s failed to load: glasskv does "
              "not load modules", (char *)c->argv[2]->v.ptr);
    addReplyError(c, "Error loading the extension. Please check the server "
                  "logs.");
}

void moduleUnloadCommand(client *c) {
    addReplyError(c, "Error unloading module: no such module with that "
                  "name");
}
