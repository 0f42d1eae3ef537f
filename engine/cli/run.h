/* run.h -- `glasskv run <lab>`: runs a built-in lab headless. */
#ifndef GK_CLI_RUN_H
#define GK_CLI_RUN_H

int runMain(int argc, char **argv);

#endif
