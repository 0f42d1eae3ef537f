/* cliopts.h -- the native command line's options, parsed without exiting,
 * so that a usage error is the caller's to report (and a fuzz harness can
 * feed them any argument vector). */
#ifndef GK_CLIOPTS_H
#define GK_CLIOPTS_H
#include <stddef.h>
#include "glasskv.h"

#define CLI_MC_OPTIONS_MAX 4096

int cliParseOptions(int argc, char **argv, gkConfig *cfg,
                    const char **aofdir);
int mcCliArgs(int argc, char **argv, gkConfig *cfg, char *opts, size_t cap);

#endif
