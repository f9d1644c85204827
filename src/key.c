/*-------------------------------------------------------------------------
 *
 * key.c
 *	  Which types become which keys (one table), and decoding keys back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/float.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "key.h"

/*
 * The fixed-width key types.  Each entry's encoding makes unsigned key order
 * the btree order of the default opclass and key equality its "=":
 * - "char" compares as unsigned char (charlt), oid as unsigned int;
 * - date, time, timestamp, timestamptz and money are signed integers;
 * - float4/float8 order -0.0 = 0.0 and NaN = NaN > +Infinity (float.c).
 */
typedef struct CDFixedKeyRule
{
	Oid			typid;
	CDKeyEncoding encoding;
	uint8		width;
} CDFixedKeyRule;

static const CDFixedKeyRule fixed_key_rules[] = {
	{BOOLOID, CD_KEY_BOOL, 1},
	{CHAROID, CD_KEY_UINT, 1},
	{INT2OID, CD_KEY_INT, 2},
	{INT4OID, CD_KEY_INT, 4},
	{INT8OID, CD_KEY_INT, 8},
	{OIDOID, CD_KEY_UINT, 4},
	{FLOAT4OID, CD_KEY_FLOAT, 4},
	{FLOAT8OID, CD_KEY_FLOAT, 8},
	{CASHOID, CD_KEY_INT, 8},
	{DATEOID, CD_KEY_INT, 4},
	{TIMEOID, CD_KEY_INT, 8},
	{TIMESTAMPOID, CD_KEY_INT, 8},
	{TIMESTAMPTZOID, CD_KEY_INT, 8},
};

void
cd_keytype_init(CDKeyType *kt, Oid typid, Oid collation)
{
	Oid			basetypid = getBaseType(typid);
	int			i;

	memset(kt, 0, sizeof(*kt));
	kt->typid = typid;
	kt->basetypid = basetypid;
	kt->collation = collation;
	get_typlenbyvalalign(basetypid, &kt->typlen, &kt->typbyval, &kt->typalign);

	for (i = 0; i < lengthof(fixed_key_rules); i++)
	{
		if (fixed_key_rules[i].typid == basetypid)
		{
			kt->encoding = fixed_key_rules[i].encoding;
			kt->width = fixed_key_rules[i].width;
			Assert(kt->typbyval && kt->typlen == kt->width);
			return;
		}
	}

	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("count_distinct does not support type %s",
					format_type_be(typid))));
}

const CDKeyType *
cd_keytype_cached(FmgrInfo *flinfo, Oid typid, Oid collation)
{
	CDKeyType  *kt = (CDKeyType *) flinfo->fn_extra;

	if (kt == NULL || kt->typid != typid || kt->collation != collation)
	{
		CDKeyType	tmp;

		/* build first, so an ERROR leaves no half-built cache entry */
		cd_keytype_init(&tmp, typid, collation);
		if (kt == NULL)
			kt = MemoryContextAlloc(flinfo->fn_mcxt, sizeof(CDKeyType));
		*kt = tmp;
		flinfo->fn_extra = kt;
	}
	return kt;
}

bool
cd_keytype_equal(const CDKeyType *a, const CDKeyType *b)
{
	return a == b ||
		(a->basetypid == b->basetypid &&
		 a->encoding == b->encoding &&
		 a->width == b->width);
}

Datum
cd_key_decode(const CDKeyType *kt, uint64 key)
{
	switch (kt->encoding)
	{
		case CD_KEY_INT:
			switch (kt->width)
			{
				case 2:
					return Int16GetDatum((int16) (uint16) (key ^ 0x8000));
				case 4:
					return Int32GetDatum((int32) (uint32) (key ^ UINT64CONST(0x80000000)));
				default:
					return Int64GetDatum((int64) (key ^ UINT64CONST(0x8000000000000000)));
			}
		case CD_KEY_UINT:
			switch (kt->width)
			{
				case 1:
					return CharGetDatum((char) (uint8) key);
				case 2:
					return Int16GetDatum((int16) (uint16) key);
				case 4:
					return UInt32GetDatum((uint32) key);
				default:
					return Int64GetDatum((int64) key);
			}
		case CD_KEY_BOOL:
			return BoolGetDatum(key != 0);
		case CD_KEY_FLOAT:
			if (kt->width == 4)
			{
				uint32		bits = (uint32) key;
				float4		f;

				bits = (bits & ((uint32) 0x80000000)) ?
					(bits & ~((uint32) 0x80000000)) : ~bits;
				memcpy(&f, &bits, sizeof(f));
				return Float4GetDatum(f);
			}
			else
			{
				uint64		bits = key;
				float8		f;

				bits = (bits & UINT64CONST(0x8000000000000000)) ?
					(bits & ~UINT64CONST(0x8000000000000000)) : ~bits;
				memcpy(&f, &bits, sizeof(f));
				return Float8GetDatum(f);
			}
	}
	pg_unreachable();
}
