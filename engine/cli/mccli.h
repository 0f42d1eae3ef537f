/* mccli.h -- the command line's memcached modes: `glasskv cli
 * --memcached` (protocol lines on stdin, raw replies on stdout) and
 * `glasskv slabs` (the slab class table memcached -vv prints). */
#ifndef GK_CLI_MCCLI_H
#define GK_CLI_MCCLI_H

int mcCliMain(int argc, char **argv);
int mcSlabsMain(int argc, char **argv);

#endif
