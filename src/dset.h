/*-------------------------------------------------------------------------
 *
 * dset.h
 *	  distinct_set: a stored, exact set of values of one element type.
 *
 * On-disk format (version 1), a varlena whose payload is, all integers in
 * network byte order:
 *
 *	  offset 0  uint8   format version (1)
 *	  offset 1  uint8   key encoding (DSET_ENC_*: fixed by the format, not
 *	                    by key.h's enum)
 *	  offset 2  uint8   key width in bytes (0: byte keys)
 *	  offset 3  uint8   flags: 0, or DSET_FLAG_RUNS
 *	  offset 4  uint32  number of values, n
 *	  offset 8  the element type (below, "Element type identity"), then
 *	            the collation: always "none" in version 1 (see below),
 *	            then the n keys, strictly increasing, in one of two layouts:
 *	  - blocks (flags 0), as in serialized states (serialkeys.h): fixed-width
 *	    keys in blocks of 128 (the first key in full, then the gaps minus
 *	    one in the fewest bits that hold the block's largest); byte keys
 *	    front-coded (shared prefix length, rest length, rest);
 *	  - runs (DSET_FLAG_RUNS, fixed-width keys only): the number of maximal
 *	    runs of consecutive keys, then each run as its distance from the
 *	    previous run's last key minus 2 (the first run: its first key in
 *	    full, big-endian) and its length minus 1; numbers as LEB128
 *	    varints, shortest form.
 *	  Runs are written exactly when they take fewer bytes than blocks.
 *
 * The count sits at a fixed offset, so cardinality() reads 8 bytes with a
 * detoast slice.  Everything is canonical: a set has exactly one encoding,
 * so equal sets have equal bytes, and "=", hashing and the btree order are
 * those of the bytes.
 *
 * Element type identity.  The reference is a kind byte and then:
 *	  CD_REF_OID (1)       uint32: a built-in type (OID below
 *	                       FirstGenbkiObjectId, fixed by PostgreSQL's
 *	                       catalog data): on disk and in the binary form;
 *	  DSET_REF_LOCAL (3)   uint32 the type's OID, uint32 its base type's
 *	                       (built-in) OID: on disk, for every other type
 *	                       (a domain: the only other types with canonical
 *	                       keys), as PostgreSQL keeps arrays' and records'
 *	                       element types; pg_upgrade keeps type OIDs;
 *	  CD_REF_NAME (2)      schema and name, NUL-terminated: in the binary
 *	                       form (distinct_set_send, COPY BINARY, partial
 *	                       states of the set aggregates, which may be read
 *	                       on another node) instead of DSET_REF_LOCAL; on
 *	                       disk only in sets written before DSET_REF_LOCAL
 *	                       existed (4.2.0 and earlier), read by name, as
 *	                       then;
 *	  DSET_REF_ORPHAN (4)  uint32 the base type's OID, or 0 if not known:
 *	                       a set without a type (its type was dropped);
 *	  DSET_REF_LAYOUT (5)  a named composite, an anonymous record, an
 *	                       array, or a domain over one (values with record
 *	                       or array keys, key_record.h): uint8 shape, the
 *	                       type, and its fields (below).
 * A layout reference names the key layout, not just the type: its shape
 * (DSET_SHAPE_RECORD, DSET_SHAPE_ARRAY), the type itself (CD_REF_OID for a
 * built-in type; else on disk DSET_REF_TYPE (6) and the uint32 OID, in the
 * binary form CD_REF_NAME), then for a record a uint16 count and each field
 * that is not dropped, for an array its element type, each as a field
 * reference: CD_REF_OID (a built-in type), DSET_REF_LOCAL on disk or
 * CD_REF_NAME in the binary form (a domain over a built-in type), or a
 * nested DSET_REF_LAYOUT; at most 32 levels deep.  A layout binds only if
 * describing the type named now gives the same bytes (the same fields, of
 * the same types, nested alike): a type altered since (ALTER TYPE ... ADD,
 * DROP or ALTER ATTRIBUTE, of it or a type nested in it; a column of it
 * given a nondeterministic collation has no layout), or dropped and
 * created again, is no type for the set (42704, "was altered" or "does not
 * exist"), which prints as an orphan (with base type 0) and which
 * distinct_set_recover binds to a type again, decoding and checking every
 * key as one of its values; it is never read under another layout.  In
 * binary input the type itself is resolved with the caller's privileges
 * (the fields' names are compared, not resolved), and a layout holding
 * OIDs of types that are not built-in is malformed.  An anonymous record
 * is the type record (CD_REF_OID 2249) with its fields: read, the fields'
 * types (each resolved, names with the reader's privileges) give the
 * canonical row type (key_record.h; each field under its type's
 * collation: no collation is stored), which must describe back to the
 * same bytes; sets of records whose fields have the same types are the
 * same type (and have the same bytes) whatever the fields' collations.
 * A DSET_REF_LOCAL reference binds only to the type of that OID if it is
 * still a domain over the base type written: a dropped type, or another
 * type that got the OID after OID wraparound, is no type, and the set is
 * refused (42704, naming the OID and base type written), never read as
 * another type.  Such a set prints as an orphan, "(orphaned):" and its
 * binary form (with DSET_REF_ORPHAN) in hex, which text input reads back;
 * so pg_dump never fails on it, and the restored set stays an orphan
 * whatever types exist then.  distinct_set_recover(set, NULL::type) binds
 * its keys to a type again: the base type (or, if not known, the key
 * encoding and width) must match, and every value is checked as a value of
 * the type.  Binary input resolves names with the user's privileges (USAGE
 * on the schema and the type, one error for missing and not usable) and
 * stores DSET_REF_LOCAL; it never accepts DSET_REF_LOCAL (binary data names
 * types).  A domain's OID and base type are the same for every set of it,
 * so sets written by this code stay canonical; a by-name set of 4.2.0 and
 * the same set written now differ in their bytes (a text round trip,
 * s::text::distinct_set, rewrites it).  Built-in types' bytes are those of
 * 4.2.0.
 *
 * Element types: those whose keys are fixed-width or byte strings
 * (key.h: every value that is "=" to another has the same key; named
 * composites and arrays whose fields have such keys: key_record.h).  Types
 * compared by their btree comparator (jsonb, citext, records and arrays of
 * those, ranges, text under a nondeterministic collation) are refused: equal values
 * need not have equal images, so no byte-canonical form exists for them.
 * A domain whose own collation is nondeterministic is refused whatever the
 * collation of the call (its values' equality is that collation's).
 * For the accepted collatable types equality does not depend on the
 * (deterministic) collation, so no collation is stored: keys are kept in
 * byte order, and the values come out in the order of the collation of the
 * call (distinct_set_to_array, distinct_set_values).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_DSET_H
#define CD_DSET_H

#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/memutils.h"

#include "key.h"
#include "keymerge.h"
#include "keystream.h"
#include "runcodec.h"

#define DSET_VERSION		1
#define DSET_HEADER_SIZE	8	/* version, encoding, width, flags, count */
#define DSET_FLAG_RUNS		0x01	/* fixed-width keys as runs */
#define DSET_BLOCK			128 /* keys per block (blockcodec.h's CD_BLOCK_KEYS) */

/* type references of stored sets besides value_io.h's CD_REF_OID and _NAME */
#define DSET_REF_LOCAL		3	/* uint32 OID, uint32 base type OID */
#define DSET_REF_ORPHAN		4	/* uint32 base type OID, or 0: no type */
#define DSET_REF_LAYOUT		5	/* records and arrays: shape, type, fields */
#define DSET_REF_TYPE		6	/* in a layout, on disk: uint32 OID */

/* the shapes of a layout */
#define DSET_SHAPE_RECORD	1	/* uint16 count, then each field's reference */
#define DSET_SHAPE_ARRAY	2	/* the element type's reference */

/* key encodings as the format writes them */
#define DSET_ENC_BOOL		1
#define DSET_ENC_UINT		2
#define DSET_ENC_INT		3
#define DSET_ENC_FLOAT		4
#define DSET_ENC_BYTES		5

/* the largest stored set: a varlena's payload */
#define DSET_MAX_SIZE		((Size) (MaxAllocSize - VARHDRSZ))
/* the most bytes of keys a stored set decodes to (so that all can be read) */
#define DSET_MAX_DECODED	((Size) MaxAllocSize)

/* fmgr */
#define DatumGetDistinctSetP(X)		((bytea *) PG_DETOAST_DATUM(X))
#define PG_GETARG_DSET_P(n)			DatumGetDistinctSetP(PG_GETARG_DATUM(n))

/*
 * A sorted, duplicate-free array of keys in memory: fixed-width keys as
 * width-byte unsigned integers, or byte keys as pointers and lengths (into
 * memory that outlives the array).
 */
typedef struct DSKeys
{
	const CDKeyType *kt;
	uint32		n;
	uint8		width;			/* 1, 2, 4, 8; 0: byte keys */
	void	   *fixed;			/* width > 0: n keys */
	const char **ptr;			/* width == 0: n keys ... */
	uint32	   *len;			/* ... and their lengths */
	void	   *owner;			/* pfree this to free the keys (or NULL) */
} DSKeys;

static inline uint64
dsk_get(const DSKeys *k, uint32 i)
{
	switch (k->width)
	{
		case 1:
			return ((const uint8 *) k->fixed)[i];
		case 2:
			return ((const uint16 *) k->fixed)[i];
		case 4:
			return ((const uint32 *) k->fixed)[i];
		default:
			return ((const uint64 *) k->fixed)[i];
	}
}

static inline void
dsk_put(DSKeys *k, uint32 i, uint64 key)
{
	switch (k->width)
	{
		case 1:
			((uint8 *) k->fixed)[i] = (uint8) key;
			break;
		case 2:
			((uint16 *) k->fixed)[i] = (uint16) key;
			break;
		case 4:
			((uint32 *) k->fixed)[i] = (uint32) key;
			break;
		default:
			((uint64 *) k->fixed)[i] = key;
			break;
	}
}

/* key i of a against key j of b (same key type) */
static inline int
dsk_cmp(const DSKeys *a, uint32 i, const DSKeys *b, uint32 j)
{
	if (a->width > 0)
	{
		uint64		x = dsk_get(a, i);
		uint64		y = dsk_get(b, j);

		return (x > y) - (x < y);
	}
	return cd_varkey_compare_bytes(a->ptr[i], a->len[i], b->ptr[j], b->len[j]);
}

/* dset_keys.c: the one place that uses the set and serialkeys modules */

/*
 * The key type of stored sets of typid (ERROR 0A000 for types without
 * byte-canonical keys): from the query's registry inside aggregates, else
 * cached in fcinfo's fn_extra.
 */
extern const CDKeyType *dsk_keytype(FunctionCallInfo fcinfo, Oid typid);
/* The same for anonymous records of a canonical typmod (key_record.h). */
extern const CDKeyType *dsk_keytype_typmod(FunctionCallInfo fcinfo, Oid typid,
										   int32 typmod);
/* ERROR 0A000 unless kt's keys are canonical (fixed-width or bytes). */
extern void dsk_check_storable(const CDKeyType *kt);
/* An empty run with room for n keys, in CurrentMemoryContext. */
extern void dsk_alloc(DSKeys *k, const CDKeyType *kt, uint32 n);
/* Free what dsk_alloc or dsk_decode allocated for k (not byte keys' data). */
extern void dsk_free(DSKeys *k);
/* The distinct keys of a count_distinct state (set.h; compacts it). */
extern void dsk_from_state(DSKeys *k, void *state);
/*
 * The distinct keys of a count_distinct moving-aggregate state (moving.h);
 * false if it holds no value.
 */
extern bool dsk_from_moving(DSKeys *k, void *moving);
/* The distinct keys of n non-NULL values of kt. */
extern void dsk_from_datums(DSKeys *k, const CDKeyType *kt, Datum *values,
							uint32 n);
/* The value of key i (a new Datum in CurrentMemoryContext if by reference) */
extern Datum dsk_datum(const DSKeys *k, uint32 i);
/* The key of one non-NULL value; *buf: scratch for byte keys. */
extern void dsk_value_key(const CDKeyType *kt, Datum value, uint64 *fixed,
						  StringInfo bytes);
/* Is key one that a value of kt gives (no -0.0, one NaN, ...)? */
extern bool dsk_key_is_canonical(const CDKeyType *kt, uint64 key);
/* Is every key that kt's width holds canonical (all but bool and floats)? */
static inline bool
dsk_keys_all_canonical(const CDKeyType *kt)
{
	return kt->encoding != CD_KEY_BOOL && kt->encoding != CD_KEY_FLOAT;
}

/*
 * The canonical keys of kt (one whose keys are not all canonical) lie in
 * two ranges and one key: bounds[0] .. bounds[1], bounds[2] .. bounds[3]
 * and bounds[4].  A run of keys is canonical if it lies within one of them
 * (dsk_run_in_bounds): one test per run, whatever its length.
 */
extern void dsk_canonical_bounds(const CDKeyType *kt, uint64 bounds[5]);

static inline bool
dsk_run_in_bounds(const uint64 bounds[5], uint64 first, uint64 last)
{
	return (first >= bounds[0] && last <= bounds[1]) ||
		(first >= bounds[2] && last <= bounds[3]) ||
		(first == bounds[4] && last == bounds[4]);
}
/*
 * ERROR unless every key is the key of a valid value of the type (binary
 * input: dates in range, domain constraints, ...), by sending each value
 * and receiving it again with the type's functions.
 */
extern void dsk_validate_values(const DSKeys *k);
/* Is every (in-range) key of kt canonical and the key of a valid value? */
extern bool dsk_keys_all_valid(const CDKeyType *kt);
/* A reader of k's keys (keystream.h). */
extern void dsk_reader(const DSKeys *k, CDKeyReader *r);
/*
 * Keys encoded in the stored layout (serialkeys.h) and back; decoding
 * validates everything.
 */
extern Size dsk_encoded_size(const DSKeys *k);
extern void dsk_encode(StringInfo buf, const DSKeys *k);
extern void dsk_decode(StringInfo buf, DSKeys *k, const CDKeyType *kt,
					   uint32 n);

/* dset_format.c */

/* ERROR: invalid distinct_set (SQLSTATE 22P03), with a detail. */
#ifdef pg_noreturn				/* 18+ */
pg_noreturn extern void dset_invalid(const char *detail);
#else
extern void dset_invalid(const char *detail) pg_attribute_noreturn();
#endif

/* A stored set of kt's values holding keys (in CurrentMemoryContext). */
extern bytea *dset_encode(const CDKeyType *kt, const DSKeys *keys);
/*
 * The same for the r->count fixed-width keys of r (strictly increasing),
 * which it reads from the start (r->pos set to 0), again when the runs
 * layout may be shorter; nruns: the number of maximal runs of consecutive
 * keys, if the caller knows it, else -1.
 */
extern bytea *dset_encode_fixed(const CDKeyType *kt, CDKeyReader *r,
								int64 nruns);
/* The number of values in a stored set (the first 8 bytes suffice). */
extern uint32 dset_count(const bytea *ds);
/* a stored set's header, as read by dset_header */
typedef struct DSHeader
{
	const CDKeyType *kt;
	uint32		n;
	int			flags;
	int			start;			/* offset of the keys in the payload */
	bool		orphan;			/* no element type: kt is a stand-in */
} DSHeader;

/* Read and check the header and type reference only; returns the type. */
extern const CDKeyType *dset_header(FunctionCallInfo fcinfo, const bytea *ds,
									DSHeader *h);
/*
 * Does the stored set hold value (of h->kt's type)?  Fixed-width keys: reads
 * the first key of each block of 128 and one block's gaps, or the runs;
 * byte keys are decoded.
 */
extern bool dset_contains(FunctionCallInfo fcinfo, const bytea *ds,
						  DSHeader *h, Datum value);
/*
 * Fixed-width keys read in place, without checking that they are canonical
 * (for stored values, which went through dset_encode or binary input): the
 * first and last key (n > 0), and all keys in order, handed to fn up to
 * DSET_BLOCK at a time.
 */
typedef void (*DSKeysFn) (const uint64 *keys, uint32 n, void *arg);
extern void dset_key_range(const bytea *ds, const DSHeader *h, uint64 *first,
						   uint64 *last);
/*
 * Set the bit of each key k (k - lo < nbits) of a stored set of fixed-width
 * keys in bits (bit i of bits[j] is the key lo + 64 * j + i), read in place.
 */
extern void dset_or_bits(const bytea *ds, const DSHeader *h, uint64 *bits,
						 uint64 lo, uint64 nbits);
extern void dset_foreach_key(const bytea *ds, const DSHeader *h, DSKeysFn fn,
							 void *arg);
/*
 * Decode a stored set (ERROR 22P03 on anything that is not exactly what
 * dset_encode writes); returns its key type.
 */
extern const CDKeyType *dset_decode(FunctionCallInfo fcinfo, const bytea *ds,
									DSKeys *keys);
/*
 * The binary form of a stored set (distinct_set_send, and the partial
 * states of the set aggregates, read on another node): its element type by
 * name (ds itself, for built-in types); a set whose type is gone becomes an
 * orphan (*orphan set, if orphan is not NULL).  Keys are not read.
 */
extern bytea *dset_portable(FunctionCallInfo fcinfo, const bytea *ds,
							bool *orphan);
/*
 * Decode the binary form (binary input): names resolved with the current
 * user's privileges; an orphan is read with a stand-in key type (*orphan;
 * *basetypid: the base type it was of, if known, else InvalidOid).
 */
extern const CDKeyType *dset_decode_input(FunctionCallInfo fcinfo,
										  const bytea *ds, DSKeys *keys,
										  bool *orphan, Oid *basetypid);
/*
 * The element type of a stored set, InvalidOid if it has none (gone, or an
 * orphan); reads the header and the type reference only (a prefix of ds
 * suffices: DSET_TYPE_PREFIX bytes, but for a layout, DSET_REF_LAYOUT,
 * which may be longer: its callers read the whole value then).
 */
#define DSET_TYPE_PREFIX	(DSET_HEADER_SIZE + 1 + 2 * NAMEDATALEN)
extern Oid	dset_element_type(FunctionCallInfo fcinfo, const bytea *ds);
/* ds (just encoded) as an orphan of basetypid (InvalidOid: unknown) */
extern bytea *dset_orphan(const bytea *ds, Oid basetypid);
/*
 * Decode the keys of any set, orphans included, as keys of kt: ERROR 42804
 * unless they are (the base type written, if known, else the key encoding
 * and width, must be kt's).
 */
extern const CDKeyType *dset_decode_as(FunctionCallInfo fcinfo,
									   const bytea *ds, const CDKeyType *kt,
									   DSKeys *keys);
/*
 * The element type's name as the text form writes it: an anonymous
 * record's as record(type, type, ...).
 */
extern char *dset_type_name(const CDKeyType *kt);
/* ERROR 42804, naming both types, unless sets of a and b can combine. */
extern void dset_check_same_type(const CDKeyType *a, const CDKeyType *b);
/*
 * ERROR 42804 unless values of typid (a call's argument) are those of a set
 * of kt (the same type, or domains of the same base type).
 */
extern void dset_check_element_type(const CDKeyType *kt, Oid typid);

/*
 * Fixed-width keys as runs of consecutive keys, read without expanding
 * them: a source of the merge engine's ranges (keymerge.h CDRangeSource:
 * disjoint, ascending, not necessarily maximal).  Set algebra on
 * runs-layout sets then costs their runs, never their values.
 */
typedef CDRangeSource DSRunSource;

/*
 * Stored keys: a stored set's fixed-width keys in place, in its layout
 * (blocks or runs), or a sequence encoded the same way with a count of up
 * to 2^64 - 1 (aggregate states).
 */
typedef struct DSStored
{
	int			width;
	bool		runs;			/* the runs layout, else blocks */
	uint64		n;				/* keys */
	const char *data;			/* the layout's bytes */
	Size		len;
} DSStored;

/*
 * Is decoding p into an array of keys cheap: the blocks layout, whose keys
 * take at most DSET_DECODE_FACTOR times its bytes?  Such sets are merged
 * as arrays (one pass per key, galloping when one is much shorter);
 * others, above all runs of consecutive keys, as runs, in memory of the
 * order of their bytes.
 */
#define DSET_DECODE_FACTOR	16

static inline bool
dset_decode_cheap(const DSStored *p)
{
	return !p->runs && p->n * p->width <= (uint64) p->len * DSET_DECODE_FACTOR;
}

/* A reader of a stored sequence's runs (its keys checked increasing). */
typedef struct DSStoredReader
{
	DSRunSource src;
	const DSStored *p;
	Size		pos;			/* the next byte */
	uint64		left;			/* keys not read yet */
	CDRunsReader runs;			/* the runs layout's reader */
	uint64		prev;			/* the last key read */
	bool		started;
	uint32		m;				/* blocks layout: the block's keys ... */
	uint32		i;				/* ... and the next of them */
	uint64		calls;
	uint64		keys[DSET_BLOCK];
} DSStoredReader;

/* dset_format.c: stored keys, read and written as runs */
extern void dset_stored_keys(const bytea *ds, const DSHeader *h, DSStored *p);
extern void dset_stored_reader(DSStoredReader *r, const DSStored *p);
/* The number of keys of a source (ERROR 54000 past 2^64 - 1). */
extern uint64 dset_count_runs(DSRunSource *src);

/*
 * A stored set of kt's values holding the keys of src: ERROR 54000, before
 * anything is allocated for it, if it would hold more than 4294967295
 * values or more than 1 GB of keys.  Memory: the result only.
 */
extern bytea *dset_encode_runs(const CDKeyType *kt, DSRunSource *src);

/* A stored set of the keys p encoded by dset_store_runs (limits as above). */
extern bytea *dset_from_stored(const CDKeyType *kt, const DSStored *p);

/*
 * ERROR 22P03 unless p, bytes that are not a stored value (a partial
 * state), is what encoding its keys writes: its keys hold its count and
 * nothing follows them, every key is canonical (one test per run), and its
 * layout is the shorter one.  One pass over its runs, as encoding them.
 */
extern void dset_check_stored(const CDKeyType *kt, const DSStored *p);

/*
 * The keys of src encoded as a stored set's keys (the shorter layout) into
 * buf, which p then describes; any count.
 */
extern void dset_store_runs(StringInfo buf, int width, DSRunSource *src,
						   DSStored *p);

/*
 * Binary input of fixed-width keys of a built-in type whose every key is a
 * valid value
 * (dsk_keys_all_valid): true if ds is exactly what dset_encode writes,
 * checked run by run without decoding it (ERROR 22P03 if not); false for
 * other types, which binary input decodes and checks value by value.
 */
extern bool dset_recv_in_place(FunctionCallInfo fcinfo, const bytea *ds);

/* ERROR 54000: a stored set of n values (of width bytes; 0: byte keys). */
#ifdef pg_noreturn				/* 18+ */
pg_noreturn extern void dset_too_large(uint64 n, int width);
#else
extern void dset_too_large(uint64 n, int width) pg_attribute_noreturn();
#endif

/*
 * dset_ops.c: set algebra on sources of runs, through the merge engine's
 * cd_range_merge_next: a merge (dset_merge) is itself a source, of its
 * result's runs (src).
 */
typedef CDRangeMerge DSMerge;

#define DSET_OP_UNION		1
#define DSET_OP_INTERSECT	2
#define DSET_OP_EXCEPT		3

extern void dset_merge(DSMerge *m, int op, DSRunSource *a, DSRunSource *b);

/* The runs of an array of fixed-width keys, as a source. */
typedef struct DSKeysRuns
{
	DSRunSource src;
	const DSKeys *k;
	uint32		i;
} DSKeysRuns;

extern void dsk_runs(DSKeysRuns *r, const DSKeys *k);

/* dset_ops.c: set algebra on runs (results in CurrentMemoryContext) */
extern void dsk_union(DSKeys *out, const DSKeys *a, const DSKeys *b);
extern void dsk_intersect(DSKeys *out, const DSKeys *a, const DSKeys *b);
extern void dsk_difference(DSKeys *out, const DSKeys *a, const DSKeys *b);
extern bool dsk_contains_all(const DSKeys *a, const DSKeys *b);
extern bool dsk_overlaps(const DSKeys *a, const DSKeys *b);
/* Index of the first key >= key j of b in a, from lo on. */
extern uint32 dsk_lower_bound(const DSKeys *a, uint32 lo, const DSKeys *b,
							  uint32 j);

#endif							/* CD_DSET_H */
