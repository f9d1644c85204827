/*-------------------------------------------------------------------------
 *
 * key.c
 *	  Which types become which keys (one table), and decoding keys back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "key.h"
#include "value_io.h"

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

/*
 * Types whose "=" is byte equality of their bytes (for text and varchar: of
 * their payload, under a deterministic collation), so CD_KEY_BYTES keys need
 * no comparator: bytea and uuid compare with memcmp then length, exactly as
 * their btree comparators do; text under a deterministic collation is equal
 * only when its bytes are (texteq).  Everything else (numeric 1.0 = 1.00,
 * bpchar's trailing blanks, interval '1 day' = '24 hours', jsonb, citext,
 * nondeterministic collations, ...) takes the type's comparator.
 */
static bool
is_bytes_type(Oid basetypid, Oid collation)
{
	switch (basetypid)
	{
		case BYTEAOID:
		case UUIDOID:
			return true;
		case TEXTOID:
		case VARCHAROID:
			return OidIsValid(collation) && get_collation_isdeterministic(collation);
		default:
			return false;
	}
}

void
cd_keytype_init(CDKeyType *kt, Oid typid, Oid collation, MemoryContext mcxt)
{
	Oid			basetypid = getBaseType(typid);
	TypeCacheEntry *tce;
	int			i;

	memset(kt, 0, sizeof(*kt));
	kt->typid = typid;
	kt->basetypid = basetypid;
	get_typlenbyvalalign(basetypid, &kt->typlen, &kt->typbyval, &kt->typalign);

	for (i = 0; i < lengthof(fixed_key_rules); i++)
	{
		if (fixed_key_rules[i].typid == basetypid)
		{
			kt->encoding = fixed_key_rules[i].encoding;
			kt->width = fixed_key_rules[i].width;
			/* 8-byte types may be by reference (no USE_FLOAT8_BYVAL) */
			Assert(kt->typlen == kt->width);
			return;
		}
	}

	/* the same checks, and errors, as a native DISTINCT aggregate's sort */
	tce = lookup_type_cache(basetypid, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR);
	if (!OidIsValid(tce->eq_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an equality operator for type %s",
						format_type_be(typid))));
	if (!OidIsValid(tce->lt_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an ordering operator for type %s",
						format_type_be(typid))));
	if (kt->typlen < 0 && kt->typlen != -1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("count_distinct does not support type %s",
						format_type_be(typid))));
	if (type_is_collatable(basetypid) && !OidIsValid(collation))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_COLLATION),
				 errmsg("could not determine which collation to use for count_distinct"),
				 errhint("Use the COLLATE clause to set the collation explicitly.")));

	kt->collation = type_is_collatable(basetypid) ? collation : InvalidOid;
	kt->encoding = is_bytes_type(basetypid, kt->collation) ?
		CD_KEY_BYTES : CD_KEY_COMPARATOR;
	kt->width = 0;

	if (kt->encoding == CD_KEY_COMPARATOR ||
		(OidIsValid(kt->collation) && !lc_collate_is_c(kt->collation)))
	{
		kt->sort_on_output = (kt->encoding == CD_KEY_BYTES);
		kt->ssup.ssup_cxt = mcxt;
		kt->ssup.ssup_collation = kt->collation;
		kt->ssup.ssup_nulls_first = false;
		PrepareSortSupportFromOrderingOp(tce->lt_opr, &kt->ssup);

		if (kt->encoding == CD_KEY_COMPARATOR)
		{
			kt->ssup_abbrev.ssup_cxt = mcxt;
			kt->ssup_abbrev.ssup_collation = kt->collation;
			kt->ssup_abbrev.ssup_nulls_first = false;
			kt->ssup_abbrev.abbreviate = true;
			PrepareSortSupportFromOrderingOp(tce->lt_opr, &kt->ssup_abbrev);
			kt->has_abbrev = (kt->ssup_abbrev.abbrev_converter != NULL);
		}
	}

	if (kt->encoding == CD_KEY_COMPARATOR)
		kt->vio = cd_value_io_create(mcxt);
}

bool
cd_keytype_equal(const CDKeyType *a, const CDKeyType *b)
{
	return a == b ||
		(a->basetypid == b->basetypid &&
		 a->encoding == b->encoding &&
		 a->width == b->width &&
		 a->collation == b->collation);
}

void
cd_keytype_check_same(const CDKeyType *a, const CDKeyType *b)
{
	if (cd_keytype_equal(a, b))
		return;
	if (a->basetypid == b->basetypid && a->collation != b->collation)
		ereport(ERROR,
				(errcode(ERRCODE_COLLATION_MISMATCH),
				 errmsg("cannot combine count_distinct states of type %s under different collations",
						format_type_be(a->typid)),
				 errdetail("The collations are %s and %s.",
						   OidIsValid(a->collation) ? get_collation_name(a->collation) : "none",
						   OidIsValid(b->collation) ? get_collation_name(b->collation) : "none")));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cannot combine count_distinct states of types %s and %s",
					format_type_be(a->typid), format_type_be(b->typid))));
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
		case CD_KEY_BYTES:
		case CD_KEY_COMPARATOR:
			break;
	}
	elog(ERROR, "count_distinct: not a fixed-width key");
	pg_unreachable();
}

Size
cd_varkey_size(const CDKeyType *kt, Datum value, Datum *detoasted)
{
	if (kt->typlen == -1)
	{
		struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

		*detoasted = PointerGetDatum(v);
		return VARSIZE_ANY_EXHDR(v) +
			(kt->encoding == CD_KEY_COMPARATOR ? VARHDRSZ : 0);
	}
	*detoasted = value;
	return kt->typlen;
}

void
cd_varkey_write(const CDKeyType *kt, Datum detoasted, char *dst)
{
	if (kt->typlen == -1)
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(detoasted);
		Size		len = VARSIZE_ANY_EXHDR(v);

		if (kt->encoding == CD_KEY_COMPARATOR)
		{
			/* a 4-byte header, whatever the input had */
			uint32		hdr[2];

			SET_VARSIZE((struct varlena *) hdr, len + VARHDRSZ);
			memcpy(dst, hdr, VARHDRSZ);
			dst += VARHDRSZ;
		}
		memcpy(dst, VARDATA_ANY(v), len);
	}
	else if (kt->typbyval)
	{
		union
		{
			Datum		align;
			char		bytes[sizeof(Datum)];
		}			u;

		store_att_byval(u.bytes, detoasted, kt->typlen);
		memcpy(dst, u.bytes, kt->typlen);
	}
	else
		memcpy(dst, DatumGetPointer(detoasted), kt->typlen);
}

Datum
cd_varkey_image_datum(const CDKeyType *kt, const char *image)
{
	return fetch_att(image, kt->typbyval, kt->typlen);
}

Datum
cd_varkey_output_datum(const CDKeyType *kt, const char *key, Size len)
{
	char	   *copy;

	if (kt->encoding == CD_KEY_BYTES && kt->typlen == -1)
	{
		struct varlena *v = palloc(len + VARHDRSZ);

		SET_VARSIZE(v, len + VARHDRSZ);
		memcpy(VARDATA(v), key, len);
		return PointerGetDatum(v);
	}
	if (kt->typbyval)
	{
		/* the value itself: no copy to keep */
		union
		{
			Datum		align;
			char		bytes[sizeof(Datum)];
		}			u;

		Assert(len == (Size) kt->typlen && len <= sizeof(Datum));
		memcpy(u.bytes, key, len);
		switch (kt->typlen)
		{
			case 1:
				return CharGetDatum(*(char *) u.bytes);
			case 2:
				return Int16GetDatum(*(int16 *) u.bytes);
			case 4:
				return Int32GetDatum(*(int32 *) u.bytes);
			default:
				return u.align;
		}
	}
	/* the image itself (uuid bytes, or a comparator key), aligned */
	copy = palloc(len);
	memcpy(copy, key, len);
	return PointerGetDatum(copy);
}

void
cd_varkey_free_output_datum(const CDKeyType *kt, Datum value)
{
	if (!kt->typbyval)
		pfree(DatumGetPointer(value));
}

bool
cd_varkey_is_valid(const CDKeyType *kt, const char *key, Size len)
{
	if (kt->typlen > 0 && len != (Size) kt->typlen)
		return false;
	if (len > MaxAllocSize - VARHDRSZ)
		return false;
	if (kt->basetypid == TEXTOID || kt->basetypid == VARCHAROID)
		return pg_verify_mbstr(GetDatabaseEncoding(), key, (int) len, true);
	return true;
}
