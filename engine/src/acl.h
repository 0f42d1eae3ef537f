/* acl.h -- users and their permissions, as Redis 7.0's ACL has them.
 *
 * A user has flags (on/off, nopass, the payload sanitizing choice), a
 * set of password hashes, and one or more selectors. A selector grants
 * commands (a bit per command id, plus the first arguments allowed of
 * commands otherwise denied), key patterns (each for reading, writing or
 * both) and channel patterns. The first selector is the user's own (the
 * "root" one, set by rules outside parentheses); the others come from
 * "(...)" rules. A command is allowed when any one selector allows it
 * whole: the command, every key it names and every channel.
 *
 * acl.c holds the users, the rules and the checks; acl_cmd.c the ACL
 * command, the ACL log and the ACL file. What ACL knows of each command
 * (its categories, where its keys are and what it does to them) is what
 * COMMAND describes (command_keys.h). */
#ifndef GK_ACL_H
#define GK_ACL_H

#include <stdint.h>
#include "server.h"
#include "rax.h"

/* What a check finds (Redis's values: the worst of several denials is
 * the greatest). */
#define ACL_OK 0
#define ACL_DENIED_CMD 1
#define ACL_DENIED_KEY 2
#define ACL_DENIED_AUTH 3       /* only in the ACL log */
#define ACL_DENIED_CHANNEL 4

/* The errors of a rule (aclSetUser; Redis reports them through errno,
 * whose names are given). */
#define ACL_ERR_SYNTAX (-1)         /* EINVAL */
#define ACL_ERR_UNKNOWN (-2)        /* ENOENT */
#define ACL_ERR_KEYS_ALL (-3)       /* EEXIST */
#define ACL_ERR_CHANNELS_ALL (-4)   /* EISDIR */
#define ACL_ERR_NO_PASSWORD (-5)    /* ENODEV */
#define ACL_ERR_BAD_HASH (-6)       /* EBADMSG */
#define ACL_ERR_DUPLICATE (-7)      /* EALREADY */
#define ACL_ERR_FIRSTARG_SUB (-8)   /* ECHILD */

/* Where a denial happened, for the ACL log. */
#define ACL_LOG_CTX_TOPLEVEL 0
#define ACL_LOG_CTX_LUA 1
#define ACL_LOG_CTX_MULTI 2

/* The number of command categories (commandAclCategoryNames). */
#define ACL_CATEGORY_COUNT 21

/* A user's flags (USER_FLAG_* in Redis). */
#define USER_FLAG_ENABLED (1 << 0)
#define USER_FLAG_DISABLED (1 << 1)
#define USER_FLAG_NOPASS (1 << 2)
#define USER_FLAG_SANITIZE_PAYLOAD (1 << 3)
#define USER_FLAG_SANITIZE_PAYLOAD_SKIP (1 << 4)

/* A selector's flags. */
#define SELECTOR_FLAG_ROOT (1 << 0)         /* the user's own */
#define SELECTOR_FLAG_ALLKEYS (1 << 1)      /* ~* */
#define SELECTOR_FLAG_ALLCOMMANDS (1 << 2)  /* +@all */
#define SELECTOR_FLAG_ALLCHANNELS (1 << 3)  /* &* */

/* What a key pattern allows. */
#define ACL_READ_PERMISSION (1 << 0)
#define ACL_WRITE_PERMISSION (1 << 1)
#define ACL_ALL_PERMISSION (ACL_READ_PERMISSION | ACL_WRITE_PERMISSION)

/* The command bitmap has room for 1024 ids; the last bit is never a
 * command's: +@all sets it, so that a selector built from +@all (which
 * would allow commands added later) can be told from one that lists
 * every command. */
#define ACL_COMMAND_BITS 1024
#define ACL_FUTURE_COMMANDS_BIT (ACL_COMMAND_BITS - 1)

typedef struct aclKeyPattern {
    int perm;                   /* ACL_*_PERMISSION */
    sds pattern;
} aclKeyPattern;

typedef struct aclSelector {
    uint32_t flags;             /* SELECTOR_FLAG_* */
    uint64_t allowed[ACL_COMMAND_BITS / 64];  /* a bit per command id */
    /* For a command whose bit is clear: the first arguments it may be
     * run with (+select|0), NULL-terminated, by command id; NULL when no
     * command has any. */
    sds **firstargs;
    aclKeyPattern *keys;        /* in the order added */
    int nkeys, keys_cap;
    sds *channels;              /* in the order added */
    int nchannels, channels_cap;
} aclSelector;

typedef struct user {
    sds name;
    uint32_t flags;             /* USER_FLAG_* */
    sds *passwords;             /* SHA-256 hex digests, in the order added */
    int npasswords;
    aclSelector **selectors;    /* [0] is the root selector */
    int nselectors;
    /* The rules as ACL LIST shows them, made when first asked for and
     * dropped at every change; NULL until then. */
    sds description;
} user;

/* One entry of the ACL log. */
typedef struct aclLogEntry {
    long long count;            /* times it happened, grouped */
    int reason;                 /* ACL_DENIED_* */
    int context;                /* ACL_LOG_CTX_* */
    sds object;                 /* the command, key, channel, or AUTH */
    sds username;
    long long ctime;            /* unix ms of the last time */
    sds cinfo;                  /* CLIENT LIST line of the last client */
} aclLogEntry;

/* The server's ACL state (redisServer.acl). */
typedef struct aclState {
    rax *users;                 /* name -> user, in byte order */
    user *default_user;         /* never deleted, nor replaced */
    aclLogEntry **log;          /* newest first */
    long nlog, log_cap;
    /* "user" lines of the configuration, applied at startup: each a
     * NULL-terminated array of the name and its rules. */
    sds **to_load;
    int nto_load, to_load_cap;
    uint32_t *cmd_categories;   /* by command id, a bit per category */
} aclState;

/* acl.c */
void aclInit(redisServer *s);
void aclRelease(redisServer *s);
user *aclGetUser(redisServer *s, const char *name, size_t len);
user *aclCreateUser(redisServer *s, const char *name, size_t len);
user *aclCreateUnlinkedUser(redisServer *s);
user *aclCreateDefaultUser(redisServer *s);
void aclSetDefaultRules(redisServer *s, user *u);
void aclFreeUser(redisServer *s, user *u);
void aclCopyUser(redisServer *s, user *dst, user *src);
void aclFreeUserAndKillClients(redisServer *s, user *u);
int aclSetUser(redisServer *s, user *u, const char *op, size_t len);
const char *aclSetUserErrorString(int err);
sds aclStringSetUser(redisServer *s, user *u, sds name, sds *argv,
                     int argc);
sds *aclMergeSelectorArguments(redisServer *s, sds *argv, int argc,
                               int *merged, int *bad);
sds aclDescribeUser(redisServer *s, user *u);
sds aclDescribeSelectorCommands(redisServer *s, aclSelector *sel);
int aclStringHasSpaces(const char *p, size_t len);
int aclCheckCredentials(redisServer *s, robj *username, robj *password);
int aclAuthenticateUser(client *c, robj *username, robj *password);
int aclCheckAllUserCommandPerm(redisServer *s, user *u,
                               const redisCommand *cmd, robj **argv,
                               int argc, int *idx);
int aclCheckAllPerm(client *c, int *idx);
int aclUserCheckCmdWithUnrestrictedKeyAccess(redisServer *s, user *u,
                                             const redisCommand *cmd,
                                             robj **argv, int argc,
                                             int perm);
const char *aclErrorMessage(int result);
const redisCommand *aclLookupCommand(redisServer *s, const char *name);
void aclForEachCommand(redisServer *s,
                       void (*fn)(void *ctx, const redisCommand *cmd),
                       void *ctx);

/* acl_cmd.c */
void addACLLogEntry(client *c, int reason, int context, int argpos,
                    sds username, sds object);
void aclLogRelease(redisServer *s);
int aclAppendUserForLoading(redisServer *s, int argc, char **argv,
                            int *bad, const char **why);
int aclLoadUsersAtStartup(redisServer *s);
void aclRewriteConfig(redisServer *s, rewriteState *st);

#endif
