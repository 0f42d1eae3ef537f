/* acl.c -- authentication as Redis 7.0 does it with one user, "default":
 * AUTH, the requirepass parameter, the NOAUTH error, and the ACL
 * subcommands that describe users (WHOAMI, USERS, LIST, CAT, HELP).
 *
 * There is no rules engine: no ACL SETUSER, no other users, no command
 * or key permissions. The default user is always on, may run every
 * command and touch every key and channel ("~* &* +@all"), and has either
 * no password (nopass) or the one requirepass gives it. A connection is
 * authenticated when it opens if the default user has no password; with
 * one, it must AUTH (or HELLO ... AUTH) before anything but AUTH, HELLO,
 * QUIT and RESET. Setting requirepass does not log out connections that
 * are already authenticated, as in Redis.
 *
 * Passwords are kept and compared as their SHA-256, as Redis keeps them,
 * which is also how ACL LIST shows them ("#<64 hex digits>"). */
#include <string.h>
#include <strings.h>
#include <stdint.h>
#include "server.h"
#include "command_keys.h"

/* ---- SHA-256 (FIPS 180-4). ---- */

static const uint32_t sha256K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 };

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/* One 64-byte block into the state h. */
static void _sha256Block(uint32_t h[8], const unsigned char *p) {
    uint32_t w[64], v[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^
                      (w[i - 15] >> 3);
        uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^
                      (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(v, h, sizeof(v));
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = ROTR(v[4], 6) ^ ROTR(v[4], 11) ^ ROTR(v[4], 25);
        uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
        uint32_t t1 = v[7] + S1 + ch + sha256K[i] + w[i];
        uint32_t S0 = ROTR(v[0], 2) ^ ROTR(v[0], 13) ^ ROTR(v[0], 22);
        uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
        memmove(&v[1], &v[0], sizeof(uint32_t) * 7);
        v[4] += t1;
        v[0] = t1 + S0 + maj;
    }
    for (int i = 0; i < 8; i++) h[i] += v[i];
}

/* The SHA-256 of p[0..len) as 64 lower-case hex digits and a NUL. */
static void _sha256Hex(const void *p, size_t len, char out[65]) {
    uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    const unsigned char *b = p;
    size_t left = len;
    for (; left >= 64; b += 64, left -= 64) _sha256Block(h, b);
    unsigned char tail[128] = { 0 };
    memcpy(tail, b, left);
    tail[left] = 0x80;
    size_t tlen = left < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++)
        tail[tlen - 1 - i] = (unsigned char)(bits >> (8 * i));
    _sha256Block(h, tail);
    if (tlen == 128) _sha256Block(h, tail + 64);
    for (int i = 0; i < 64; i++)
        out[i] = "0123456789abcdef"[(h[i / 8] >> (28 - 4 * (i % 8))) & 15];
    out[64] = '\0';
}

/* ---- The default user. ---- */

/* requirepass: the default user's password, or "" for none (nopass).
 * The server keeps its hash (and the text, for CONFIG GET and CONFIG
 * REWRITE, as Redis keeps the parameter). Returns C_OK. */
int aclSetRequirePass(redisServer *s, const char *pass) {
    sdsfree(s->mem, s->requirepass);
    s->requirepass = pass[0] ? sdsnew(s->mem, pass) : NULL;
    return C_OK;
}

/* A new (or RESET) connection is authenticated when the default user
 * needs no password. */
void clientSetDefaultAuth(client *c) {
    c->authenticated = c->srv->requirepass == NULL;
}

/* Whether c must authenticate before running a command. */
int authRequired(client *c) {
    return c->srv->requirepass != NULL && !c->authenticated;
}

/* Compares two 64-digit hashes in time independent of where they
 * differ, as Redis compares passwords. */
static int _hashEqual(const char *a, const char *b) {
    unsigned diff = 0;
    for (int i = 0; i < 64; i++) diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

/* Whether username and password log in: the user must be "default",
 * and the password its password unless it has none. C_OK or C_ERR. */
int aclCheckDefaultPassword(redisServer *s, robj *username, robj *password) {
    char ubuf[LONG_STR_SIZE], pbuf[LONG_STR_SIZE];
    size_t ulen, plen;
    const char *u = objectStrBytes(username, ubuf, &ulen);
    if (ulen != 7 || memcmp(u, "default", 7)) return C_ERR;
    if (!s->requirepass) return C_OK;
    const char *p = objectStrBytes(password, pbuf, &plen);
    char want[65], got[65];
    _sha256Hex(s->requirepass, sdslen(s->requirepass), want);
    _sha256Hex(p, plen, got);
    return _hashEqual(want, got) ? C_OK : C_ERR;
}

/* AUTH <password> | AUTH <username> <password>: the password form is the
 * default user's, and only makes sense when it has a password. MONITOR
 * sees the arguments redacted. */
void authCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc > 3) {
        addReplyError(c, "syntax error");
        return;
    }
    redactClientCommandArgument(c, 1);
    robj *username, *password;
    robj *dflt = createStringObject(s, "default", 7);
    if (c->argc == 2) {
        if (!s->requirepass) {
            decrRefCount(s, dflt);
            addReplyError(c, "AUTH <password> called without any password "
                          "configured for the default user. Are you sure "
                          "your configuration is correct?");
            return;
        }
        username = dflt;
        password = c->argv[1];
    } else {
        username = c->argv[1];
        password = c->argv[2];
        redactClientCommandArgument(c, 2);
    }
    if (aclCheckDefaultPassword(s, username, password) == C_OK) {
        c->authenticated = 1;
        addReplyOK(c);
    } else {
        addReplyError(c, "-WRONGPASS invalid username-password pair or user "
                      "is disabled.");
    }
    decrRefCount(s, dflt);
}

/* ---- ACL ---- */

/* ACL WHOAMI: the connection's user. */
void aclWhoamiCommand(client *c) { addReplyBulkCString(c, "default"); }

/* ACL USERS: every user's name. */
void aclUsersCommand(client *c) {
    addReplyArrayLen(c, 1);
    addReplyBulkCString(c, "default");
}

/* ACL LIST: each user as a line of an ACL file, as 7.0 describes the
 * default user: flags, passwords, then its selector. */
void aclListCommand(client *c) {
    redisServer *s = c->srv;
    sds line = sdsnew(s->mem, "user default on ");
    if (s->requirepass) {
        char hex[65];
        _sha256Hex(s->requirepass, sdslen(s->requirepass), hex);
        line = sdscatprintf(s->mem, line, "#%s ", hex);
    } else {
        line = sdscat(s->mem, line, "nopass ");
    }
    line = sdscat(s->mem, line, "~* &* +@all");
    addReplyArrayLen(c, 1);
    addReplyBulkSds(c, line);
}

/* The commands (and subcommands, as "container|sub") of category index
 * cat, replied one by one; returns how many. */
static long _catCommands(client *c, const redisCommand *cmd, int cat) {
    long n = 0;
    if (commandAclCategories(commandMetaLookup(cmd->fullname)) &
        (1u << cat)) {
        addReplyBulkCString(c, cmd->fullname);
        n++;
    }
    for (const redisCommand *sub = cmd->subcommands; sub && sub->declared_name;
         sub++)
        n += _catCommands(c, sub, cat);
    return n;
}

/* ACL CAT [<category>]: 7.0's categories, or the commands (and
 * subcommands) in one, from the categories each command's description
 * declares and those its flags imply; in the table's order (Redis gives
 * them in its hash table's order). */
void aclCatCommand(client *c) {
    if (c->argc == 2) {
        long n = 0;
        while (commandAclCategoryNames[n]) n++;
        addReplyArrayLen(c, n);
        for (long j = 0; j < n; j++)
            addReplyBulkCString(c, commandAclCategoryNames[j]);
        return;
    }
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    const char *name = c->argv[2]->v.ptr;
    int cat = commandAclCategoryIndex(name);
    if (cat < 0) {
        addReplyErrorFormat(c, "Unknown category '%.128s'", name);
        return;
    }
    void *len = addReplyDeferredLen(c);
    long n = 0;
    for (const redisCommand *cmd = c->srv->cmdtable; cmd->declared_name; cmd++)
        n += _catCommands(c, cmd, cat);
    setDeferredArrayLen(c, len, n);
}

/* ACL HELP: 7.0's text. */
void aclHelpCommand(client *c) {
    static const char *help[] = {
"CAT [<category>]",
"    List all commands that belong to <category>, or all command categories",
"    when no category is specified.",
"DELUSER <username> [<username> ...]",
"    Delete a list of users.",
"DRYRUN <username> <command> [<arg> ...]",
"    Returns whether the user can execute the given command without "
"executing the command.",
"GETUSER <username>",
"    Get the user's details.",
"GENPASS [<bits>]",
"    Generate a secure 256-bit user password. The optional `bits` argument "
"can",
"    be used to specify a different size.",
"LIST",
"    Show users details in config file format.",
"LOAD",
"    Reload users from the ACL file.",
"LOG [<count> | RESET]",
"    Show the ACL log entries.",
"SAVE",
"    Save the current config to the ACL file.",
"SETUSER <username> <attribute> [<attribute> ...]",
"    Create or modify a user with the specified attributes.",
"USERS",
"    List all the registered usernames.",
"WHOAMI",
"    Return the current connection username.",
        NULL };
    addReplyHelp(c, help);
}
