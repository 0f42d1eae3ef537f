/* script.c -- a script's run, whatever its language, as Redis 7.0's
 * script.c: the checks before it starts, the checks of every command it
 * calls, and what happens when it runs too long (the busy script, SCRIPT
 * KILL). */
#include <string.h>
#include <strings.h>

#include "script.h"
#include "acl.h"
#include "server.h"

const scriptFlagName scriptFlagNames[] = {
    { SCRIPT_FLAG_NO_WRITES, "no-writes" },
    { SCRIPT_FLAG_ALLOW_OOM, "allow-oom" },
    { SCRIPT_FLAG_ALLOW_STALE, "allow-stale" },
    { SCRIPT_FLAG_NO_CLUSTER, "no-cluster" },
    { SCRIPT_FLAG_ALLOW_CROSS_SLOT, "allow-cross-slot-keys" },
    { 0, NULL },
};

/* The flag of this name, ignoring case (a function's flags); 0 if none. */
uint64_t scriptFlagByName(const char *name) {
    for (int k = 0; scriptFlagNames[k].name; k++)
        if (!strcasecmp(scriptFlagNames[k].name, name))
            return scriptFlagNames[k].flag;
    return 0;
}

/* The command flags a script declares with its shebang take the place of
 * EVAL's or FCALL's own (for the checks of processCommand): a script without
 * no-writes is a write, and denies OOM unless allow-oom. */
uint64_t scriptFlagsToCmdFlags(uint64_t cmd_flags, uint64_t sf) {
    cmd_flags &= ~(CMD_STALE | CMD_DENYOOM | CMD_WRITE);
    if (!(sf & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES)))
        cmd_flags |= CMD_DENYOOM;
    if (!(sf & SCRIPT_FLAG_NO_WRITES)) cmd_flags |= CMD_WRITE;
    if (sf & SCRIPT_FLAG_ALLOW_STALE) cmd_flags |= CMD_STALE;
    cmd_flags &= ~CMD_MAY_REPLICATE;
    return cmd_flags;
}

/* Whether the client is the master's link (its commands are obeyed). */
static int _mustObey(client *c) {
    return (c->flags & (CLIENT_MASTER | CLIENT_FAKE)) != 0;
}

/* The checks of a script's run against its flags (or, for a script
 * without a shebang, only the stale replica's), then the run's state.
 * C_ERR after replying to the caller. */
int scriptPrepareForRun(scriptRunCtx *run, client *script_client,
                        client *caller, const char *funcname,
                        uint64_t script_flags, int ro) {
    redisServer *s = caller->srv;
    int stale = s->masterhost && s->repl_state != REPL_STATE_CONNECTED &&
                !s->cfg.repl_serve_stale_data;
    int obey = _mustObey(caller);
    if (!(script_flags & SCRIPT_FLAG_EVAL_COMPAT_MODE)) {
        if (stale && !(script_flags & SCRIPT_FLAG_ALLOW_STALE)) {
            addReplyError(caller, "-MASTERDOWN Link with MASTER is down, "
                          "replica-serve-stale-data is set to 'no' and "
                          "'allow-stale' flag is not set on the script.");
            return C_ERR;
        }
        if (!(script_flags & SCRIPT_FLAG_NO_WRITES)) {
            if (s->masterhost && s->cfg.repl_slave_ro && !obey) {
                addReplyError(caller, "-READONLY Can not run script with "
                              "write flag on readonly replica");
                return C_ERR;
            }
            int deny = obey ? 0 : writeCommandsDeniedByDiskError(s);
            if (deny == DISK_ERROR_TYPE_RDB) {
                addReplyError(caller, "-MISCONF Redis is configured to save "
                              "RDB snapshots, but it's currently unable to "
                              "persist to disk. Writable scripts are "
                              "blocked. Use 'no-writes' flag for read only "
                              "scripts.");
                return C_ERR;
            }
            if (deny) {
                addReplyErrorFormat(caller, "-MISCONF Redis is configured "
                                    "to persist data to AOF, but it's "
                                    "currently unable to persist to disk. "
                                    "Writable scripts are blocked. Use "
                                    "'no-writes' flag for read only "
                                    "scripts. AOF error: %s",
                                    aofStrerror(s->aof.last_write_errno));
                return C_ERR;
            }
            if (ro) {
                addReplyError(caller, "Can not execute a script with write "
                              "flag using *_ro command.");
                return C_ERR;
            }
            if (!s->masterhost && s->cfg.repl_min_slaves_max_lag &&
                s->cfg.repl_min_slaves_to_write &&
                !checkGoodReplicasStatus(s)) {
                addReplyError(caller, "-NOREPLICAS Not enough good replicas "
                              "to write.");
                return C_ERR;
            }
        }
        if (s->cfg.maxmemory && s->pre_command_oom_state &&
            !(script_flags & (SCRIPT_FLAG_ALLOW_OOM |
                              SCRIPT_FLAG_NO_WRITES))) {
            addReplyError(caller, "-OOM allow-oom flag is not set on the "
                          "script, can not run it when used memory > "
                          "'maxmemory'");
            return C_ERR;
        }
    } else if (stale) {
        addReplyError(caller, "-MASTERDOWN Link with MASTER is down and "
                      "replica-serve-stale-data is set to 'no'.");
        return C_ERR;
    }
    memset(run, 0, sizeof(*run));
    run->c = script_client;
    run->original_client = caller;
    run->funcname = funcname;
    selectDb(script_client, caller->db->id);
    script_client->resp = 2;
    if (caller->flags & CLIENT_MULTI) script_client->flags |= CLIENT_MULTI;
    run->start_ns = s->el->backend.now(s->el->backend.ctx);
    run->start_cpu_ns = s->denv.cpu_ns;
    run->oom = serverOutOfMemory(s);
    run->repl_flags = PROPAGATE_AOF | PROPAGATE_REPL;
    if (ro || (!(script_flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) &&
               (script_flags & SCRIPT_FLAG_NO_WRITES)))
        run->flags |= SCRIPT_READ_ONLY;
    if (!(script_flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) &&
        (script_flags & SCRIPT_FLAG_ALLOW_OOM))
        run->flags |= SCRIPT_ALLOW_OOM;
    s->script_run = run;
    return C_OK;
}

/* The caller stops being read while a busy script serves other clients:
 * its next commands wait until the script is over. */
static void _protectClient(client *c) {
    c->flags |= CLIENT_PROTECTED;
    if (c->fd >= 0) aeDeleteFileEvent(c->srv->el, c->fd, AE_READABLE);
}

static void _unprotectClient(client *c) {
    c->flags &= ~CLIENT_PROTECTED;
    if (c->fd >= 0 && !(c->flags & CLIENT_CLOSE_ASAP))
        aeCreateFileEvent(c->srv->el, c->fd, AE_READABLE, readQueryFromClient,
                          c);
}

/* The end of a run. The script itself (EVAL) is never propagated: the
 * commands it ran were, as its effects. */
void scriptResetRun(scriptRunCtx *run) {
    redisServer *s = run->c->srv;
    run->c->flags &= ~CLIENT_MULTI;
    if (run->flags & SCRIPT_TIMEDOUT) {
        run->flags &= ~SCRIPT_TIMEDOUT;
        _unprotectClient(run->original_client);
        /* The replica's master link was left unread meanwhile. */
    }
    run->original_client->flags |= CLIENT_PREVENT_PROP;
    run->c->user = NULL;
    s->script_run = NULL;
}

/* EVAL's and FCALL's numkeys (argv[2]) against the arguments after it;
 * C_ERR after replying. */
int scriptCheckNumkeys(client *c, long long numkeys) {
    if (numkeys > c->argc - 3) {
        addReplyError(c, "Number of keys can't be greater than number of "
                      "args");
        return C_ERR;
    }
    if (numkeys < 0) {
        addReplyError(c, "Number of keys can't be negative");
        return C_ERR;
    }
    return C_OK;
}

/* The -BUSY error while an EVAL script (eval) or a function is busy. */
const char *scriptBusyError(redisServer *s, int eval) {
    (void)s;
    return eval ? "-BUSY Redis is busy running a script. You can only call "
                  "SCRIPT KILL or SHUTDOWN NOSAVE."
                : "-BUSY Redis is busy running a script. You can only call "
                  "FUNCTION KILL or SHUTDOWN NOSAVE.";
}

/* SCRIPT KILL (is_eval) or FUNCTION KILL. */
void scriptKill(client *c, int is_eval) {
    redisServer *s = c->srv;
    scriptRunCtx *run = s->script_run;
    if (!run) {
        addReplyError(c, "-NOTBUSY No scripts in execution right now.");
        return;
    }
    if (_mustObey(run->original_client)) {
        addReplyError(c, "-UNKILLABLE The busy script was sent by a master "
                      "instance in the context of replication and cannot be "
                      "killed.");
        return;
    }
    if (run->flags & SCRIPT_WRITE_DIRTY) {
        addReplyError(c, "-UNKILLABLE Sorry the script already executed "
                      "write commands against the dataset. You can either "
                      "wait the script termination or kill the server in a "
                      "hard way using the SHUTDOWN NOSAVE command.");
        return;
    }
    if (!is_eval != !(run->flags & SCRIPT_EVAL_MODE)) {
        addReplyError(c, scriptBusyError(s, run->flags & SCRIPT_EVAL_MODE));
        return;
    }
    run->flags |= SCRIPT_KILLED;
    addReplyOK(c);
}

/* Serves the other clients while a busy script runs (Redis's
 * processEventsWhileBlocked): up to 4 passes over the connections ready
 * now, each followed by the part of beforeSleep that writes the AOF and
 * the replies; no timers. In the simulated world the rest of the world
 * first catches up with the server's clock, so that what other clients
 * sent meanwhile is there to be read. */
void processEventsWhileBlocked(redisServer *s) {
    aeBackend *be = &s->el->backend;
    if (!be->stall && !be->pump) return;      /* loading in a shadow */
    if (be->pump) be->pump(be->ctx);
    s->events_while_blocked++;
    for (int i = 0; i < 4; i++) {
        int n = aeProcessFileEvents(s->el);
        beforeSleep(s->el);
        if (n == 0) break;
    }
    s->events_while_blocked--;
}

/* Called by the script every so often: once it has run for
 * busy-reply-threshold, the server logs it, protects the caller and
 * serves other clients from then on. Returns SCRIPT_KILL once SCRIPT
 * KILL asked for it. */
int scriptInterrupt(scriptRunCtx *run) {
    redisServer *s = run->c->srv;
    if (run->flags & SCRIPT_TIMEDOUT) {
        processEventsWhileBlocked(s);
        return (run->flags & SCRIPT_KILLED) ? SCRIPT_KILL : SCRIPT_CONTINUE;
    }
    uint64_t now = s->el->backend.now(s->el->backend.ctx);
    long long elapsed = (long long)((now - run->start_ns) / 1000000);
    if (s->cfg.busy_reply_threshold <= 0 ||
        elapsed < s->cfg.busy_reply_threshold)
        return SCRIPT_CONTINUE;
    serverLog(s, LL_WARNING, "Slow script detected: still in execution "
              "after %lld milliseconds. You can try killing the script "
              "using the %s command. Script name is: %s.", elapsed,
              (run->flags & SCRIPT_EVAL_MODE) ? "SCRIPT KILL"
                                              : "FUNCTION KILL",
              run->funcname);
    run->flags |= SCRIPT_TIMEDOUT;
    _protectClient(run->original_client);
    processEventsWhileBlocked(s);
    return (run->flags & SCRIPT_KILLED) ? SCRIPT_KILL : SCRIPT_CONTINUE;
}

/* Counts an error a command called by a script got without running. */
static void _rejected(redisServer *s, const redisCommand *cmd,
                      const char *err) {
    s->stat_total_error_replies++;
    if (err[0] == '-') {
        const char *sp = strchr(err, ' ');
        incrementErrorCount(s, err + 1, sp ? (size_t)(sp - err - 1)
                                           : strlen(err + 1));
    } else {
        incrementErrorCount(s, "ERR", 3);
    }
    if (cmd) s->cmdstats[cmd->id].rejected++;
    s->stat_errors_seen = s->stat_total_error_replies;
}

/* Runs the command in run->c's argv for the script, after the checks
 * Redis makes of a script's command; *err is set (the caller frees it)
 * if it is refused. */
void scriptCall(scriptRunCtx *run, sds *err) {
    client *c = run->c;
    redisServer *s = c->srv;
    client *caller = run->original_client;
    /* The script's commands run as the user that called it. */
    c->user = caller->user;
    const redisCommand *cmd = lookupCommand(s, c->argv, c->argc);
    c->cmd = c->lastcmd = cmd;
    if (!cmd || (cmd->arity > 0 && cmd->arity != c->argc) ||
        c->argc < -cmd->arity) {
        *err = sdsnew(s->mem, cmd ? "Wrong number of args calling Redis "
                                    "command from script"
                                  : "Unknown Redis command called from "
                                    "script");
        goto error;
    }
    if ((cmd->flags & CMD_NOSCRIPT) && !s->script_disable_deny_script) {
        *err = sdsnew(s->mem, "This Redis command is not allowed from "
                              "script");
        goto error;
    }
    if (s->masterhost && s->repl_state != REPL_STATE_CONNECTED &&
        !s->cfg.repl_serve_stale_data && !(cmd->flags & CMD_STALE)) {
        *err = sdsnew(s->mem, "Can not execute the command on a stale "
                              "replica");
        goto error;
    }
    int idx = 0, acl = aclCheckAllPerm(c, &idx);
    if (acl != ACL_OK) {
        addACLLogEntry(c, acl, ACL_LOG_CTX_LUA, idx, NULL, NULL);
        *err = sdscatprintf(s->mem, sdsempty(s->mem), "The user executing "
                            "the script %s", aclErrorMessage(acl));
        goto error;
    }
    if ((run->flags & SCRIPT_READ_ONLY) &&
        (cmd->flags & (CMD_WRITE | CMD_MAY_REPLICATE))) {
        *err = sdsnew(s->mem, "Write commands are not allowed from read-only "
                              "scripts.");
        goto error;
    }
    if ((cmd->flags & CMD_WRITE) && !(run->flags & SCRIPT_WRITE_DIRTY)) {
        if (s->masterhost && s->cfg.repl_slave_ro && !_mustObey(caller)) {
            *err = sdsnew(s->mem, "-READONLY You can't write against a read "
                                  "only replica.");
            goto error;
        }
        if (writeCommandsDeniedByDiskError(s)) {
            *err = writeCommandsGetDiskErrorMessage(s);
            goto error;
        }
        if (!checkGoodReplicasStatus(s)) {
            *err = sdsnew(s->mem, "-NOREPLICAS Not enough good replicas to "
                                  "write.");
            goto error;
        }
    }
    if (!(run->flags & SCRIPT_ALLOW_OOM) && s->cfg.maxmemory &&
        !_mustObey(caller) && !(run->flags & SCRIPT_WRITE_DIRTY) &&
        run->oom && (cmd->flags & CMD_DENYOOM)) {
        *err = sdsnew(s->mem, "-OOM command not allowed when used memory > "
                              "'maxmemory'.");
        goto error;
    }
    if (cmd->flags & CMD_WRITE) run->flags |= SCRIPT_WRITE_DIRTY;
    call(c);
    return;
error:
    _rejected(s, cmd, *err);
}
