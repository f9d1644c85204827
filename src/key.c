/*-------------------------------------------------------------------------
 *
 * key.c
 *	  Which types become which keys (the tables fixed_key_rules and
 *	  byte_codecs, and the rules of cd_keytype_init), and keys back to values.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "common/int.h"
#include "access/tupmacs.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "errors.h"
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

/*
 * Encoded byte keys (CDByteCodec, key.h) of scalar types: the kt argument
 * is unused by these.
 */

/*
 * numeric.  The on-disk format (numeric.c; stable, as pg_upgrade requires):
 * a varlena holding a uint16 header, for the long format an int16 weight,
 * then base-10000 digits (int16).  Header: 0xC000 special (0xC000 NaN;
 * 14+: 0xD000 +Infinity, 0xF000 -Infinity); 0x8000 short: sign 0x2000,
 * display scale 0x1F80, weight sign 0x0040 and weight 0x003F; else long:
 * sign 0x4000, display scale 0x3FFF.
 *
 * Key: a class byte (-Infinity < negative < zero < positive < +Infinity <
 * NaN, as numeric_cmp orders them), then for finite non-zero values the
 * weight of the first digit (uint16, biased by 0x8000) and the digits
 * without leading or trailing zero digits (uint16 each), all big-endian; for
 * negative values the weight and digits reversed (bitwise not, 9999 - d)
 * and a final 0xFF, so that a longer magnitude sorts first.  The display
 * scale is not part of the key (1.0 = 1.00); decoding gives the normalized
 * value, with the fewest fraction digits that show it (1.50 -> 1.5).
 */
#define CDN_SPECIAL			0xC000
#define CDN_SIGN_MASK		0xC000
#define CDN_NEG				0x4000
#define CDN_SHORT			0x8000
#define CDN_EXT_MASK		0xF000
#define CDN_NAN				0xC000
#define CDN_PINF			0xD000
#define CDN_NINF			0xF000
#define CDN_SHORT_SIGN		0x2000
#define CDN_SHORT_DSCALE_SHIFT 7
#define CDN_SHORT_WEIGHT_SIGN 0x0040
#define CDN_SHORT_WEIGHT_MASK 0x003F
#define CDN_DSCALE_MASK		0x3FFF

enum
{
	CDN_KEY_NINF = 1,
	CDN_KEY_NEG,
	CDN_KEY_ZERO,
	CDN_KEY_POS,
	CDN_KEY_PINF,
	CDN_KEY_NAN
};

typedef struct CDNumericParts
{
	int			class;			/* CDN_KEY_* */
	int			weight;
	const char *digits;			/* int16 each, possibly unaligned */
	int			ndigits;
} CDNumericParts;

static inline uint16
read_u16(const char *p)
{
	uint16		v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void
numeric_parts(Datum value, CDNumericParts *parts)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	const char *p = VARDATA_ANY(v);
	Size		n = VARSIZE_ANY_EXHDR(v);
	uint16		header = read_u16(p);
	int			hdr;

	if ((header & CDN_SIGN_MASK) == CDN_SPECIAL)
	{
		switch (header & CDN_EXT_MASK)
		{
			case CDN_PINF:
				parts->class = CDN_KEY_PINF;
				break;
			case CDN_NINF:
				parts->class = CDN_KEY_NINF;
				break;
			default:
				parts->class = CDN_KEY_NAN;
				break;
		}
		parts->ndigits = 0;
		return;
	}
	if (header & CDN_SHORT)
	{
		parts->class = (header & CDN_SHORT_SIGN) ? CDN_KEY_NEG : CDN_KEY_POS;
		parts->weight = (header & CDN_SHORT_WEIGHT_SIGN) ?
			(int) (header & CDN_SHORT_WEIGHT_MASK) - (CDN_SHORT_WEIGHT_MASK + 1) :
			(int) (header & CDN_SHORT_WEIGHT_MASK);
		hdr = sizeof(uint16);
	}
	else
	{
		parts->class = (header & CDN_NEG) ? CDN_KEY_NEG : CDN_KEY_POS;
		parts->weight = (int16) read_u16(p + sizeof(uint16));
		hdr = 2 * sizeof(uint16);
	}
	parts->digits = p + hdr;
	parts->ndigits = (int) ((n - hdr) / sizeof(int16));

	/* strip leading and trailing zero digits (stored values have none) */
	while (parts->ndigits > 0 && read_u16(parts->digits) == 0)
	{
		parts->digits += sizeof(int16);
		parts->ndigits--;
		parts->weight--;
	}
	while (parts->ndigits > 0 &&
		   read_u16(parts->digits + (parts->ndigits - 1) * sizeof(int16)) == 0)
		parts->ndigits--;
	if (parts->ndigits == 0)
		parts->class = CDN_KEY_ZERO;
}

static Size
numeric_key_size(const CDKeyType *kt, Datum value)
{
	CDNumericParts parts;

	numeric_parts(value, &parts);
	switch (parts.class)
	{
		case CDN_KEY_POS:
			return 3 + 2 * (Size) parts.ndigits;
		case CDN_KEY_NEG:
			return 4 + 2 * (Size) parts.ndigits;
		default:
			return 1;
	}
}

static void
numeric_key_write(const CDKeyType *kt, Datum value, char *dst)
{
	CDNumericParts parts;
	uint8	   *d = (uint8 *) dst;
	uint16		w;
	int			i;

	numeric_parts(value, &parts);
	*d++ = (uint8) parts.class;
	if (parts.class != CDN_KEY_POS && parts.class != CDN_KEY_NEG)
		return;
	w = (uint16) (parts.weight + 0x8000);
	if (parts.class == CDN_KEY_NEG)
		w = ~w;
	*d++ = (uint8) (w >> 8);
	*d++ = (uint8) w;
	for (i = 0; i < parts.ndigits; i++)
	{
		uint16		digit = read_u16(parts.digits + i * sizeof(int16));

		if (parts.class == CDN_KEY_NEG)
			digit = 9999 - digit;
		*d++ = (uint8) (digit >> 8);
		*d++ = (uint8) digit;
	}
	if (parts.class == CDN_KEY_NEG)
		*d = 0xFF;
}

static bool
numeric_key_decode(const CDKeyType *kt, const char *key, Size len,
                    Datum *value)
{
	const uint8 *k = (const uint8 *) key;
	struct varlena *v;
	char	   *p;
	bool		neg;
	int			ndigits;
	int			weight;
	int			dscale;
	int			i;
	uint16		header;

	if (len == 0)
		return false;
	if (len == 1)
	{
		switch (k[0])
		{
			case CDN_KEY_NAN:
				header = CDN_NAN;
				break;
#if PG_VERSION_NUM >= 140000
			case CDN_KEY_PINF:
				header = CDN_PINF;
				break;
			case CDN_KEY_NINF:
				header = CDN_NINF;
				break;
#endif
			case CDN_KEY_ZERO:
				header = CDN_SHORT;
				break;
			default:
				return false;
		}
		v = palloc(VARHDRSZ + sizeof(uint16));
		SET_VARSIZE(v, VARHDRSZ + sizeof(uint16));
		memcpy(VARDATA(v), &header, sizeof(uint16));
		*value = PointerGetDatum(v);
		return true;
	}
	if (k[0] != CDN_KEY_POS && k[0] != CDN_KEY_NEG)
		return false;
	neg = (k[0] == CDN_KEY_NEG);
	if (neg && k[len - 1] != 0xFF)
		return false;
	if ((len - (neg ? 4 : 3)) % 2 != 0 || len < (Size) (neg ? 6 : 5) ||
		len > (Size) (neg ? 4 : 3) + 2 * (Size) PG_INT16_MAX)
		return false;
	ndigits = (int) ((len - (neg ? 4 : 3)) / 2);
	header = (uint16) ((k[1] << 8) | k[2]);
	weight = (int) (uint16) (neg ? ~header : header) - 0x8000;

	/* the fewest fraction digits that show every digit */
	dscale = 0;
	if (ndigits - 1 - weight > 0)
	{
		int			last = (k[3 + 2 * (ndigits - 1)] << 8) | k[4 + 2 * (ndigits - 1)];

		if (neg)
			last = 9999 - last;
		dscale = (ndigits - 1 - weight) * 4;
		while (last != 0 && last % 10 == 0)
		{
			last /= 10;
			dscale--;
		}
	}
	if (dscale > CDN_DSCALE_MASK)
		return false;

	if (dscale <= 63 && weight <= 63 && weight >= -64)
	{
		header = CDN_SHORT | (neg ? CDN_SHORT_SIGN : 0) |
			(dscale << CDN_SHORT_DSCALE_SHIFT) |
			(weight < 0 ? CDN_SHORT_WEIGHT_SIGN : 0) |
			(weight & CDN_SHORT_WEIGHT_MASK);
		v = palloc(VARHDRSZ + sizeof(uint16) * (1 + ndigits));
		SET_VARSIZE(v, VARHDRSZ + sizeof(uint16) * (1 + ndigits));
		p = VARDATA(v);
		memcpy(p, &header, sizeof(uint16));
		p += sizeof(uint16);
	}
	else
	{
		int16		w16 = (int16) weight;

		header = (neg ? CDN_NEG : 0) | dscale;
		v = palloc(VARHDRSZ + sizeof(uint16) * (2 + ndigits));
		SET_VARSIZE(v, VARHDRSZ + sizeof(uint16) * (2 + ndigits));
		p = VARDATA(v);
		memcpy(p, &header, sizeof(uint16));
		memcpy(p + sizeof(uint16), &w16, sizeof(int16));
		p += 2 * sizeof(uint16);
	}
	for (i = 0; i < ndigits; i++)
	{
		int			raw = (k[3 + 2 * i] << 8) | k[4 + 2 * i];
		int16		digit = (int16) (neg ? 9999 - raw : raw);

		if (raw > 9999 || ((i == 0 || i == ndigits - 1) && digit == 0))
		{
			pfree(v);
			return false;
		}
		memcpy(p + i * sizeof(int16), &digit, sizeof(int16));
	}
	*value = PointerGetDatum(v);
	return true;
}

/*
 * interval.  interval_cmp_value() compares intervals by their span, time +
 * (month * 30 + day) * USECS_PER_DAY, a 128-bit integer (17+: the infinite
 * intervals are the largest and smallest spans).  The key is that span as
 * whole days (floor; 40 bits, biased by 2^39) and the microseconds into the
 * day (40 bits), big-endian: 10 bytes.  Decoding gives the justified
 * interval of that span: months of 30 days, days, and a time within a day,
 * all of one sign ('36 hours' -> '1 day 12:00:00'), the infinite intervals
 * themselves.
 */
#define CDI_KEY_LEN		10
#define CDI_DAY_BIAS	(INT64CONST(1) << 39)

static Size
interval_key_size(const CDKeyType *kt, Datum value)
{
	return CDI_KEY_LEN;
}

static void
put_40(uint8 *d, uint64 v)
{
	d[0] = (uint8) (v >> 32);
	d[1] = (uint8) (v >> 24);
	d[2] = (uint8) (v >> 16);
	d[3] = (uint8) (v >> 8);
	d[4] = (uint8) v;
}

static uint64
get_40(const uint8 *d)
{
	return ((uint64) d[0] << 32) | ((uint64) d[1] << 24) |
		((uint64) d[2] << 16) | ((uint64) d[3] << 8) | d[4];
}

static void
interval_key_write(const CDKeyType *kt, Datum value, char *dst)
{
	Interval   *iv = DatumGetIntervalP(value);
	int64		days = (int64) iv->month * DAYS_PER_MONTH + iv->day;
	int64		q = iv->time / USECS_PER_DAY;
	int64		r = iv->time % USECS_PER_DAY;

	if (r < 0)
	{
		q--;
		r += USECS_PER_DAY;
	}
	put_40((uint8 *) dst, (uint64) (days + q + CDI_DAY_BIAS));
	put_40((uint8 *) dst + 5, (uint64) r);
}

static bool
interval_key_decode(const CDKeyType *kt, const char *key, Size len,
                     Datum *value)
{
	const uint8 *k = (const uint8 *) key;
	int64		days;
	int64		usecs;
	int64		months;
	int64		rest;
	int64		time;
	Interval   *iv;

	if (len != CDI_KEY_LEN)
		return false;
	days = (int64) get_40(k) - CDI_DAY_BIAS;
	usecs = (int64) get_40(k + 5);
	if (usecs >= USECS_PER_DAY)
		return false;
	/* one sign for all fields */
	if (days < 0 && usecs > 0)
	{
		days++;
		usecs -= USECS_PER_DAY;
	}
	months = days / DAYS_PER_MONTH;
	months = Max(Min(months, PG_INT32_MAX), PG_INT32_MIN);
	rest = days - months * DAYS_PER_MONTH;
	days = Max(Min(rest, PG_INT32_MAX), PG_INT32_MIN);
	if (pg_mul_s64_overflow(rest - days, USECS_PER_DAY, &time) ||
		pg_add_s64_overflow(time, usecs, &time))
		return false;
	iv = palloc(sizeof(Interval));
	iv->month = (int32) months;
	iv->day = (int32) days;
	iv->time = time;
	*value = IntervalPGetDatum(iv);
	return true;
}

/*
 * bpchar.  Under a deterministic collation bpchareq compares the values
 * without their trailing blanks byte for byte (and the C collation orders
 * them by memcmp then length): the key is the payload without trailing
 * blanks, which is also what decoding gives ('ab   ' -> 'ab').
 */
static inline Size
bpchar_true_len(const char *s, Size len)
{
	while (len > 0 && s[len - 1] == ' ')
		len--;
	return len;
}

static Size
bpchar_key_size(const CDKeyType *kt, Datum value)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);

	return bpchar_true_len(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
}

static void
bpchar_key_write(const CDKeyType *kt, Datum value, char *dst)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);

	memcpy(dst, VARDATA_ANY(v), bpchar_true_len(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)));
}

static bool
bpchar_key_decode(const CDKeyType *kt, const char *key, Size len,
                   Datum *value)
{
	struct varlena *v;

	if (len > MaxAllocSize - VARHDRSZ)
		return false;
	v = palloc(len + VARHDRSZ);
	SET_VARSIZE(v, len + VARHDRSZ);
	memcpy(VARDATA(v), key, len);
	*value = PointerGetDatum(v);
	return true;
}

static const CDByteCodec byte_codecs[] = {
	{NUMERICOID, numeric_key_size, numeric_key_write, numeric_key_decode},
	{INTERVALOID, interval_key_size, interval_key_write, interval_key_decode},
	{BPCHAROID, bpchar_key_size, bpchar_key_write, bpchar_key_decode},
};

static const CDByteCodec *
byte_codec(Oid basetypid)
{
	int			i;

	for (i = 0; i < lengthof(byte_codecs); i++)
	{
		if (byte_codecs[i].typid == basetypid)
			return &byte_codecs[i];
	}
	return NULL;
}

/*
 * Types whose "=" is byte equality of their bytes (for text and varchar: of
 * their payload, under a deterministic collation), so CD_KEY_BYTES keys need
 * no comparator: bytea and uuid compare with memcmp then length, exactly as
 * their btree comparators do; text under a deterministic collation is equal
 * only when its bytes are (texteq).  numeric, interval and bpchar (under a
 * deterministic collation) take their encoding above.  Everything else
 * (jsonb, citext, nondeterministic collations, ...) takes the type's
 * comparator.
 */
static bool
is_bytes_type(Oid basetypid, Oid collation)
{
	switch (basetypid)
	{
		case BYTEAOID:
		case UUIDOID:
		case NUMERICOID:
		case INTERVALOID:
			return true;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
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
	kt->typmod = -1;
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
	if (kt->encoding == CD_KEY_BYTES)
		kt->codec = byte_codec(basetypid);

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
}

bool
cd_keytype_equal(const CDKeyType *a, const CDKeyType *b)
{
	return a == b ||
		(a->basetypid == b->basetypid &&
		 a->encoding == b->encoding &&
		 a->width == b->width &&
		 a->collation == b->collation &&
		 a->typmod == b->typmod);
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
			/* "char" (1 byte) and oid (4 bytes) */
			if (kt->width == 1)
				return CharGetDatum((char) (uint8) key);
			return UInt32GetDatum((uint32) key);
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
	cd_error_bad_key("not a fixed-width key");
	pg_unreachable();
}

Size
cd_varkey_size(const CDKeyType *kt, Datum value, Datum *detoasted)
{
	if (kt->codec != NULL)
	{
		*detoasted = kt->typlen == -1 ?
			PointerGetDatum(PG_DETOAST_DATUM_PACKED(value)) : value;
		return kt->codec->size(kt, *detoasted);
	}
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
	if (kt->codec != NULL)
		kt->codec->write(kt, detoasted, dst);
	else if (kt->typlen == -1)
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

	if (kt->codec != NULL)
	{
		Datum		value;

		if (!kt->codec->decode(kt, key, len, &value))
			elog(ERROR, "invalid %s key",
				 format_type_be(kt->basetypid));
		return value;
	}
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

/* Does key decode to a value that encodes to key again? */
static bool
codec_key_is_canonical(const CDKeyType *kt, const char *key, Size len)
{
	const CDByteCodec *codec = kt->codec;
	Datum		value;
	bool		ok;
	char	   *again;

	if (!codec->decode(kt, key, len, &value))
		return false;
	ok = (codec->size(kt, value) == len);
	if (ok)
	{
		again = palloc(Max(len, 1));
		codec->write(kt, value, again);
		ok = (memcmp(again, key, len) == 0);
		pfree(again);
	}
	pfree(DatumGetPointer(value));
	return ok;
}

bool
cd_varkey_is_valid(const CDKeyType *kt, const char *key, Size len)
{
	return cd_varkey_is_valid_after(kt, key, len, 0);
}

/*
 * Where the text encoding of key may be checked from, its first known bytes
 * being those of a key found valid: the start of a character at or before
 * known, such that the bytes before it are whole characters.  In UTF-8 the
 * first byte of a character is never a continuation byte (10xxxxxx); in a
 * single-byte encoding every byte is a character.  Other encodings (EUC):
 * from the first byte.
 */
static Size
text_check_from(int encoding, const char *key, Size known)
{
	Size		b;

	if (known == 0)
		return 0;
	if (encoding == PG_UTF8)
	{
		/* the character that holds the last known byte starts at b */
		b = known - 1;
		while (b > 0 && ((uint8) key[b] & 0xC0) == 0x80)
			b--;
		return b;
	}
	if (pg_encoding_max_length(encoding) == 1)
		return known;
	return 0;
}

/*
 * Are the n bytes at p ASCII characters other than NUL?  Those are valid in
 * every server encoding (all extend ASCII), so pg_verify_mbstr need not see
 * them: 8 bytes at a time (for stored sets and partial states of texts
 * whose bytes after a shared prefix are mostly ASCII; bench/README.md has
 * what the encoding check cost a parallel leader).
 */
static inline bool
all_ascii(const char *p, Size n)
{
	const uint64 high = UINT64CONST(0x8080808080808080);
	const uint64 ones = UINT64CONST(0x0101010101010101);
	Size		i = 0;

	for (; i + sizeof(uint64) <= n; i += sizeof(uint64))
	{
		uint64		w;

		memcpy(&w, p + i, sizeof(w));
		/* a byte with its high bit set, or a zero byte */
		if ((w & high) != 0 || ((w - ones) & ~w & high) != 0)
			return false;
	}
	for (; i < n; i++)
		if ((uint8) ((uint8) p[i] - 1) >= 0x7F)
			return false;
	return true;
}

bool
cd_varkey_is_valid_after(const CDKeyType *kt, const char *key, Size len,
						 Size known)
{
	Assert(known <= len);
	if (kt->typlen > 0 && kt->codec == NULL && len != (Size) kt->typlen)
		return false;
	if (len > MaxAllocSize - VARHDRSZ)
		return false;
	if (kt->basetypid == TEXTOID || kt->basetypid == VARCHAROID ||
		kt->basetypid == BPCHAROID)
	{
		int			encoding = GetDatabaseEncoding();
		Size		from = text_check_from(encoding, key, known);

		if (!all_ascii(key + from, len - from) &&
			!pg_verify_mbstr(encoding, key + from, (int) (len - from), true))
			return false;
	}
	if (kt->codec != NULL)
		return codec_key_is_canonical(kt, key, len);
	return true;
}

Size
cd_varkey_fixed_len(const CDKeyType *kt)
{
	Assert(kt->encoding == CD_KEY_BYTES);
	if (kt->basetypid == INTERVALOID)
		return CDI_KEY_LEN;
	if (kt->codec == NULL && kt->typlen > 0)
		return kt->typlen;
	return 0;
}

bool
cd_varkey_may_hold_zero(const CDKeyType *kt)
{
	Assert(kt->encoding == CD_KEY_BYTES);
	/* text, varchar and bpchar values never hold a NUL (nor their keys) */
	return !(kt->basetypid == TEXTOID || kt->basetypid == VARCHAROID ||
			 kt->basetypid == BPCHAROID);
}

int
cd_varkey_compare(const CDKeyType *kt, const char *a, Size alen,
				  const char *b, Size blen)
{
	Datum		da;
	Datum		db;
	char	   *ca;
	char	   *cb;
	int			c;

	if (kt->encoding == CD_KEY_BYTES)
		return cd_varkey_compare_bytes(a, alen, b, blen);

	/* aligned copies (a rare path: validation) */
	ca = palloc(Max(alen, sizeof(Datum)));
	cb = palloc(Max(blen, sizeof(Datum)));
	memcpy(ca, a, alen);
	memcpy(cb, b, blen);
	da = cd_varkey_image_datum(kt, ca);
	db = cd_varkey_image_datum(kt, cb);
	c = ApplySortComparator(da, false, db, false, (SortSupport) &kt->ssup);
	pfree(ca);
	pfree(cb);
	return c;
}
