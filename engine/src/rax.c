/* rax.c -- a compressed radix tree of binary keys (see rax.h).
 *
 * The tree's shape: the root has an empty label; every other node's label
 * is the run of bytes from its parent, at least one byte long, and the
 * children of a node start with distinct bytes, kept sorted. A node that
 * is not a key always has two children or more (the root excepted): a
 * non-key node with one child is merged into it, a childless non-key node
 * is removed, so the tree is as compressed as it can be after every
 * change. A lookup walks one label per level, so it costs the key's
 * length, not the number of keys.
 *
 * In key order a node comes before its descendants (its key is a prefix
 * of theirs), and sibling subtrees come in the order of their first byte.
 * So the iterator's moves are: the first key of a subtree (the node if it
 * is a key, else down the first child), the last (down the last child to
 * a leaf, which is always a key), the key after a whole subtree (up until
 * a next sibling exists, then its first) and the key before it (up until
 * a previous sibling exists, then its last, or a parent that is a key). */
#include <math.h>
#include <string.h>
#include "rax.h"

/* ---- Nodes ---- */

/* A node with a copy of len bytes of label, not a key, no children. */
static raxNode *_raxNewNode(rax *rt, const unsigned char *label,
                            size_t len) {
    raxNode *n = memCalloc(rt->mem, sizeof(*n));
    if (len) {
        n->label = memAlloc(rt->mem, len);
        memcpy(n->label, label, len);
    }
    n->len = (uint32_t)len;
    rt->numnodes++;
    return n;
}

static void _raxFreeNode(rax *rt, raxNode *n) {
    memFree(rt->mem, n->label);
    memFree(rt->mem, n->children);
    memFree(rt->mem, n);
    rt->numnodes--;
}

/* The child of n whose label starts with byte b, or NULL; *pos is its
 * index, or where a child starting with b would go. Binary search. */
static raxNode *_raxFindChild(raxNode *n, unsigned char b, uint32_t *pos) {
    uint32_t lo = 0, hi = n->numchildren;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        unsigned char m = n->children[mid]->label[0];
        if (m == b) {
            *pos = mid;
            return n->children[mid];
        }
        if (m < b) lo = mid + 1;
        else hi = mid;
    }
    *pos = lo;
    return NULL;
}

/* Inserts child at index pos of n's children. */
static void _raxAddChild(rax *rt, raxNode *n, uint32_t pos, raxNode *child) {
    n->children = memRealloc(rt->mem, n->children,
                             sizeof(raxNode *) * (n->numchildren + 1));
    memmove(&n->children[pos + 1], &n->children[pos],
            sizeof(raxNode *) * (n->numchildren - pos));
    n->children[pos] = child;
    n->numchildren++;
}

static void _raxRemoveChild(raxNode *n, uint32_t pos) {
    memmove(&n->children[pos], &n->children[pos + 1],
            sizeof(raxNode *) * (n->numchildren - pos - 1));
    n->numchildren--;
}

/* Bytes a and b have in common from the start. */
static size_t _raxCommon(const unsigned char *a, size_t alen,
                         const unsigned char *b, size_t blen) {
    size_t i = 0, max = alen < blen ? alen : blen;
    while (i < max && a[i] == b[i]) i++;
    return i;
}

/* Merges n's only child into n: n's label grows by the child's, and n
 * takes over its key, value and children. n stays where it is, so its
 * parent needs no change. */
static void _raxMergeChild(rax *rt, raxNode *n) {
    raxNode *c = n->children[0];
    n->label = memRealloc(rt->mem, n->label, n->len + c->len);
    memcpy(n->label + n->len, c->label, c->len);
    n->len += c->len;
    n->iskey = c->iskey;
    n->value = c->value;
    memFree(rt->mem, n->children);
    n->children = c->children;
    n->numchildren = c->numchildren;
    c->children = NULL;
    _raxFreeNode(rt, c);
}

/* ---- The tree ---- */

/* A new empty tree allocating from m. */
rax *raxNew(gkMem *m) {
    rax *rt = memCalloc(m, sizeof(*rt));
    rt->mem = m;
    rt->head = _raxNewNode(rt, NULL, 0);
    return rt;
}

static void _raxFreeNodes(rax *rt, raxNode *n,
                          void (*free_cb)(void *, void *), void *ctx) {
    for (uint32_t i = 0; i < n->numchildren; i++)
        _raxFreeNodes(rt, n->children[i], free_cb, ctx);
    if (n->iskey && free_cb) free_cb(ctx, n->value);
    _raxFreeNode(rt, n);
}

/* Frees the tree, calling free_cb(ctx, value) for each key's value. */
void raxFreeWithCallback(rax *rt, void (*free_cb)(void *, void *),
                         void *ctx) {
    _raxFreeNodes(rt, rt->head, free_cb, ctx);
    memFree(rt->mem, rt);
}

void raxFree(rax *rt) {
    raxFreeWithCallback(rt, NULL, NULL);
}

uint64_t raxSize(const rax *rt) {
    return rt->numele;
}

/* Adds s -> data. Returns 1 if the key is new; 0 if it existed, with its
 * old value in *old (if old is not NULL), replaced by data only when
 * overwrite is set. */
static int _raxGenericInsert(rax *rt, const unsigned char *s, size_t len,
                             void *data, void **old, int overwrite) {
    raxNode *n = rt->head;
    size_t i = 0;
    for (;;) {
        if (i == len) {
            if (n->iskey) {
                if (old) *old = n->value;
                if (overwrite) n->value = data;
                return 0;
            }
            break;
        }
        uint32_t pos;
        raxNode *c = _raxFindChild(n, s[i], &pos);
        if (!c) {
            c = _raxNewNode(rt, s + i, len - i);
            _raxAddChild(rt, n, pos, c);
            n = c;
            break;
        }
        size_t k = _raxCommon(c->label, c->len, s + i, len - i);
        if (k == c->len) {
            n = c;
            i += k;
            continue;
        }
        /* The key leaves c's label after k bytes: c is split into a node
         * with those k bytes, whose child is c with the rest. */
        raxNode *m = _raxNewNode(rt, c->label, k);
        memmove(c->label, c->label + k, c->len - k);
        c->len -= (uint32_t)k;
        _raxAddChild(rt, m, 0, c);
        n->children[pos] = m;
        i += k;
        n = m;
        if (i < len) {
            raxNode *leaf = _raxNewNode(rt, s + i, len - i);
            _raxAddChild(rt, m, s[i] > c->label[0] ? 1 : 0, leaf);
            n = leaf;
        }
        break;
    }
    n->iskey = 1;
    n->value = data;
    rt->numele++;
    return 1;
}

/* Inserts or overwrites s -> data (see _raxGenericInsert). */
int raxInsert(rax *rt, const unsigned char *s, size_t len, void *data,
              void **old) {
    return _raxGenericInsert(rt, s, len, data, old, 1);
}

/* Inserts s -> data only if s is not a key yet. */
int raxTryInsert(rax *rt, const unsigned char *s, size_t len, void *data,
                 void **old) {
    return _raxGenericInsert(rt, s, len, data, old, 0);
}

/* The node whose path spells s exactly (key or not), or NULL; with
 * parent, its parent and its place among the parent's children (the
 * root has none). */
static raxNode *_raxWalk(rax *rt, const unsigned char *s, size_t len,
                         raxNode **parent, uint32_t *ppos) {
    raxNode *n = rt->head;
    size_t i = 0;
    while (i < len) {
        uint32_t pos;
        raxNode *c = _raxFindChild(n, s[i], &pos);
        if (!c || c->len > len - i || memcmp(c->label, s + i, c->len))
            return NULL;
        i += c->len;
        if (parent) {
            *parent = n;
            *ppos = pos;
        }
        n = c;
    }
    return n;
}

/* Sets *value (if not NULL) to s's value; returns 1, or 0 if s is not a
 * key. */
int raxFind(rax *rt, const unsigned char *s, size_t len, void **value) {
    raxNode *n = _raxWalk(rt, s, len, NULL, NULL);
    if (!n || !n->iskey) return 0;
    if (value) *value = n->value;
    return 1;
}

/* Removes s; returns 1 with its value in *old (if not NULL), or 0 if s
 * is not a key. The tree is compressed again around the hole. */
int raxRemove(rax *rt, const unsigned char *s, size_t len, void **old) {
    raxNode *parent = NULL;
    uint32_t ppos = 0;
    raxNode *n = _raxWalk(rt, s, len, &parent, &ppos);
    if (!n || !n->iskey) return 0;
    if (old) *old = n->value;
    n->iskey = 0;
    n->value = NULL;
    rt->numele--;
    if (!parent) return 1;      /* the root stays, key or not */
    if (n->numchildren == 0) {
        _raxRemoveChild(parent, ppos);
        _raxFreeNode(rt, n);
        if (parent != rt->head && !parent->iskey &&
            parent->numchildren == 1)
            _raxMergeChild(rt, parent);
    } else if (n->numchildren == 1) {
        _raxMergeChild(rt, n);
    }
    return 1;
}

/* ---- Iterators ---- */

/* A new iterator on rt, not positioned: seek it before stepping. */
void raxStart(raxIterator *it, rax *rt) {
    memset(it, 0, sizeof(*it));
    it->rt = rt;
    it->flags = RAX_ITER_EOF;
}

void raxStop(raxIterator *it) {
    memFree(it->rt->mem, it->key);
    memFree(it->rt->mem, it->stack);
    memFree(it->rt->mem, it->idx);
    it->key = NULL;
    it->stack = NULL;
    it->idx = NULL;
}

int raxEOF(const raxIterator *it) {
    return (it->flags & RAX_ITER_EOF) != 0;
}

/* Goes down to child number pos of the current node. */
static void _raxItPush(raxIterator *it, uint32_t pos) {
    gkMem *m = it->rt->mem;
    raxNode *c = it->stack[it->depth - 1]->children[pos];
    if (it->depth == it->stack_cap) {
        it->stack_cap *= 2;
        it->stack = memRealloc(m, it->stack,
                               sizeof(raxNode *) * it->stack_cap);
        it->idx = memRealloc(m, it->idx, sizeof(uint32_t) * it->stack_cap);
    }
    if (it->key_len + c->len > it->key_cap) {
        it->key_cap = (it->key_len + c->len) * 2;
        it->key = memRealloc(m, it->key, it->key_cap);
    }
    memcpy(it->key + it->key_len, c->label, c->len);
    it->key_len += c->len;
    it->idx[it->depth - 1] = pos;
    it->stack[it->depth++] = c;
}

/* Goes up to the parent; returns the index the node had in it. */
static uint32_t _raxItPop(raxIterator *it) {
    it->key_len -= it->stack[--it->depth]->len;
    return it->idx[it->depth - 1];
}

static raxNode *_raxItTop(raxIterator *it) {
    return it->stack[it->depth - 1];
}

/* The first key of the current node's subtree. 0 if there is none (only
 * the root of an empty tree has no key in its subtree). */
static int _raxItLeftmost(raxIterator *it) {
    while (!_raxItTop(it)->iskey) {
        if (_raxItTop(it)->numchildren == 0) return 0;
        _raxItPush(it, 0);
    }
    return 1;
}

/* The last key of the current node's subtree, 0 if none. */
static int _raxItRightmost(raxIterator *it) {
    while (_raxItTop(it)->numchildren)
        _raxItPush(it, _raxItTop(it)->numchildren - 1);
    return _raxItTop(it)->iskey;
}

/* The first key after the current node's whole subtree, 0 if none. */
static int _raxItAfterSubtree(raxIterator *it) {
    while (it->depth > 1) {
        uint32_t pos = _raxItPop(it);
        if (pos + 1 < _raxItTop(it)->numchildren) {
            _raxItPush(it, pos + 1);
            return _raxItLeftmost(it);
        }
    }
    return 0;
}

/* The last key before the current node's subtree, 0 if none. */
static int _raxItBeforeSubtree(raxIterator *it) {
    while (it->depth > 1) {
        uint32_t pos = _raxItPop(it);
        if (pos > 0) {
            _raxItPush(it, pos - 1);
            return _raxItRightmost(it);
        }
        if (_raxItTop(it)->iskey) return 1;
    }
    return 0;
}

/* The key after the current one. */
static int _raxItNextKey(raxIterator *it) {
    if (_raxItTop(it)->numchildren) {
        _raxItPush(it, 0);
        return _raxItLeftmost(it);
    }
    return _raxItAfterSubtree(it);
}

/* Sets the iterator on the outcome of a move: found or EOF. */
static int _raxItLand(raxIterator *it, int found) {
    if (!found) {
        it->flags |= RAX_ITER_EOF;
        it->data = NULL;
        return 0;
    }
    it->flags &= ~RAX_ITER_EOF;
    it->data = _raxItTop(it)->value;
    return 1;
}

/* Seeks the element that op names relative to ele: "^" the first, "$"
 * the last, "=" ele itself, ">=" ">" "<=" "<" the nearest key that way.
 * Returns 1 if there is one (the next raxNext or raxPrev returns it),
 * else 0 (the iterator is at EOF). */
int raxSeek(raxIterator *it, const char *op, const unsigned char *ele,
            size_t len) {
    gkMem *m = it->rt->mem;
    if (!it->stack) {
        it->stack_cap = RAX_ITER_STACK;
        it->stack = memAlloc(m, sizeof(raxNode *) * it->stack_cap);
        it->idx = memAlloc(m, sizeof(uint32_t) * it->stack_cap);
    }
    it->stack[0] = it->rt->head;
    it->depth = 1;
    it->key_len = 0;
    it->flags = RAX_ITER_JUST_SEEKED;
    if (op[0] == '^') return _raxItLand(it, _raxItLeftmost(it));
    if (op[0] == '$') return _raxItLand(it, _raxItRightmost(it));
    int eq = op[0] == '=' || op[1] == '=';
    int gt = op[0] == '>', lt = op[0] == '<';
    size_t i = 0;
    for (;;) {
        raxNode *n = _raxItTop(it);
        if (i == len) {
            /* Every key of n's subtree is >= ele; n's own key is ele. */
            if (n->iskey && eq) return _raxItLand(it, 1);
            if (gt) return _raxItLand(it, n->iskey ? _raxItNextKey(it)
                                                   : _raxItLeftmost(it));
            if (lt) return _raxItLand(it, _raxItBeforeSubtree(it));
            return _raxItLand(it, 0);
        }
        uint32_t pos;
        raxNode *c = _raxFindChild(n, ele[i], &pos);
        if (!c) {
            /* Children before pos hold smaller keys, from pos on greater;
             * n itself (a proper prefix) is smaller. */
            if (gt) {
                if (pos == n->numchildren)
                    return _raxItLand(it, _raxItAfterSubtree(it));
                _raxItPush(it, pos);
                return _raxItLand(it, _raxItLeftmost(it));
            }
            if (lt) {
                if (pos > 0) {
                    _raxItPush(it, pos - 1);
                    return _raxItLand(it, _raxItRightmost(it));
                }
                if (n->iskey) return _raxItLand(it, 1);
                return _raxItLand(it, _raxItBeforeSubtree(it));
            }
            return _raxItLand(it, 0);
        }
        size_t k = _raxCommon(c->label, c->len, ele + i, len - i);
        _raxItPush(it, pos);
        if (k == c->len) {
            i += k;
            continue;
        }
        /* ele leaves c's label inside it: c's whole subtree is on one
         * side of ele. */
        int greater = i + k == len || c->label[k] > ele[i + k];
        if (gt) return _raxItLand(it, greater ? _raxItLeftmost(it)
                                              : _raxItAfterSubtree(it));
        if (lt) return _raxItLand(it, greater ? _raxItBeforeSubtree(it)
                                              : _raxItRightmost(it));
        return _raxItLand(it, 0);
    }
}

/* Steps to the next key (the seeked one first). Returns 0 at the end. */
int raxNext(raxIterator *it) {
    if (it->flags & RAX_ITER_JUST_SEEKED) {
        it->flags &= ~RAX_ITER_JUST_SEEKED;
        return !(it->flags & RAX_ITER_EOF);
    }
    if (it->flags & RAX_ITER_EOF) return 0;
    return _raxItLand(it, _raxItNextKey(it));
}

/* Steps to the previous key (the seeked one first). 0 at the start. */
int raxPrev(raxIterator *it) {
    if (it->flags & RAX_ITER_JUST_SEEKED) {
        it->flags &= ~RAX_ITER_JUST_SEEKED;
        return !(it->flags & RAX_ITER_EOF);
    }
    if (it->flags & RAX_ITER_EOF) return 0;
    return _raxItLand(it, _raxItBeforeSubtree(it));
}

/* The nodes Redis's rax would have for the same keys (XINFO STREAM's
 * radix-tree-nodes). Its nodes hold either one run of bytes leading to a
 * single child, or one byte per child of a branching node; so where a
 * node here branches, each child whose label is longer than one byte is
 * a node of its own there plus a node holding the rest of the label. A
 * node with a single child carries its child's label as its run. */
static uint64_t _raxRedisNodes(const raxNode *n) {
    uint64_t count = 1;
    for (uint32_t i = 0; i < n->numchildren; i++) {
        if (n->numchildren > 1 && n->children[i]->len > 1) count++;
        count += _raxRedisNodes(n->children[i]);
    }
    return count;
}

uint64_t raxNodesAsRedis(const rax *rt) {
    return _raxRedisNodes(rt->head);
}

/* Moves a seeked iterator on a random walk through the tree, as Redis's
 * raxRandomWalk: from the node it stands on, each step goes down to one
 * of the children or up to the parent, all equally likely, and the walk
 * ends on a key once steps keys have been passed (steps 0: between 1 and
 * 2 * (1 + ln(keys)) of them, drawn). It picks a key at random in time
 * proportional to the tree's depth rather than its size, but not
 * uniformly: a key near the root is passed more often. The draws come
 * from rng, where Redis calls rand(). Returns 1 with the iterator on the
 * key reached, 0 (EOF) if the tree is empty. */
int raxRandomWalk(raxIterator *it, size_t steps, gkRng *rng) {
    if (it->rt->numele == 0 || !it->stack) return _raxItLand(it, 0);
    if (steps == 0) {
        uint64_t fle = 2 * (1 + (uint64_t)floor(log((double)it->rt->numele)));
        steps = 1 + (size_t)rngBelow(rng, fle);
    }
    while (steps > 0 || !_raxItTop(it)->iskey) {
        raxNode *n = _raxItTop(it);
        uint32_t up = it->depth > 1;
        uint32_t r = (uint32_t)rngBelow(rng, n->numchildren + up);
        if (r == n->numchildren) _raxItPop(it);
        else _raxItPush(it, r);
        if (_raxItTop(it)->iskey && steps > 0) steps--;
    }
    it->flags &= ~RAX_ITER_JUST_SEEKED;
    return _raxItLand(it, 1);
}
