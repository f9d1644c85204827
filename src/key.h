/*-------------------------------------------------------------------------
 *
 * key.h
 *	  Keys: how a value of some type becomes an order-preserving,
 *	  normalized key, and back.
 *
 * Every type the aggregates accept is described once, by a CDKeyType built
 * from the catalog at the first call of a query (and cached in fn_extra).
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

#include "fmgr.h"

/* How values of a type are turned into keys. */
typedef enum CDKeyEncoding
{
	CD_KEY_BOOL = 1,			/* bool: 0 or 1 */
	CD_KEY_UINT,				/* unsigned integer ("char", oid) */
	CD_KEY_INT,					/* two's complement integer: sign bit flipped */
	CD_KEY_FLOAT				/* IEEE float: -0 and NaNs folded, then the
								 * sign-magnitude to unsigned transform */
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
	uint8		width;			/* key width in bytes: 1, 2, 4 or 8 */
} CDKeyType;

/* Fill kt for values of type typid; ERROR if the type is not supported. */
extern void cd_keytype_init(CDKeyType *kt, Oid typid, Oid collation);

/*
 * The CDKeyType for typid, cached in flinfo->fn_extra (per query).  The
 * result lives in flinfo->fn_mcxt.
 */
extern const CDKeyType *cd_keytype_cached(FmgrInfo *flinfo, Oid typid,
										  Oid collation);

/* Are two key types the same (so their keys can be merged)? */
extern bool cd_keytype_equal(const CDKeyType *a, const CDKeyType *b);

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
			switch (kt->width)
			{
				case 1:
					return (uint8) DatumGetChar(value);
				case 2:
					return (uint16) DatumGetInt16(value);
				case 4:
					return DatumGetUInt32(value);
				default:
					return (uint64) DatumGetInt64(value);
			}
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
	}
	pg_unreachable();
}

/* The inverse of cd_key_encode (for -0.0 and NaN: the canonical value). */
extern Datum cd_key_decode(const CDKeyType *kt, uint64 key);

#endif							/* CD_KEY_H */
