/* command_keys.h -- what COMMAND tells about each command: the flags
 * COMMAND INFO shows, the ACL categories, the tips, the key specs (where
 * the keys are in the arguments and how they are used) and the arguments
 * and versions COMMAND DOCS gives, all as Redis 7.0 declares them; and
 * the search for the keys of a command line that COMMAND GETKEYS makes.
 * The prose of COMMAND DOCS (each command's summary and complexity) is
 * glasskv's own; it gives no history and the key specs no notes.
 *
 * The facts live in command_table.c, one row per command name ("get",
 * "config|get"), apart from REDIS_COMMANDS in commands.c: the engine's
 * table says how to run a command, this one how to describe it. A row
 * is written by hand in the compact forms described below; a test checks
 * every command of the engine's table against redis-server's COMMAND
 * INFO. */
#ifndef GLASSKV_COMMAND_KEYS_H
#define GLASSKV_COMMAND_KEYS_H

#include "server.h"

/* Key spec flags, in the order COMMAND INFO names them. */
#define CMD_KEY_RO (1 << 0)             /* "RO": read only */
#define CMD_KEY_RW (1 << 1)             /* "RW": read and written */
#define CMD_KEY_OW (1 << 2)             /* "OW": overwritten unread */
#define CMD_KEY_RM (1 << 3)             /* "RM": deleted */
#define CMD_KEY_ACCESS (1 << 4)         /* its value is returned */
#define CMD_KEY_UPDATE (1 << 5)         /* its value is changed */
#define CMD_KEY_INSERT (1 << 6)         /* values are added to it */
#define CMD_KEY_DELETE (1 << 7)         /* values are removed from it */
#define CMD_KEY_NOT_KEY (1 << 8)        /* a name hashed like a key only */
#define CMD_KEY_INCOMPLETE (1 << 9)     /* the spec may miss some keys */
#define CMD_KEY_VARIABLE_FLAGS (1 << 10) /* the flags depend on the args */

/* Command flags COMMAND INFO shows, in its order ("movablekeys" is not
 * declared: it is derived from the key specs). */
#define CMDI_WRITE (1 << 0)
#define CMDI_READONLY (1 << 1)
#define CMDI_DENYOOM (1 << 2)
#define CMDI_MODULE (1 << 3)
#define CMDI_ADMIN (1 << 4)
#define CMDI_PUBSUB (1 << 5)
#define CMDI_NOSCRIPT (1 << 6)
#define CMDI_BLOCKING (1 << 7)
#define CMDI_LOADING (1 << 8)
#define CMDI_STALE (1 << 9)
#define CMDI_SKIP_MONITOR (1 << 10)
#define CMDI_SKIP_SLOWLOG (1 << 11)
#define CMDI_ASKING (1 << 12)
#define CMDI_FAST (1 << 13)
#define CMDI_NO_AUTH (1 << 14)
#define CMDI_NO_MANDATORY_KEYS (1 << 15)
#define CMDI_NO_ASYNC_LOADING (1 << 16)
#define CMDI_NO_MULTI (1 << 17)
#define CMDI_MOVABLE_KEYS (1 << 18)
#define CMDI_ALLOW_BUSY (1 << 19)

/* The key finders Redis runs where key specs alone cannot tell the keys
 * (or their flags) of a command line. */
enum {
    GK_NONE = 0,
    GK_SET,            /* SET: RW when GET is given, OW otherwise */
    GK_BITFIELD,       /* BITFIELD: RO when only GETs are given */
    GK_SORT,           /* SORT key ... [STORE dest]: the last STORE */
    GK_SORT_RO,        /* SORT_RO key */
    GK_MIGRATE,        /* MIGRATE's key, or its KEYS ... */
    GK_GEORADIUS,      /* GEORADIUS(BYMEMBER) key ... [STORE(DIST) dest] */
    GK_XREAD,          /* XREAD(GROUP) ... STREAMS key ... id ... */
    GK_NUMKEYS_AT1,    /* CMD numkeys key ... (ZUNION, LMPOP, ...) */
    GK_NUMKEYS_AT2,    /* CMD arg numkeys key ... (EVAL, BLMPOP, ...) */
    GK_STORE_NUMKEYS,  /* CMD dest numkeys key ... (ZUNIONSTORE, ...) */
};

/* The groups of COMMAND DOCS, in Redis's order. */
enum {
    CG_GENERIC, CG_STRING, CG_LIST, CG_SET, CG_SORTED_SET, CG_HASH,
    CG_PUBSUB, CG_TRANSACTIONS, CG_CONNECTION, CG_SERVER, CG_SCRIPTING,
    CG_HYPERLOGLOG, CG_CLUSTER, CG_SENTINEL, CG_GEO, CG_STREAM, CG_BITMAP,
    CG_MODULE
};

/* One command's description. The strings are written compactly:
 *
 *  flags, acl, tips, doc_flags: names separated by spaces ("write fast",
 *    "keyspace string"); acl holds the categories the command declares,
 *    those its flags imply (@write, @read, @fast, @slow, ...) are added
 *    when it is described.
 *  keyspecs: specs separated by ';', each FLAGS:BEGIN:FIND:
 *    FLAGS  the key spec flags, by name, separated by ','
 *    BEGIN  "N" (the key search starts at argument N), "WORD@N" (after
 *           the argument WORD, looked for from argument N on, or from the
 *           end when N < 0), or "?" (unknown)
 *    FIND   "rL,S,M" (a range: the last key L relative to the first, or
 *           counted from the end when negative; step S; with L = -1 and
 *           M > 0, 1/M of the remaining arguments), "nI,F,S" (the number
 *           of keys is at I, the first key at F, both relative to where
 *           the search began; step S), or "?" (unknown).
 *  args: arguments separated by spaces, each
 *    TYPE[FLAGS]:name[#spec][=[token]][^since][!deprecated][(args)]
 *    TYPE   s string, i integer, d double, k key, p pattern, u unix-time,
 *           t pure-token, o oneof, b block (o and b have (args))
 *    FLAGS  ? optional, * multiple, + multiple_token
 *    #spec  the index of the key spec of a key argument
 *    =token the token before the argument; "=" alone: the name in upper
 *           case; '=""': an empty token (MIGRATE's empty_string, which
 *           COMMAND DOCS gives as an empty string). */
typedef struct commandMeta {
    const char *name;        /* "get", "config|get": lower case */
    const char *flags;       /* the flags COMMAND INFO shows */
    const char *acl;         /* declared ACL categories, or NULL */
    const char *tips;        /* command tips, or NULL */
    int getkeys;             /* GK_* */
    const char *keyspecs;    /* or NULL: no keys */
    int group;               /* CG_* */
    const char *since;       /* the version that brought the command */
    const char *doc_flags;   /* "deprecated", "syscmd", or NULL */
    const char *deprecated_since, *replaced_by; /* or NULL */
    const char *summary;     /* what the command does, in a sentence */
    const char *complexity;  /* its time complexity */
    const char *args;        /* or NULL: no arguments */
} commandMeta;

/* One key spec, parsed. */
#define KSPEC_UNKNOWN 0
#define KSPEC_BS_INDEX 1
#define KSPEC_BS_KEYWORD 2
#define KSPEC_FK_RANGE 1
#define KSPEC_FK_KEYNUM 2
#define KSPEC_MAX 8             /* no command has more */
typedef struct keySpec {
    int flags;                  /* CMD_KEY_* */
    int bs_type;                /* KSPEC_BS_* or KSPEC_UNKNOWN */
    int pos;                    /* KSPEC_BS_INDEX: the first key's index */
    const char *keyword;        /* KSPEC_BS_KEYWORD: not terminated */
    int keyword_len;
    int startfrom;              /* KSPEC_BS_KEYWORD: where the look starts */
    int fk_type;                /* KSPEC_FK_* or KSPEC_UNKNOWN */
    int lastkey, keystep, limit; /* KSPEC_FK_RANGE */
    int keynumidx, firstkey;    /* KSPEC_FK_KEYNUM (and keystep) */
} keySpec;

/* A key found in a command line: its index in argv and its flags. */
typedef struct keyReference {
    int pos;
    int flags;                  /* CMD_KEY_*, 0 when not known */
} keyReference;

/* The keys found; keys points at buf until more are needed. */
#define GETKEYS_BUF 32
typedef struct getKeysResult {
    keyReference buf[GETKEYS_BUF];
    keyReference *keys;
    int numkeys, size;
} getKeysResult;

extern const commandMeta commandMetaTable[];
extern const int commandMetaCount;
extern const char *const commandAclCategoryNames[];
extern const char *const commandKeyFlagNames[];
extern const char *const commandInfoFlagNames[];

const commandMeta *commandMetaLookup(const char *fullname);
int commandKeySpecs(const commandMeta *m, keySpec *specs);
int commandInfoFlags(const commandMeta *m);
void commandLegacyRange(const commandMeta *m, int *first, int *last,
                        int *step, int *movable);
int commandHasKeys(const commandMeta *m);
void getKeysInit(getKeysResult *r);
void getKeysFree(gkMem *mem, getKeysResult *r);
int commandAclCategoryIndex(const char *name);
uint32_t commandAclCategories(const commandMeta *m);
int getKeysFromCommand(gkMem *mem, const commandMeta *m, robj **argv,
                       int argc, getKeysResult *r);
int getKeysFromCommandLegacy(gkMem *mem, const commandMeta *m, robj **argv,
                             int argc, getKeysResult *r);

#endif
