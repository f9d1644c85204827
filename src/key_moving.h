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
 * 'abc').  The moving state only ever calls the functions below.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEY_MOVING_H
#define CD_KEY_MOVING_H

#include "postgres.h"

#include "key.h"

typedef struct CDMKey
{
	/*
	 * Fixed-width keys: the key.  CD_KEY_COMPARATOR: the value as a Datum
	 * for the comparator (a lookup key: the detoasted value; a kept key: its
	 * image, at bytes).  CD_KEY_BYTES: unused.
	 */
	union
	{
		uint64		fixed;
		Datum		datum;
	}			u;
	const char *bytes;			/* variable-size keys: the key's bytes */
	Size		len;
} CDMKey;

/*
 * The key of a non-NULL value, for lookups: it points into the (detoasted)
 * value, which must outlive it.
 */
extern void cd_mkey_from_value(const CDKeyType *kt, Datum value, CDMKey *k);

/*
 * Make k own its bytes: a copy in mcxt (one chunk, freed by
 * cd_mkey_free).  Nothing to do for fixed-width keys.
 */
extern void cd_mkey_keep(const CDKeyType *kt, CDMKey *k, MemoryContext mcxt);
extern void cd_mkey_free(const CDKeyType *kt, CDMKey *k);

/* A new Datum of the key's value (in CurrentMemoryContext for var keys). */
extern Datum cd_mkey_output_datum(const CDKeyType *kt, const CDMKey *k);

/* Order and equality: the type's btree order and "=". */
static inline int
cd_mkey_compare(const CDKeyType *kt, const CDMKey *a, const CDMKey *b)
{
	if (kt->width > 0)
		return (a->u.fixed > b->u.fixed) - (a->u.fixed < b->u.fixed);
	if (kt->encoding == CD_KEY_BYTES)
		return cd_varkey_compare_bytes(a->bytes, a->len, b->bytes, b->len);
	return ApplySortComparator(a->u.datum, false, b->u.datum, false,
							   (SortSupport) &kt->ssup);
}

#endif							/* CD_KEY_MOVING_H */
