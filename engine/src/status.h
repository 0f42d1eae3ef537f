/* status.h -- the status convention inside the engine.
 *
 * The embedding API (glasskv.h) returns GK_OK or a negative GK_E* code a
 * host can tell apart. Inside the engine a call that can fail says only
 * whether it did: C_OK or C_ERR, in every module (the event loop, the
 * dict, the server, the memcached-style node), with the reason, when there
 * is one to give, in an argument or the server's log. */
#ifndef GK_STATUS_H
#define GK_STATUS_H

#define C_OK 0
#define C_ERR -1

#endif
