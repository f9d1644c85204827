/*-------------------------------------------------------------------------
 *
 * key_moving.h
 *	  Keys for the moving-aggregate state (moving.h): one value's key, for
 *	  looking it up and, once copied, for keeping it.
 *
 * The same three paths as the set's keys (key.h), and the same equality:
 * fixed-width keys compare as unsigned integers, CD_KEY_BYTES keys as
 * bytes, CD_KEY_COMPARATOR keys with the type's btree comparator under the
 * input collation (so under a nondeterministic collation 'ABC' finds
 * 'abc').  The moving state turns values into keys only through the
 * functions below.
 *
 * Which structure holds a key type's keys is decided here, by the key
 * type alone (cd_moving_kind): a type whose encoding changes (say from
 * CD_KEY_COMPARATOR to CD_KEY_BYTES) moves to the right structure with it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEY_MOVING_H
#define CD_KEY_MOVING_H

#include "postgres.h"

#include "common/hashfn.h"

#include "key.h"

/* The structure of a moving state (moving.h). */
typedef enum CDMovingKind
{
	CD_MOVING_NONE = 0,			/* no key type yet */
	CD_MOVING_HASH_FIXED,		/* fixed-width keys, as uint64 */
	CD_MOVING_HASH_BYTES,		/* CD_KEY_BYTES keys: "=" is byte equality */
	CD_MOVING_TREE				/* CD_KEY_COMPARATOR: the comparator's order
								 * and equality (CDMKey below) */
} CDMovingKind;

static inline CDMovingKind
cd_moving_kind(const CDKeyType *kt)
{
	if (kt == NULL)
		return CD_MOVING_NONE;
	if (kt->width > 0)
		return CD_MOVING_HASH_FIXED;
	if (kt->encoding == CD_KEY_BYTES)
		return CD_MOVING_HASH_BYTES;
	return CD_MOVING_TREE;
}

/*
 * Hash keys.  Fixed-width keys: the 64-bit finalizer of MurmurHash3 (every
 * bit of the key moves every bit of the hash, so keys that differ only in
 * their high bytes, or form a dense range, spread).  Byte keys: the
 * server's hash_bytes().
 */
static inline uint32
cd_mkey_hash_fixed(uint64 k)
{
	k ^= k >> 33;
	k *= UINT64CONST(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64CONST(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return (uint32) k;
}

static inline uint32
cd_mkey_hash_bytes(const char *key, Size len)
{
	return hash_bytes((const unsigned char *) key, (int) len);
}

/*
 * CD_MOVING_HASH_BYTES: the length of the key of a non-NULL value (sets
 * *detoasted to what to pass to cd_varkey_write()); ERROR if too large.
 */
extern Size cd_mkey_bytes_size(const CDKeyType *kt, Datum value,
							   Datum *detoasted);

/*
 * CD_MOVING_TREE keys (CD_KEY_COMPARATOR: the other paths have hash tables).
 * datum is the value for the comparator: for a lookup key the detoasted
 * value, for a kept key its image at bytes.
 */
typedef struct CDMKey
{
	Datum		datum;
	const char *bytes;			/* a kept key's image; NULL for a lookup */
	Size		len;
} CDMKey;

/*
 * The key of a non-NULL value, for lookups: it points into the (detoasted)
 * value, which must outlive it.
 */
extern void cd_mkey_from_value(const CDKeyType *kt, Datum value, CDMKey *k);

/* Make k own its image: a copy in mcxt (one chunk, freed by cd_mkey_free). */
extern void cd_mkey_keep(const CDKeyType *kt, CDMKey *k, MemoryContext mcxt);
extern void cd_mkey_free(const CDKeyType *kt, CDMKey *k);

/* A new Datum of the key's value (in CurrentMemoryContext). */
extern Datum cd_mkey_output_datum(const CDKeyType *kt, const CDMKey *k);

/* Order and equality: the type's btree order and "=". */
static inline int
cd_mkey_compare(const CDKeyType *kt, const CDMKey *a, const CDMKey *b)
{
	return ApplySortComparator(a->datum, false, b->datum, false,
							   (SortSupport) &kt->ssup);
}

#endif							/* CD_KEY_MOVING_H */
