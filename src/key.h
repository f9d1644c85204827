/*-------------------------------------------------------------------------
 *
 * key.h
 *	  Keys: how a value of some type becomes an order-preserving,
 *	  normalized key, and back.
 *
 * Every type the aggregates accept is described once, by a CDKeyType built
 * from the catalog at the first call of a query (and kept for the query by
 * registry.h).
 * A fixed-width key is an unsigned integer of 1, 2, 4 or 8 bytes whose
 * unsigned order is the type's btree order and whose equality is the type's
 * "=".  The set (set.h) only ever sees keys, never Datums.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEY_H
#define CD_KEY_H

#include "postgres.h"

#include <math.h>

#include "compat.h"

#include "fmgr.h"
#include "port/pg_bitutils.h"
#include "utils/sortsupport.h"

/* How values of a type are turned into keys. */
typedef enum CDKeyEncoding
{
	CD_KEY_BOOL = 1,			/* bool: 0 or 1 */
	CD_KEY_UINT,				/* unsigned integer ("char", oid) */
	CD_KEY_INT,					/* two's complement integer: sign bit flipped */
	CD_KEY_FLOAT,				/* IEEE float: -0 and NaNs folded, then the
								 * sign-magnitude to unsigned transform */
	/* variable-size keys (width 0), kept by varset.c */
	CD_KEY_BYTES,				/* memcmp order is the btree order and byte
								 * equality is "=": the value's bytes, or a
								 * normalized encoding (kt->codec) */
	CD_KEY_COMPARATOR			/* the value's image, compared by the type's
								 * btree comparator (SortSupport) */
} CDKeyEncoding;

typedef struct CDKeyType
{
	Oid			typid;			/* the value type (may be a domain) */
	Oid			basetypid;		/* typid with domains stripped */
	Oid			collation;		/* input collation (unused by fixed keys) */
	int16		typlen;
	bool		typbyval;
	char		typalign;
	CDKeyEncoding encoding;
	uint8		width;			/* fixed keys: 1, 2, 4 or 8; else 0 */
	/*
	 * CD_KEY_BYTES of numeric, interval, bpchar: their encoding (key.c); of
	 * records: key_record.c's, with the record's layout in record.
	 */
	const struct CDByteCodec *codec;
	int32		typmod;			/* anonymous records: the canonical typmod
								 * (key_record.h); else -1 */
	const struct CDRecordLayout *record;

	/*
	 * Variable-size keys.  ssup is the btree comparator under the input
	 * collation: it orders CD_KEY_COMPARATOR keys, and, if sort_on_output,
	 * the array output of CD_KEY_BYTES keys (text under a deterministic
	 * collation other than C: distinct by bytes, ordered by the collation).
	 */
	bool		sort_on_output;
	SortSupportData ssup;

	/*
	 * CD_KEY_COMPARATOR keys of types with abbreviated keys: ssup_abbrev
	 * sorts the unsorted tail by abbreviated key first, and by its
	 * abbrev_full_comparator on ties.
	 */
	bool		has_abbrev;
	SortSupportData ssup_abbrev;
} CDKeyType;

/*
 * Encoded byte keys: types whose "=" is not byte equality of their values,
 * but which have a normalized encoding whose memcmp order (then length) is
 * the btree order (or, with sort_on_output, whose byte equality is "=" and
 * whose output is sorted by the comparator).  Each codec gives the key's
 * length, writes it, and decodes a key back to one value of its equality
 * class (false: not a key the encoder produces).  write is called with what
 * cd_varkey_size set *detoasted to, before the next cd_varkey_size of kt.
 */
typedef struct CDByteCodec
{
	Oid			typid;
	Size		(*size) (const CDKeyType *kt, Datum value);
	void		(*write) (const CDKeyType *kt, Datum value, char *dst);
	bool		(*decode) (const CDKeyType *kt, const char *key, Size len,
						   Datum *value);
} CDByteCodec;

/* Fill kt for values of type typid; ERROR if the type is not supported. */
extern void cd_keytype_init(CDKeyType *kt, Oid typid, Oid collation,
							MemoryContext mcxt);

/* Are two key types the same (so their keys can be merged)? */
extern bool cd_keytype_equal(const CDKeyType *a, const CDKeyType *b);

/* ERROR (naming what differs) unless cd_keytype_equal(a, b). */
extern void cd_keytype_check_same(const CDKeyType *a, const CDKeyType *b);

/*
 * Encode one non-NULL value.  Inline: this runs once per input row.
 */
static inline uint64
cd_key_encode(const CDKeyType *kt, Datum value)
{
	switch (kt->encoding)
	{
		case CD_KEY_INT:
			switch (kt->width)
			{
				case 2:
					return (uint16) DatumGetInt16(value) ^ UINT64CONST(0x8000);
				case 4:
					return (uint32) DatumGetInt32(value) ^ UINT64CONST(0x80000000);
				default:
					return (uint64) DatumGetInt64(value) ^ UINT64CONST(0x8000000000000000);
			}
		case CD_KEY_UINT:
			/* "char" (1 byte) and oid (4 bytes) */
			if (kt->width == 1)
				return (uint8) DatumGetChar(value);
			return DatumGetUInt32(value);
		case CD_KEY_BOOL:
			return DatumGetBool(value) ? 1 : 0;
		case CD_KEY_FLOAT:
			if (kt->width == 4)
			{
				float4		f = DatumGetFloat4(value);
				uint32		bits;

				if (isnan(f))
					bits = ((uint32) 0x7FC00000);	/* every NaN is one NaN */
				else if (f == 0.0f)
					bits = 0;	/* -0.0 = 0.0 */
				else
					memcpy(&bits, &f, sizeof(bits));
				return (bits & ((uint32) 0x80000000)) ? (uint32) ~bits :
					(bits | ((uint32) 0x80000000));
			}
			else
			{
				float8		f = DatumGetFloat8(value);
				uint64		bits;

				if (isnan(f))
					bits = UINT64CONST(0x7FF8000000000000);
				else if (f == 0.0)
					bits = 0;
				else
					memcpy(&bits, &f, sizeof(bits));
				return (bits & UINT64CONST(0x8000000000000000)) ? ~bits :
					(bits | UINT64CONST(0x8000000000000000));
			}
		case CD_KEY_BYTES:
		case CD_KEY_COMPARATOR:
			break;
	}
	elog(ERROR, "unexpected key type: not a fixed-width key");
	pg_unreachable();
}

/*
 * Fixed-width keys stored at their width: the i-th key of an array of
 * width-byte keys (the one place that switches on the width).
 */
static inline uint64
cd_key_load(const void *keys, int width, Size i)
{
	switch (width)
	{
		case 1:
			return ((const uint8 *) keys)[i];
		case 2:
			return ((const uint16 *) keys)[i];
		case 4:
			return ((const uint32 *) keys)[i];
		default:
			return ((const uint64 *) keys)[i];
	}
}

static inline void
cd_key_store(void *keys, int width, Size i, uint64 key)
{
	switch (width)
	{
		case 1:
			((uint8 *) keys)[i] = (uint8) key;
			break;
		case 2:
			((uint16 *) keys)[i] = (uint16) key;
			break;
		case 4:
			((uint32 *) keys)[i] = (uint32) key;
			break;
		default:
			((uint64 *) keys)[i] = key;
			break;
	}
}

/*
 * Store key at i and tell whether it repeats the key at i - 1 (false for
 * i == 0), without a branch on the key: one switch on the width.
 */
#define CD_KEY_STORE_REPEAT(T) \
	do { \
		T		   *k_ = (T *) keys; \
		k_[i] = (T) key; \
		/* i == 0: reads the key just stored (never an unset slot), masked */ \
		return (i > 0) & (k_[i - (i > 0)] == (T) key); \
	} while (0)

static pg_attribute_always_inline bool
cd_key_store_repeat(void *keys, int width, Size i, uint64 key)
{
	switch (width)
	{
		case 1:
			CD_KEY_STORE_REPEAT(uint8);
		case 2:
			CD_KEY_STORE_REPEAT(uint16);
		case 4:
			CD_KEY_STORE_REPEAT(uint32);
		default:
			CD_KEY_STORE_REPEAT(uint64);
	}
}

#undef CD_KEY_STORE_REPEAT

/* The inverse of cd_key_encode (for -0.0 and NaN: the canonical value). */
extern Datum cd_key_decode(const CDKeyType *kt, uint64 key);

/*
 * Variable-size keys (width 0).  A CD_KEY_BYTES key is the value's bytes
 * (text, varchar, bytea: the payload; uuid: its 16 bytes), or for types
 * whose "=" is not byte equality but that have an order-preserving,
 * normalized encoding, that encoding (kt->codec: numeric, interval, bpchar;
 * see key.c).  A
 * CD_KEY_COMPARATOR key is the value's in-memory image (varlena with a
 * 4-byte header, fixed-length bytes, or a by-value datum's typlen bytes),
 * compared by kt->ssup once copied to a MAXALIGNed address.
 *
 * cd_varkey_size: the key's length for a non-NULL value (sets *detoasted to
 * the value to pass to cd_varkey_write, which writes the key to dst).
 * cd_varkey_image_datum: the Datum of a CD_KEY_COMPARATOR key copied to the
 * aligned address image.
 * cd_varkey_output_datum: a new Datum (in CurrentMemoryContext) of the key's
 * value, for result arrays and send functions.
 */
extern Size cd_varkey_size(const CDKeyType *kt, Datum value, Datum *detoasted);
extern void cd_varkey_write(const CDKeyType *kt, Datum detoasted, char *dst);
extern Datum cd_varkey_image_datum(const CDKeyType *kt, const char *image);
extern Datum cd_varkey_output_datum(const CDKeyType *kt, const char *key,
									Size len);
/* Free what cd_varkey_output_datum allocated (nothing for by-value types). */
extern void cd_varkey_free_output_datum(const CDKeyType *kt, Datum value);

/*
 * The length of the prefix byte keys a and b share, given that they share
 * their first from bytes (both at least that long); 8 bytes at a time (a
 * byte at a time, merging two front-coded sets of 3.3M URL-like texts
 * spent a third of its time finding it).
 */
static inline Size
cd_bytes_common_prefix(const char *a, Size alen, const char *b, Size blen,
					   Size from)
{
	Size		n = Min(alen, blen);
	Size		i = from;

	for (; i + sizeof(uint64) <= n; i += sizeof(uint64))
	{
		uint64		x;
		uint64		y;

		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (x != y)
		{
			/* the first differing byte: the lowest address */
#ifdef WORDS_BIGENDIAN
			return i + (63 - pg_leftmost_one_pos64(x ^ y)) / 8;
#else
			return i + pg_rightmost_one_pos64(x ^ y) / 8;
#endif
		}
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/*
 * Byte keys a and b that share their first from bytes, in memcmp order
 * (then by length); sets *lcp to the length of the prefix they share.
 */
static inline int
cd_bytes_compare_from(const char *a, Size alen, const char *b, Size blen,
					  Size from, Size *lcp)
{
	Size		i = cd_bytes_common_prefix(a, alen, b, blen, from);

	*lcp = i;
	if (i < Min(alen, blen))
		return (uint8) a[i] < (uint8) b[i] ? -1 : 1;
	return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

static inline int
cd_varkey_compare_bytes(const char *a, Size alen, const char *b, Size blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

/*
 * Facts about CD_KEY_BYTES keys of kt for those who embed them in longer
 * keys (key_record.c): the length every key of kt has (0: they vary), and
 * whether a key may hold a zero byte (text never does).
 */
extern Size cd_varkey_fixed_len(const CDKeyType *kt);
extern bool cd_varkey_may_hold_zero(const CDKeyType *kt);

/*
 * Compare two variable-size keys of kt: by bytes, or by the type's
 * comparator on aligned copies (a slow path, for validation).
 */
extern int	cd_varkey_compare(const CDKeyType *kt, const char *a, Size alen,
							  const char *b, Size blen);

/*
 * Is key (len bytes of a CD_KEY_BYTES key, from untrusted input) one that
 * a value of kt could give: the right length, valid text encoding, and for
 * encoded keys, canonical (decoding and encoding again gives it back)?
 */
extern bool cd_varkey_is_valid(const CDKeyType *kt, const char *key, Size len);

/*
 * The same, for a key whose first known bytes are those of a key already
 * found valid (the previous key of a front-coded run, serialkeys.h): a text
 * key's encoding is checked from there (from the character they end in).
 */
extern bool cd_varkey_is_valid_after(const CDKeyType *kt, const char *key,
									 Size len, Size known);

/*
 * A fixed-width key of width bytes as big-endian bytes (byte order is key
 * order): written to dst, read from src.  The stored and serialized forms
 * and records' keys hold keys this way.
 */
static inline void
cd_key_write_be(uint8 *dst, uint64 key, int width)
{
	int			i;

	for (i = width - 1; i >= 0; i--)
	{
		dst[i] = (uint8) key;
		key >>= 8;
	}
}

static inline uint64
cd_key_read_be(const uint8 *src, int width)
{
	uint64		key = 0;
	int			i;

	for (i = 0; i < width; i++)
		key = (key << 8) | src[i];
	return key;
}

#endif							/* CD_KEY_H */
