/* t_stream_cmd.h -- what the stream command files share: ID arguments,
 * ID replies, range replies with consumer group delivery, and the
 * propagation of what a group read or claim changed. */
#ifndef GK_T_STREAM_CMD_H
#define GK_T_STREAM_CMD_H

#include "server.h"
#include "stream.h"

#define STREAMID_STATIC_VECTOR_LEN 8

void addReplyStreamID(client *c, streamID *id);
robj *createObjectFromStreamID(redisServer *s, streamID *id);
int streamParseIDOrReply(client *c, robj *o, streamID *id,
                         uint64_t missing_seq);
int streamParseStrictIDOrReply(client *c, robj *o, streamID *id,
                               uint64_t missing_seq, int *seq_given);
int streamParseIntervalIDOrReply(client *c, robj *o, streamID *id,
                                 int *exclude, uint64_t missing_seq);
streamID *streamParseIDsOrReply(client *c, int from, streamID *static_ids,
                                int reply);
streamConsumer *streamCreateConsumer(client *c, streamCG *cg, sds name,
                                     robj *key, int dbid, int flags);
void streamPropagateXCLAIM(client *c, robj *key, streamCG *group,
                           robj *groupname, robj *id, streamNACK *nack);
void streamPropagateGroupID(client *c, robj *key, streamCG *group,
                            robj *groupname);
void streamPropagateConsumerCreation(client *c, robj *key, robj *groupname,
                                     sds name);
size_t streamReplyWithRange(client *c, stream *st, streamID *start,
                            streamID *end, size_t count, int rev,
                            streamCG *group, streamConsumer *consumer,
                            int flags, streamPropInfo *spi);

#endif
