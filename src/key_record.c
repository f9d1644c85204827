/*-------------------------------------------------------------------------
 *
 * key_record.c
 *	  Records as byte keys (see key_record.h for the encoding).
 *
 * A record key type carries its layout: the row type's descriptor and,
 * for each field that is not dropped, the field's own key type (key.h),
 * which does all the per-type work (a field of a named composite type: a
 * nested layout).  Encoding deforms the record once and appends each
 * field's key; cd_varkey_size encodes into the layout's buffer and
 * cd_varkey_write copies it from there, so a row is deformed once.
 * Decoding checks every field's key as key.c checks keys from untrusted
 * input (text encoding, canonical encoded keys), so that decoding and
 * encoding again is the test of a valid record key.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "errors.h"
#include "key_record.h"
#include "value_io.h"

/* how a field's key is written inside the record's */
typedef enum RecordFieldKind
{
	RF_FIXED,					/* fixed-width key, big-endian */
	RF_RAW,						/* byte key of one length */
	RF_TEXT,					/* byte key without zero bytes, then 0x00 */
	RF_ESCAPED,					/* byte key escaped, then 0x00 0x01 */
	RF_NESTED					/* a nested record or array key */
} RecordFieldKind;

#define RK_VALUE	0x01		/* a field's first byte: a value follows */
#define RK_NULL		0x02		/* a NULL field (after every value) */

typedef struct RecordField
{
	int			attno;			/* 0-based, in the layout's descriptor */
	RecordFieldKind kind;
	Size		rawlen;			/* RF_RAW */
	CDKeyType	kt;				/* RF_NESTED: a record or array key type */

	/*
	 * A numeric or bpchar field with a type modifier (numeric(12,3),
	 * char(5)): its key drops what the modifier fixes (the display scale,
	 * trailing blanks), so decoding applies the modifier again (pad_typmod;
	 * else -1) wherever that only pads: a value that fits the modifier
	 * (below pad_bound, numeric's 10^(precision - scale)) comes out as the
	 * column would hold it, one that does not (never stored through the
	 * column) as decoded.  Padding keeps the key, so the value stays "=".
	 */
	int32		pad_typmod;
	Datum		pad_bound;
} RecordField;

typedef struct CDRecordLayout
{
	Oid			typid;			/* composite type, or RECORDOID */
	int32		typmod;			/* RECORDOID: the canonical typmod */
	TupleDesc	tupdesc;		/* that row type's */
	int			nfields;
	RecordField *fields;
	bool		sort_on_output; /* a field's key order is not its order */

	/* arrays (is_array): no descriptor, one field, the element's */
	bool		is_array;
	Oid			elemtype;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;

	/* the last row type of values found to be this one (checked per row) */
	Oid			seen_typid;
	int32		seen_typmod;

	/* scratch: deformed values, the last key encoded and its value */
	Datum	   *values;
	bool	   *isnull;
	StringInfoData enc;
	const void *enc_src;
	StringInfoData tmp;

	/*
	 * Records of the canonical row type: the value that stands for the key
	 * cd_record_row_datum encoded last into enc (an empty varlena, so that
	 * detoasting leaves it as it is; only its address is compared).
	 */
	struct varlena *row_key;
} CDRecordLayout;

static bool init_record_keytype(CDKeyType *kt, Oid typid, Oid basetypid,
								int32 typmod, MemoryContext mcxt);
static bool init_array_keytype(CDKeyType *kt, Oid typid, Oid basetypid,
							   Oid collation, MemoryContext mcxt);
static void nested_encode(CDRecordLayout *l, Datum value, StringInfo buf);
static bool nested_decode(CDRecordLayout *l, const uint8 *key, Size len,
						  Size *pos, Datum *value);

/*
 * Is basetypid (no domain) a true array type (its element type's array
 * type: not int2vector, whose values have lower bound 0 and which is read
 * back through its own input, nor oidvector, whose btree order is its own)
 * ordered by array_cmp?
 */
static bool
is_array_type(Oid basetypid)
{
	TypeCacheEntry *tce;
	Oid			elemtypid;

	if (get_typlen(basetypid) != -1)
		return false;
	elemtypid = get_element_type(basetypid);
	if (!OidIsValid(elemtypid) || get_array_type(elemtypid) != basetypid)
		return false;
	tce = lookup_type_cache(basetypid, TYPECACHE_CMP_PROC);
	return tce->cmp_proc == F_BTARRAYCMP;
}

/*
 * Can a field of type typid under collation take a fixed-width or byte key
 * without the errors of cd_keytype_init (which the comparator path raises
 * only when it compares two values)?  Nested composites are checked by
 * their own layout.
 */
static bool
field_keyable(Oid typid, Oid collation)
{
	Oid			basetypid = getBaseType(typid);
	TypeCacheEntry *tce;

	if (basetypid == RECORDOID || get_typlen(basetypid) < -1)
		return false;
	tce = lookup_type_cache(basetypid, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR);
	if (!OidIsValid(tce->eq_opr) || !OidIsValid(tce->lt_opr))
		return false;
	if (type_is_collatable(basetypid) && !OidIsValid(collation))
		return false;
	return true;
}

/*
 * Fill f for values of type typid under collation (a record's field, an
 * array's element); false if they cannot take a key.  *sort_on_output is
 * set if the field's key order is not its btree order.
 */
static bool
field_init(RecordField *f, Oid typid, int32 typmod, Oid collation,
		   MemoryContext mcxt, bool *sort_on_output)
{
	Oid			basetypid = getBaseType(typid);

	f->pad_typmod = -1;
	if (typmod < 0 && basetypid != typid)
		(void) getBaseTypeAndTypmod(typid, &typmod);

	if (basetypid != RECORDOID &&
		(get_typtype(basetypid) == TYPTYPE_COMPOSITE ||
		 is_array_type(basetypid)))
	{
		if (get_typtype(basetypid) == TYPTYPE_COMPOSITE ?
			!init_record_keytype(&f->kt, typid, basetypid, -1, mcxt) :
			!init_array_keytype(&f->kt, typid, basetypid, collation, mcxt))
			return false;
		f->kind = RF_NESTED;
		*sort_on_output |= f->kt.record->sort_on_output;
		return true;
	}
	if (!field_keyable(typid, collation))
		return false;
	cd_keytype_init(&f->kt, typid, collation, mcxt);
	switch (f->kt.encoding)
	{
		case CD_KEY_BOOL:
		case CD_KEY_UINT:
		case CD_KEY_INT:
		case CD_KEY_FLOAT:
			f->kind = RF_FIXED;
			break;
		case CD_KEY_BYTES:
			f->rawlen = cd_varkey_fixed_len(&f->kt);
			if (f->rawlen > 0)
				f->kind = RF_RAW;
			else if (!cd_varkey_may_hold_zero(&f->kt))
				f->kind = RF_TEXT;
			else
				f->kind = RF_ESCAPED;
			break;
		case CD_KEY_COMPARATOR:
			return false;
	}
	*sort_on_output |= f->kt.sort_on_output;
	if (typmod >= 0 && basetypid == BPCHAROID)
		f->pad_typmod = typmod;
	else if (typmod >= (int32) VARHDRSZ && basetypid == NUMERICOID)
	{
		int32		precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
		int32		scale = (int32) (int16) ((typmod - VARHDRSZ) & 0xffff);
		MemoryContext old;

		/* scales outside 0 .. precision (PostgreSQL 15+): left as decoded */
		if (scale >= 0 && scale <= precision)
		{
			char		bound[16];

			snprintf(bound, sizeof(bound), "1e%d", precision - scale);
			old = MemoryContextSwitchTo(mcxt);
			f->pad_bound = DirectFunctionCall3(numeric_in,
											   CStringGetDatum(bound),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1));
			MemoryContextSwitchTo(old);
			f->pad_typmod = typmod;
		}
	}
	return true;
}

/*
 * Apply f's type modifier to v, a value decoded from f's key, where that
 * only pads (see RecordField); the result, or v.
 */
static Datum
field_pad(const RecordField *f, Datum v)
{
	Datum		padded;

	if (f->kt.basetypid == BPCHAROID)
	{
		/* bpcharlen counts characters without the trailing blanks */
		if (DatumGetInt32(DirectFunctionCall1(bpcharlen, v)) >
			f->pad_typmod - (int32) VARHDRSZ)
			return v;
		padded = DirectFunctionCall3(bpchar, v, Int32GetDatum(f->pad_typmod),
									 BoolGetDatum(true));
	}
	else
	{
		int32		scale = (int32) (int16) ((f->pad_typmod - VARHDRSZ) & 0xffff);
		Datum		abs = DirectFunctionCall1(numeric_abs, v);
		bool		fits;

		/* NaN and infinities are not below the bound */
		fits = DatumGetBool(DirectFunctionCall2(numeric_lt, abs, f->pad_bound));
		pfree(DatumGetPointer(abs));
		if (!fits ||
			DatumGetInt32(DirectFunctionCall1(numeric_scale, v)) > scale)
			return v;
		padded = DirectFunctionCall2(numeric, v, Int32GetDatum(f->pad_typmod));
	}
	if (padded != v)
		pfree(DatumGetPointer(v));
	return padded;
}

/*
 * Fill l from tupdesc (copied into mcxt); false if a field cannot take a
 * key (the record then takes the comparator path).
 */
static bool
init_layout(CDRecordLayout *l, TupleDesc tupdesc, MemoryContext mcxt)
{
	MemoryContext old = MemoryContextSwitchTo(mcxt);
	int			i;

	l->tupdesc = CreateTupleDescCopy(tupdesc);
	l->typid = tupdesc->tdtypeid;
	l->typmod = tupdesc->tdtypmod;
	l->fields = palloc0(sizeof(RecordField) * Max(tupdesc->natts, 1));
	l->values = palloc(sizeof(Datum) * Max(tupdesc->natts, 1));
	l->isnull = palloc(sizeof(bool) * Max(tupdesc->natts, 1));
	initStringInfo(&l->enc);
	initStringInfo(&l->tmp);
	MemoryContextSwitchTo(old);

	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		RecordField *f = &l->fields[l->nfields];

		/* record_cmp and record_eq skip dropped columns */
		if (att->attisdropped)
			continue;
		f->attno = i;
		if (!field_init(f, att->atttypid, att->atttypmod, att->attcollation,
						mcxt, &l->sort_on_output))
			return false;
		l->nfields++;
	}
	return true;
}

/* "(type, type COLLATE c, ...)": the column types of a row type, for messages */
static char *
rowtype_columns(Oid typid, int32 typmod)
{
	TupleDesc	d = lookup_rowtype_tupdesc(typid, typmod);
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	appendStringInfoChar(&s, '(');
	for (i = 0; i < d->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(d, i);

		if (a->attisdropped)
			continue;
		if (s.len > 1)
			appendStringInfoString(&s, ", ");
		appendStringInfoString(&s, format_type_be(a->atttypid));
		if (OidIsValid(a->attcollation) &&
			a->attcollation != get_typcollation(a->atttypid))
			appendStringInfo(&s, " COLLATE %s",
							 quote_identifier(get_collation_name(a->attcollation)));
	}
	appendStringInfoChar(&s, ')');
	ReleaseTupleDesc(d);
	return s.data;
}

/* ERROR: a value of another row type than the key type's */
static pg_noinline void
other_rowtype(const CDRecordLayout *l, Oid typid, int32 typmod)
{
	if (typid != RECORDOID || l->typid != RECORDOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot compare records of different types: %s and %s",
						format_type_be(l->typid), format_type_be(typid)),
				 errdetail("The values of one group, or of a stored set and the value compared with it, must be of one row type.")));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cannot compare records of different column types: %s and %s",
					rowtype_columns(l->typid, l->typmod),
					rowtype_columns(typid, typmod)),
			 errdetail("The values of one group, or of a stored set and the value compared with it, must have the same column types and collations.")));
}

/*
 * Accept values of row type (typid, typmod) for l if they have l's column
 * types and collations (the same physical layout and the same equality),
 * and remember it; ERROR if not.
 */
static pg_noinline void
accept_rowtype(CDRecordLayout *l, Oid typid, int32 typmod)
{
	TupleDesc	d;
	bool		same;
	int			i;

	if (l->typid != RECORDOID || typid != RECORDOID)
	{
		if (typid != l->typid)
			other_rowtype(l, typid, typmod);
		l->seen_typid = typid;
		l->seen_typmod = typmod;
		return;
	}
	d = lookup_rowtype_tupdesc(typid, typmod);
	same = (d->natts == l->tupdesc->natts);
	for (i = 0; same && i < d->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(d, i);
		Form_pg_attribute b = TupleDescAttr(l->tupdesc, i);

		same = !a->attisdropped && a->atttypid == b->atttypid &&
			a->attcollation == b->attcollation;
	}
	ReleaseTupleDesc(d);
	if (!same)
		other_rowtype(l, typid, typmod);
	l->seen_typid = typid;
	l->seen_typmod = typmod;
}

/*
 * Append the key of field f's value (isnull: NULL) to buf; tmp: scratch
 * for escaping.
 */
static void
field_encode(const RecordField *f, Datum v, bool isnull, StringInfo buf,
			 StringInfo tmp)
{
	Datum		detoasted;
	Size		len;
	int			j;

	if (isnull)
	{
		appendStringInfoCharMacro(buf, RK_NULL);
		return;
	}
	appendStringInfoCharMacro(buf, RK_VALUE);
	switch (f->kind)
	{
		case RF_FIXED:
			enlargeStringInfo(buf, f->kt.width);
			cd_key_write_be((uint8 *) buf->data + buf->len, cd_key_encode(&f->kt, v),
				   f->kt.width);
			buf->len += f->kt.width;
			break;
		case RF_RAW:
		case RF_TEXT:
			len = cd_varkey_size(&f->kt, v, &detoasted);
			if (len > MaxAllocSize)
				cd_error_value_too_large(len);
			enlargeStringInfo(buf, (int) len + 1);
			cd_varkey_write(&f->kt, detoasted, buf->data + buf->len);
			buf->len += (int) len;
			if (f->kind == RF_TEXT)
				buf->data[buf->len++] = '\0';
			buf->data[buf->len] = '\0';
			break;
		case RF_ESCAPED:
			len = cd_varkey_size(&f->kt, v, &detoasted);
			if (len > MaxAllocSize)
				cd_error_value_too_large(len);
			resetStringInfo(tmp);
			enlargeStringInfo(tmp, (int) len);
			cd_varkey_write(&f->kt, detoasted, tmp->data);
			for (j = 0; j < (int) len; j++)
			{
				appendStringInfoCharMacro(buf, tmp->data[j]);
				if (tmp->data[j] == '\0')
					appendStringInfoCharMacro(buf, (char) 0xFF);
			}
			appendStringInfoCharMacro(buf, '\0');
			appendStringInfoCharMacro(buf, (char) 0x01);
			break;
		case RF_NESTED:
			nested_encode((CDRecordLayout *) f->kt.record, v, buf);
			break;
	}
}

/* Append the key of the record value to buf. */
static void
record_encode(CDRecordLayout *l, Datum value, StringInfo buf)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(value);
	HeapTupleData tuple;
	int			i;

	if (unlikely(HeapTupleHeaderGetTypeId(th) != l->seen_typid ||
				 HeapTupleHeaderGetTypMod(th) != l->seen_typmod))
		accept_rowtype(l, HeapTupleHeaderGetTypeId(th),
					   HeapTupleHeaderGetTypMod(th));
	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&(tuple.t_self));
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	heap_deform_tuple(&tuple, l->tupdesc, l->values, l->isnull);

	for (i = 0; i < l->nfields; i++)
	{
		RecordField *f = &l->fields[i];

		field_encode(f, l->values[f->attno], l->isnull[f->attno], buf,
					 &l->tmp);
	}
}

static inline void
put_u32(StringInfo buf, uint32 v)
{
	enlargeStringInfo(buf, 4);
	cd_key_write_be((uint8 *) buf->data + buf->len, v, 4);
	buf->len += 4;
}

/*
 * Append the key of the array value to buf: each element in storage order
 * (NULL after every value, as array_cmp orders them), a 0x00 (which sorts
 * before any element: an array whose elements start another's sorts
 * first), the number of dimensions, the dimensions (but for one dimension:
 * the number of elements already tells it) and the lower bounds (int32,
 * sign bit flipped), all big-endian: array_cmp's order.
 */
static void
array_encode(CDRecordLayout *l, Datum value, StringInfo buf)
{
	AnyArrayType *arr = DatumGetAnyArrayP(value);
	int			ndims = AARR_NDIM(arr);
	const int  *dims = AARR_DIMS(arr);
	const int  *lbs = AARR_LBOUND(arr);
	int			nitems = ArrayGetNItems(ndims, dims);
	array_iter	iter;
	int			i;

	if (unlikely(AARR_ELEMTYPE(arr) != l->elemtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot aggregate arrays of different element types in one group: %s and %s",
						format_type_be(l->elemtype),
						format_type_be(AARR_ELEMTYPE(arr)))));
	array_iter_setup(&iter, arr);
	for (i = 0; i < nitems; i++)
	{
		bool		isnull;
		Datum		v = array_iter_next(&iter, &isnull, i, l->elmlen,
										l->elmbyval, l->elmalign);

		field_encode(&l->fields[0], v, isnull, buf, &l->tmp);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	appendStringInfoCharMacro(buf, '\0');
	appendStringInfoCharMacro(buf, (char) ndims);
	if (ndims > 1)
		for (i = 0; i < ndims; i++)
			put_u32(buf, (uint32) dims[i]);
	for (i = 0; i < ndims; i++)
		put_u32(buf, (uint32) lbs[i] ^ (uint32) 0x80000000);
}

static void
nested_encode(CDRecordLayout *l, Datum value, StringInfo buf)
{
	check_stack_depth();
	if (l->is_array)
		array_encode(l, value, buf);
	else
		record_encode(l, value, buf);
}

/*
 * Decode the key of field f at key[*pos .. len-1] into *v (in
 * CurrentMemoryContext), advancing *pos past it (*isnull: a NULL field);
 * false if the bytes are not a key some value of f gives (what is left to
 * check: that encoding the value gives the same bytes).
 */
static bool
field_decode(const RecordField *f, const uint8 *key, Size len, Size *pos,
			 Datum *v, bool *isnull)
{
	Size		p = *pos;
	const uint8 *z;
	Size		n;

	*isnull = false;
	if (p >= len)
		return false;
	if (key[p] == RK_NULL)
	{
		*isnull = true;
		*pos = p + 1;
		return true;
	}
	if (key[p++] != RK_VALUE)
		return false;
	switch (f->kind)
	{
		case RF_FIXED:
			if (len - p < f->kt.width)
				return false;
			*v = cd_key_decode(&f->kt, cd_key_read_be(key + p, f->kt.width));
			p += f->kt.width;
			break;
		case RF_RAW:
			if (len - p < f->rawlen ||
				!cd_varkey_is_valid(&f->kt, (const char *) key + p, f->rawlen))
				return false;
			*v = cd_varkey_output_datum(&f->kt, (const char *) key + p,
										f->rawlen);
			p += f->rawlen;
			break;
		case RF_TEXT:
			z = memchr(key + p, 0, len - p);
			if (z == NULL)
				return false;
			n = z - (key + p);
			if (!cd_varkey_is_valid(&f->kt, (const char *) key + p, n))
				return false;
			*v = cd_varkey_output_datum(&f->kt, (const char *) key + p, n);
			p += n + 1;
			break;
		case RF_ESCAPED:
			{
				StringInfoData raw;

				initStringInfo(&raw);
				for (;;)
				{
					if (p >= len)
						return false;
					if (key[p] != 0)
					{
						appendStringInfoCharMacro(&raw, (char) key[p]);
						p++;
						continue;
					}
					if (p + 1 >= len)
						return false;
					if (key[p + 1] == 0x01)
					{
						p += 2;
						break;
					}
					if (key[p + 1] != 0xFF)
						return false;
					appendStringInfoCharMacro(&raw, '\0');
					p += 2;
				}
				if (!cd_varkey_is_valid(&f->kt, raw.data, raw.len))
					return false;
				*v = cd_varkey_output_datum(&f->kt, raw.data, raw.len);
				pfree(raw.data);
			}
			break;
		case RF_NESTED:
			if (!nested_decode((CDRecordLayout *) f->kt.record, key, len,
							   &p, v))
				return false;
			break;
	}
	if (f->pad_typmod >= 0)
		*v = field_pad(f, *v);
	*pos = p;
	return true;
}

/* the same for a record: a record value */
static bool
record_decode(CDRecordLayout *l, const uint8 *key, Size len, Size *pos,
			  Datum *value)
{
	int			natts = l->tupdesc->natts;
	Datum	   *values = palloc(sizeof(Datum) * Max(natts, 1));
	bool	   *isnull = palloc(sizeof(bool) * Max(natts, 1));
	HeapTuple	tuple;
	Size		p = *pos;
	int			i;

	for (i = 0; i < natts; i++)
		isnull[i] = true;
	for (i = 0; i < l->nfields; i++)
	{
		RecordField *f = &l->fields[i];

		if (!field_decode(f, key, len, &p, &values[f->attno],
						  &isnull[f->attno]))
			return false;
	}
	/* a datum of its own (callers pfree it), not inside the HeapTuple */
	tuple = heap_form_tuple(l->tupdesc, values, isnull);
	*value = heap_copy_tuple_as_datum(tuple, l->tupdesc);
	heap_freetuple(tuple);
	/* the fields' values (validation decodes every key of a state) */
	for (i = 0; i < l->nfields; i++)
	{
		RecordField *f = &l->fields[i];

		if (isnull[f->attno] || f->kt.typbyval)
			continue;
		pfree(DatumGetPointer(values[f->attno]));
	}
	pfree(values);
	pfree(isnull);
	*pos = p;
	return true;
}

/* the same for an array: an array value */
static bool
array_decode(CDRecordLayout *l, const uint8 *key, Size len, Size *pos,
			 Datum *value)
{
	const RecordField *f = &l->fields[0];
	int			cap = 16;
	int			n = 0;
	Datum	   *values = palloc(sizeof(Datum) * cap);
	bool	   *nulls = palloc(sizeof(bool) * cap);
	int			ndims;
	int			dims[MAXDIM];
	int			lbs[MAXDIM];
	int64		nitems = 1;
	Size		p = *pos;
	ArrayType  *arr;
	int			i;

	for (;;)
	{
		if (p >= len)
			return false;
		if (key[p] == 0)
			break;
		if (n == cap)
		{
			if (cap >= (int) MaxArraySize / 2)
				return false;
			cap *= 2;
			values = repalloc(values, sizeof(Datum) * cap);
			nulls = repalloc(nulls, sizeof(bool) * cap);
		}
		if (!field_decode(f, key, len, &p, &values[n], &nulls[n]))
			return false;
		n++;
		if ((n & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	p++;
	if (p >= len)
		return false;
	ndims = key[p++];
	if (ndims > MAXDIM || (ndims == 0) != (n == 0))
		return false;
	if (ndims == 1)
		dims[0] = n;
	else if (ndims > 1)
	{
		if (len - p < (Size) ndims * 4)
			return false;
		for (i = 0; i < ndims; i++, p += 4)
		{
			dims[i] = (int) cd_key_read_be(key + p, 4);
			if (dims[i] <= 0)
				return false;
			nitems *= dims[i];
			if (nitems > n)
				return false;
		}
		if (nitems != n)
			return false;
	}
	if (len - p < (Size) ndims * 4)
		return false;
	for (i = 0; i < ndims; i++, p += 4)
	{
		lbs[i] = (int) ((uint32) cd_key_read_be(key + p, 4) ^ (uint32) 0x80000000);
		/* the upper bound must fit an int (ArrayCheckBounds) */
		if ((int64) lbs[i] + dims[i] - 1 > PG_INT32_MAX)
			return false;
	}
	if (n == 0)
		arr = construct_empty_array(l->elemtype);
	else
		arr = construct_md_array(values, nulls, ndims, dims, lbs, l->elemtype,
								 l->elmlen, l->elmbyval, l->elmalign);
	for (i = 0; i < n; i++)
		if (!nulls[i] && !l->elmbyval)
			pfree(DatumGetPointer(values[i]));
	pfree(values);
	pfree(nulls);
	*value = PointerGetDatum(arr);
	*pos = p;
	return true;
}

static bool
nested_decode(CDRecordLayout *l, const uint8 *key, Size len, Size *pos,
			  Datum *value)
{
	check_stack_depth();
	if (l->is_array)
		return array_decode(l, key, len, pos, value);
	return record_decode(l, key, len, pos, value);
}

static Size
record_key_size(const CDKeyType *kt, Datum value)
{
	CDRecordLayout *l = (CDRecordLayout *) kt->record;

	/* a row cd_record_row_datum encoded: its key is in enc */
	if (unlikely(DatumGetPointer(value) == (Pointer) l->row_key))
		return (Size) l->enc.len;
	resetStringInfo(&l->enc);
	nested_encode(l, value, &l->enc);
	l->enc_src = DatumGetPointer(value);
	return (Size) l->enc.len;
}

static void
record_key_write(const CDKeyType *kt, Datum value, char *dst)
{
	CDRecordLayout *l = (CDRecordLayout *) kt->record;

	/* the key record_key_size encoded last, unless that was another value */
	if (l->enc_src != DatumGetPointer(value))
		(void) record_key_size(kt, value);
	memcpy(dst, l->enc.data, l->enc.len);
}

static bool
record_key_decode(const CDKeyType *kt, const char *key, Size len,
				  Datum *value)
{
	Size		pos = 0;

	if (!nested_decode((CDRecordLayout *) kt->record, (const uint8 *) key,
					   len, &pos, value))
		return false;
	return pos == len;
}

static const CDByteCodec record_codec = {
	RECORDOID, record_key_size, record_key_write, record_key_decode
};

static const CDByteCodec array_codec = {
	ANYARRAYOID, record_key_size, record_key_write, record_key_decode
};

/*
 * Fill kt for arrays of type typid (basetypid: without domains) under
 * collation (that of their elements) with array keys; false (kt undefined)
 * if the elements cannot take a key.
 */
static bool
init_array_keytype(CDKeyType *kt, Oid typid, Oid basetypid, Oid collation,
				   MemoryContext mcxt)
{
	CDRecordLayout *l;
	TypeCacheEntry *tce;
	Oid			elemtype = get_element_type(basetypid);

	tce = lookup_type_cache(basetypid, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR);
	if (!OidIsValid(tce->eq_opr) || !OidIsValid(tce->lt_opr))
		return false;
	if (type_is_collatable(elemtype) && !OidIsValid(collation))
		return false;

	memset(kt, 0, sizeof(*kt));
	l = MemoryContextAllocZero(mcxt, sizeof(CDRecordLayout));
	l->is_array = true;
	l->typid = basetypid;
	l->typmod = -1;
	l->elemtype = elemtype;
	get_typlenbyvalalign(elemtype, &l->elmlen, &l->elmbyval, &l->elmalign);
	l->fields = MemoryContextAllocZero(mcxt, sizeof(RecordField));
	l->nfields = 1;
	{
		MemoryContext old = MemoryContextSwitchTo(mcxt);

		initStringInfo(&l->enc);
		initStringInfo(&l->tmp);
		MemoryContextSwitchTo(old);
	}
	if (!field_init(&l->fields[0], elemtype, -1,
					type_is_collatable(elemtype) ? collation : InvalidOid,
					mcxt, &l->sort_on_output))
		return false;

	kt->typid = typid;
	kt->basetypid = basetypid;
	kt->typmod = -1;
	kt->collation = type_is_collatable(basetypid) ? collation : InvalidOid;
	get_typlenbyvalalign(basetypid, &kt->typlen, &kt->typbyval, &kt->typalign);
	kt->encoding = CD_KEY_BYTES;
	kt->width = 0;
	kt->codec = &array_codec;
	kt->record = l;
	kt->sort_on_output = l->sort_on_output;
	if (kt->sort_on_output)
	{
		kt->ssup.ssup_cxt = mcxt;
		kt->ssup.ssup_collation = kt->collation;
		kt->ssup.ssup_nulls_first = false;
		PrepareSortSupportFromOrderingOp(tce->lt_opr, &kt->ssup);
	}
	return true;
}

/*
 * Fill kt for records of type typid (basetypid: without domains; typmod:
 * RECORDOID's canonical one) with record keys; false (kt undefined) if a
 * field cannot take a key.
 */
static bool
init_record_keytype(CDKeyType *kt, Oid typid, Oid basetypid, int32 typmod,
					MemoryContext mcxt)
{
	CDRecordLayout *l;
	TupleDesc	tupdesc;
	TypeCacheEntry *tce;
	bool		ok;

	/*
	 * As cd_keytype_init: a composite type compares if its fields do, by
	 * record_cmp (a record key is its order).
	 */
	tce = lookup_type_cache(basetypid, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR |
							TYPECACHE_CMP_PROC);
	if (!OidIsValid(tce->eq_opr) || !OidIsValid(tce->lt_opr) ||
		tce->cmp_proc != F_BTRECORDCMP)
		return false;

	memset(kt, 0, sizeof(*kt));
	l = MemoryContextAllocZero(mcxt, sizeof(CDRecordLayout));
	tupdesc = lookup_rowtype_tupdesc(basetypid, typmod);
	PG_TRY();
	{
		ok = init_layout(l, tupdesc, mcxt);
	}
	PG_FINALLY();
	{
		ReleaseTupleDesc(tupdesc);
	}
	PG_END_TRY();
	if (!ok)
		return false;
	l->seen_typid = InvalidOid;
	l->row_key = MemoryContextAllocZero(mcxt, VARHDRSZ);
	SET_VARSIZE(l->row_key, VARHDRSZ);

	kt->typid = typid;
	kt->basetypid = basetypid;
	kt->typmod = basetypid == RECORDOID ? typmod : -1;
	kt->collation = InvalidOid;
	get_typlenbyvalalign(basetypid, &kt->typlen, &kt->typbyval, &kt->typalign);
	kt->encoding = CD_KEY_BYTES;
	kt->width = 0;
	kt->codec = &record_codec;
	kt->record = l;
	kt->sort_on_output = l->sort_on_output;
	if (kt->sort_on_output)
	{
		kt->ssup.ssup_cxt = mcxt;
		kt->ssup.ssup_collation = InvalidOid;
		kt->ssup.ssup_nulls_first = false;
		PrepareSortSupportFromOrderingOp(tce->lt_opr, &kt->ssup);
	}
	return true;
}

void
cd_keytype_init_typmod(CDKeyType *kt, Oid typid, int32 typmod,
					   Oid collation, MemoryContext mcxt)
{
	Oid			basetypid = getBaseType(typid);

	if (basetypid == RECORDOID ? typmod >= 0 :
		get_typtype(basetypid) == TYPTYPE_COMPOSITE)
	{
		if (init_record_keytype(kt, typid, basetypid, typmod, mcxt))
			return;
	}
	else if (is_array_type(basetypid))
	{
		if (init_array_keytype(kt, typid, basetypid, collation, mcxt))
			return;
	}
	cd_keytype_init(kt, typid, collation, mcxt);
}

/*
 * The canonical typmod of records with the columns of d (-1 if they cannot
 * take record keys).
 */
static int32
canonical_typmod(TupleDesc d)
{
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext,
											  "count_distinct record type",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	TupleDesc	c = CreateTemplateTupleDesc(d->natts);
	CDRecordLayout l;
	int32		typmod = -1;
	int			i;

	for (i = 0; i < d->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(d, i);
		char		name[16];

		if (a->attisdropped)
			break;
		snprintf(name, sizeof(name), "f%d", i + 1);
		TupleDescInitEntry(c, (AttrNumber) (i + 1), name, a->atttypid, -1, 0);
		TupleDescInitEntryCollation(c, (AttrNumber) (i + 1), a->attcollation);
	}
	memset(&l, 0, sizeof(l));
	if (i == d->natts && init_layout(&l, c, tmp))
		typmod = BlessTupleDesc(c)->tdtypmod;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return typmod;
}

int32
cd_record_value_typmod(Datum value)
{
	/* record typmods are never reused in a backend */
	static int32 last_typmod = -1;
	static int32 last_canonical = -1;
	HeapTupleHeader th = DatumGetHeapTupleHeader(value);
	int32		typmod = HeapTupleHeaderGetTypMod(th);
	TupleDesc	d;

	if (HeapTupleHeaderGetTypeId(th) != RECORDOID || typmod < 0)
		return -1;
	if (typmod == last_typmod)
		return last_canonical;
	d = lookup_rowtype_tupdesc(RECORDOID, typmod);
	PG_TRY();
	{
		last_canonical = canonical_typmod(d);
	}
	PG_FINALLY();
	{
		ReleaseTupleDesc(d);
	}
	PG_END_TRY();
	last_typmod = typmod;
	return last_canonical;
}

void
cd_record_send_fields(StringInfo buf, int32 typmod)
{
	TupleDesc	d = lookup_rowtype_tupdesc(RECORDOID, typmod);
	int			i;

	pq_sendint16(buf, (uint16) d->natts);
	for (i = 0; i < d->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(d, i);

		cd_send_type_ref(buf, a->atttypid);
		cd_send_collation_ref(buf, a->attcollation);
	}
	ReleaseTupleDesc(d);
}

int32
cd_record_recv_fields(StringInfo buf)
{
	int			natts = (uint16) pq_getmsgint(buf, 2);
	TupleDesc	d;
	int32		typmod;
	int			i;

	if (natts > MaxTupleAttributeNumber)
		cd_invalid_state("A record has too many columns.");
	d = CreateTemplateTupleDesc(natts);
	for (i = 0; i < natts; i++)
	{
		Oid			typid = cd_recv_type_ref(buf);
		Oid			collation = cd_recv_collation_ref(buf, CD_WHAT_STATE);

		/* a collation only where the type takes one (as writers write) */
		if (OidIsValid(collation) != type_is_collatable(typid) ||
			getBaseType(typid) == RECORDOID)
			cd_invalid_state("A record column's type or collation is not one a record key has.");
		TupleDescInitEntry(d, (AttrNumber) (i + 1), NULL, typid, -1, 0);
		TupleDescInitEntryCollation(d, (AttrNumber) (i + 1), collation);
	}
	typmod = canonical_typmod(d);
	if (typmod < 0)
		cd_invalid_state("A record's column types cannot have record keys.");
	FreeTupleDesc(d);
	return typmod;
}

bool
cd_record_takes_rows(const CDKeyType *kt, int32 typmod)
{
	const CDRecordLayout *l = kt->record;

	return kt->basetypid == RECORDOID && kt->typid == RECORDOID &&
		kt->encoding == CD_KEY_BYTES && kt->codec == &record_codec &&
		l != NULL && !l->is_array && typmod >= 0 && kt->typmod == typmod &&
		l->typmod == typmod && l->row_key != NULL;
}

Datum
cd_record_row_datum(const CDKeyType *kt, const Datum *values,
					const bool *isnull)
{
	CDRecordLayout *l = (CDRecordLayout *) kt->record;
	int			i;

	Assert(cd_record_takes_rows(kt, kt->typmod));
	resetStringInfo(&l->enc);
	for (i = 0; i < l->nfields; i++)
	{
		RecordField *f = &l->fields[i];

		field_encode(f, values[f->attno], isnull[f->attno], &l->enc, &l->tmp);
	}
	l->enc_src = l->row_key;
	return PointerGetDatum(l->row_key);
}

int32
cd_record_rowtype_typmod(TupleDesc d)
{
	return canonical_typmod(d);
}
