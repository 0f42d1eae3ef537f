/* aofcli.h -- `glasskv cli --aof DIR` (see aofcli.c). */
#ifndef GK_CLI_AOFCLI_H
#define GK_CLI_AOFCLI_H

#include "glasskv.h"

const char *aofCliConfig(void);
int aofCliExport(gkWorld *w, int node, const char *dir);

#endif
