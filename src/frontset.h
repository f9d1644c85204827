/*-------------------------------------------------------------------------
 *
 * frontset.h
 *	  The set of many byte keys (key.h: CD_KEY_BYTES) with its sorted part
 *	  front-coded: each key as the length of the prefix it shares with the
 *	  previous one, the length of the rest, and the rest (serialkeys.h's byte
 *	  form, so that its sorted part is what a serialized state holds).
 *
 * A set of variable-size keys (varset.h) becomes one when it grows past
 * CD_FRONT_MIN_BYTES of entries and front coding takes at most 3/5 of
 * them (policy.h: cd_pack_pays_off), checked each time it grows past a
 * power of two; a large deserialized state (a parallel worker's), when
 * front coding is no larger (cd_front_state_stays).  Keys that share long prefixes (URLs, e-mail addresses,
 * numbered names, hex strings) then take a fraction of their size.  The
 * unsorted tail stays a run of entries (varentry.h); a compaction sorts it
 * and merges it with the sorted part in one pass, in place, copying the
 * sorted part's encoded keys as they are between two new keys.
 *
 * Its arrays live in the aggregate context (as large packed sets do), not
 * in the allocator's slots.  Callers use set.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_FRONTSET_H
#define CD_FRONTSET_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "set_header.h"

/*
 * A variable-size set may become front-coded past this many bytes (tests
 * build with less, and with CD_FRONT_ALWAYS=1: whether it pays off or not).
 */
#ifndef CD_FRONT_MIN_BYTES
#define CD_FRONT_MIN_BYTES	(64 * 1024)
#endif
#ifndef CD_FRONT_ALWAYS
#define CD_FRONT_ALWAYS		0
#endif

/* CDFrontSet.keylen of keys not known to be of one length */
#define CD_FRONT_MIXED		SIZE_MAX

/* the most held states a front-coded set keeps (see "Held states" below) */
#define CD_FRONT_MAX_HELD	8

typedef struct CDFrontSet
{
	CD_SET_HEADER_FIELDS;		/* extra: unused */
	MemoryContext mcxt;			/* where the arrays below live */
	MemoryContext own_cxt;		/* mcxt, when the set has a context of its
								 * own (cd_front_from_state), else NULL */
	uint32		nheld;			/* other sets' keys, not merged yet: */
	struct CDFrontSet *held[CD_FRONT_MAX_HELD];
	char	   *coded;			/* the sorted keys, front-coded */
	Size		codedbytes;
	Size		codedroom;		/* allocated for them */
	Size		rawbytes;		/* what they would take as entries */
	Size		keylen;			/* every sorted key's length, when known to
								 * be one (cd_front_from_state, a writer);
								 * else CD_FRONT_MIXED */
	char	   *tail;			/* the unsorted keys, as entries */
	Size		tailbytes;
	Size		tailroom;
	/* while a writer builds the set (CDSetOps.build): the last key put */
	char	   *last;
	Size		lastlen;
	Size		lastroom;
} CDFrontSet;

extern const CDSetOps cd_front_set_ops;

/*
 * Bytes the sorted keys of a compacted variable-size set would take
 * front-coded.
 */
extern Size cd_front_size(const CDSet *set);

/*
 * A front-coded set in alloc's aggregate context holding the keys of set,
 * a compacted variable-size set from alloc, which is freed (and no longer
 * the allocator's newest set: alloc.h).
 */
extern CDSet *cd_front_from_set(CDSet *set, CDAlloc *alloc);

/*
 * Should the n keys of a serialized state, front-coded in len bytes at keys
 * (serialkeys.h's byte form, not validated yet), stay front-coded (policy.h:
 * cd_front_state_stays: no larger than as entries)?  Measured on the first
 * keys; false if they do not decode.
 */
extern bool cd_front_state_stays_front(const char *keys, Size len, uint32 n);

/*
 * A front-coded set, in a context of its own under mcxt, holding the n
 * keys of a serialized state at buf's cursor (which moves past them): they
 * are decoded and checked, then their bytes, which are the same canonical
 * form, are copied as the sorted part.  ERROR on anything invalid.
 */
extern CDSet *cd_front_from_state(StringInfo buf, const CDKeyType *kt,
								  uint32 n, MemoryContext mcxt);

/*
 * The same set from a state that was never serialized: src, a compacted
 * set of byte keys of this process (state_object.h: a partial aggregate's
 * state that a combine function of the same backend reads), whose keys take
 * keybytes front-coded (cd_state_image_init).  Its keys are encoded once,
 * or copied when src is front-coded, and not checked: they never left the
 * process.  kt: the reader's key type, equal to src's.
 */
extern CDSet *cd_front_from_local_state(const CDSet *src, const CDKeyType *kt,
										Size keybytes, MemoryContext mcxt);

/*
 * Held states, as in packed sets (packedset.h).  A front-coded set that
 * cd_front_from_state built (a partial state from a parallel worker) has a
 * memory context of its own, so a combine function takes it over instead
 * of copying it: as the group's state (cd_front_take), or, when it is
 * large, as a held state of another front-coded set (front_merge): its
 * sorted keys are kept as they are, not merged yet, and the set's keys are
 * its own and its held states'.  Counting reads them all in one k-way
 * merge without writing anything; a compaction (which everything but a
 * count and a merge into the set starts with), or more than
 * CD_FRONT_MAX_HELD held states, merges them into the set's sorted part.
 */

/* May set be taken over whole (cd_front_take)? */
static inline bool
cd_front_takeable(const CDSet *set)
{
	return set->kind == CD_SET_FRONT &&
		((const CDFrontSet *) set)->own_cxt != NULL;
}

/*
 * Move set (cd_front_takeable) into mcxt, without copying: its context
 * becomes a child of mcxt.  The caller must not keep another reference.
 */
extern CDSet *cd_front_take(CDSet *set, MemoryContext mcxt);

/* Free a front-coded set, its held states and its buffers. */
extern void cd_front_free(CDSet *set);

/* Add one key of len bytes to the set (any size, unsorted). */
extern void cd_front_add_key(CDSet *set, const char *key, Size len);

#endif							/* CD_FRONTSET_H */
