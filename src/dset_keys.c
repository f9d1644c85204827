/*-------------------------------------------------------------------------
 *
 * dset_keys.c
 *	  Stored sets (dset.h): the adapter to the rest of the extension.  The
 *	  one file that builds sorted, distinct keys with the count_distinct
 *	  set (set.h, through its interface: readers of sorted keys), turns keys
 *	  into values and back (key.h) and stored and decodes them (serialkeys.h,
 *	  from readers and into writers of keystream.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "compat.h"
#include "dset.h"
#include "errors.h"
#include "key_record.h"
#include "serialkeys.h"
#include "moving.h"
#include "registry.h"
#include "set.h"
#include "value_io.h"

typedef struct KeyTypeCacheEntry
{
	struct KeyTypeCacheEntry *next;
	Oid			typid;
	int32		typmod;
	CDKeyType	kt;
} KeyTypeCacheEntry;

StaticAssertDecl(DSET_BLOCK == CD_BLOCK_KEYS,
				 "the stored format's blocks are the serial form's");

void
dsk_check_storable(const CDKeyType *kt)
{
	Oid			collation;

	/*
	 * A domain's own collation, whatever the collation of the call: values
	 * of the domain are equal under it ('a' and 'A' under a case-insensitive
	 * one), so bytes are no canonical keys of them.
	 */
	if (kt->typid != kt->basetypid &&
		OidIsValid(collation = get_typcollation(kt->typid)) &&
		!get_collation_isdeterministic(collation))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("distinct_set cannot hold values of type %s",
						format_type_be(kt->typid)),
				 errdetail("Its collation %s is nondeterministic: values can be equal without having the same representation, so a set of them has no canonical form.",
						   get_collation_name(collation)),
				 errhint("count_distinct and array_agg_distinct accept this type.")));
	/*
	 * An anonymous record without a canonical row type (the column types
	 * are not known where it is asked for, or they cannot have record
	 * keys) cannot be stored.
	 */
	if (kt->basetypid == RECORDOID && kt->record == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("distinct_set cannot hold values of type %s",
						format_type_be(kt->typid)),
				 errdetail("The column types of the records are not known here, or some of them have no canonical form."),
				 errhint("Aggregate the records with distinct_set_agg, or name their column types in text input: record(integer, text):{...}.")));
	if (kt->encoding == CD_KEY_COMPARATOR)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("distinct_set cannot hold values of type %s%s",
						format_type_be(kt->typid),
						OidIsValid(kt->collation) &&
						!get_collation_isdeterministic(kt->collation) ?
						" under a nondeterministic collation" : ""),
				 errdetail("Values of this type can be equal without having the same representation, so a set of them has no canonical form."),
				 errhint("count_distinct and array_agg_distinct accept this type.")));
}

/* stored sets of a collatable type are kept in byte order: see dset.h */
static Oid
key_collation(Oid typid)
{
	return type_is_collatable(getBaseType(typid)) ? C_COLLATION_OID : InvalidOid;
}

const CDKeyType *
dsk_keytype(FunctionCallInfo fcinfo, Oid typid)
{
	return dsk_keytype_typmod(fcinfo, typid, -1);
}

const CDKeyType *
dsk_keytype_typmod(FunctionCallInfo fcinfo, Oid typid, int32 typmod)
{
	KeyTypeCacheEntry *e;
	const CDKeyType *kt;

	if (typid != RECORDOID)
		typmod = -1;
	if (cd_query_context(fcinfo) != NULL)
		kt = cd_registry_keytype_typmod(fcinfo, typid, typmod,
										key_collation(typid), false);
	else
	{
		/* a hit costs no catalog lookup (once per stored set read) */
		for (e = (KeyTypeCacheEntry *) fcinfo->flinfo->fn_extra; e != NULL; e = e->next)
		{
			if (e->typid == typid && e->typmod == typmod)
				return &e->kt;
		}
		e = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(KeyTypeCacheEntry));
		cd_keytype_init_typmod(&e->kt, typid, typmod, key_collation(typid),
							   fcinfo->flinfo->fn_mcxt);
		dsk_check_storable(&e->kt);
		e->typid = typid;
		e->typmod = typmod;
		e->next = (KeyTypeCacheEntry *) fcinfo->flinfo->fn_extra;
		fcinfo->flinfo->fn_extra = e;
		return &e->kt;
	}
	dsk_check_storable(kt);
	return kt;
}

void
dsk_alloc(DSKeys *k, const CDKeyType *kt, uint32 n)
{
	k->kt = kt;
	k->n = 0;
	k->width = kt->width;
	k->fixed = NULL;
	k->ptr = NULL;
	k->len = NULL;
	k->owner = NULL;
	if (k->width > 0)
		k->owner = k->fixed = MemoryContextAllocHuge(CurrentMemoryContext,
													 (Size) Max(n, 1) * k->width);
	else
	{
		k->ptr = MemoryContextAllocHuge(CurrentMemoryContext,
										(Size) Max(n, 1) * sizeof(char *));
		k->len = MemoryContextAllocHuge(CurrentMemoryContext,
										(Size) Max(n, 1) * sizeof(uint32));
	}
}

void
dsk_free(DSKeys *k)
{
	if (k->owner != NULL)
		pfree(k->owner);
	if (k->ptr != NULL)
		pfree(k->ptr);
	if (k->len != NULL)
		pfree(k->len);
	k->owner = NULL;
	k->fixed = NULL;
	k->ptr = NULL;
	k->len = NULL;
	k->n = 0;
}

/*
 * The keys of a compacted set, through its reader: fixed-width keys copied
 * into k's array, byte keys as pointers into the set (which must outlive
 * k).
 */
static void
from_set(DSKeys *k, const CDSet *set)
{
	CDKeyReader r;
	uint32		n = set->nsorted;
	uint32		i = 0;

	Assert(set->nall == set->nsorted);
	dsk_alloc(k, set->kt, n);
	cd_set_ops(set)->reader(set, &r);
	if (k->width > 0)
	{
		uint64		batch[CD_KEY_BATCH];
		uint32		m;
		uint32		j;

		while ((m = r.next_fixed(&r, batch, CD_KEY_BATCH)) > 0)
		{
			for (j = 0; j < m; j++)
				dsk_put(k, i++, batch[j]);
		}
	}
	else
	{
		Size		len;
		const char *key;
		char	   *arena;
		Size		used = 0;

		/*
		 * a reader's key stays valid only while the next is read
		 * (keystream.h): copies, in one array of at most the set's bytes
		 */
		arena = MemoryContextAllocHuge(CurrentMemoryContext,
									   Max(cd_set_ops(set)->used_bytes(set), 1));
		k->owner = arena;
		while ((key = r.next_bytes(&r, &len)) != NULL)
		{
			Assert(i < n);
			Assert(used + len <= cd_set_ops(set)->used_bytes(set));
			memcpy(arena + used, key, len);
			k->ptr[i] = arena + used;
			k->len[i] = (uint32) len;
			used += len;
			i++;
		}
	}
	Assert(i == n);
	k->n = i;
}

void
dsk_from_state(DSKeys *k, void *state)
{
	CDSet	   *set = (CDSet *) state;

	cd_set_compact(set);
	from_set(k, set);
}

bool
dsk_from_moving(DSKeys *k, void *moving)
{
	CDMoving   *m = (CDMoving *) moving;
	Datum	   *values;
	uint32		n;

	if (m == NULL || m->kt == NULL || cdmov_count(m) == 0)
		return false;
	values = cdmov_output_datums(m, &n);
	dsk_from_datums(k, m->kt, values, n);
	return true;
}

void
dsk_from_datums(DSKeys *k, const CDKeyType *kt, Datum *values, uint32 n)
{
	CDAlloc		local;
	CDSet	   *set;
	uint32		i;

	cd_alloc_init(&local, CurrentMemoryContext, false);
	set = cd_set_create(kt, &local);
	for (i = 0; i < n; i++)
	{
		set = cd_set_add_value(set, values[i], &local);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	dsk_from_state(k, set);
}

Datum
dsk_datum(const DSKeys *k, uint32 i)
{
	if (k->width > 0)
		return cd_key_decode(k->kt, dsk_get(k, i));
	return cd_varkey_output_datum(k->kt, k->ptr[i], k->len[i]);
}

void
dsk_value_key(const CDKeyType *kt, Datum value, uint64 *fixed,
			  StringInfo bytes)
{
	Datum		detoasted;
	Size		len;

	if (kt->width > 0)
	{
		*fixed = cd_key_encode(kt, value);
		return;
	}
	len = cd_varkey_size(kt, value, &detoasted);
	if (len > MaxAllocSize - 1)
		cd_error_value_too_large(len);
	resetStringInfo(bytes);
	enlargeStringInfo(bytes, (int) len);
	cd_varkey_write(kt, detoasted, bytes->data);
	bytes->len = (int) len;
	bytes->data[len] = '\0';
}

bool
dsk_key_is_canonical(const CDKeyType *kt, uint64 key)
{
	if (dsk_keys_all_canonical(kt))
		return true;
	return cd_key_encode(kt, cd_key_decode(kt, key)) == key;
}

/*
 * The canonical keys of a float type form three ranges: from -infinity up
 * to the negative number nearest 0, from 0 up to +infinity, and the one
 * NaN.  The keys between them are those of -0 (whose key would sit just
 * below 0's) and of the other NaNs (below -infinity's key and above
 * +infinity's), which encoding never writes.  bool's keys are 0 and 1.
 */
void
dsk_canonical_bounds(const CDKeyType *kt, uint64 bounds[5])
{
	Assert(!dsk_keys_all_canonical(kt));
	if (kt->encoding == CD_KEY_BOOL)
	{
		bounds[0] = bounds[2] = 0;
		bounds[1] = bounds[3] = bounds[4] = 1;
	}
	else if (kt->width == 4)
	{
		bounds[0] = cd_key_encode(kt, Float4GetDatum(-get_float4_infinity()));
		bounds[1] = cd_key_encode(kt, Float4GetDatum(nextafterf(-0.0f, -1.0f)));
		bounds[2] = cd_key_encode(kt, Float4GetDatum(0.0f));
		bounds[3] = cd_key_encode(kt, Float4GetDatum(get_float4_infinity()));
		bounds[4] = cd_key_encode(kt, Float4GetDatum(get_float4_nan()));
	}
	else
	{
		bounds[0] = cd_key_encode(kt, Float8GetDatum(-get_float8_infinity()));
		bounds[1] = cd_key_encode(kt, Float8GetDatum(nextafter(-0.0, -1.0)));
		bounds[2] = cd_key_encode(kt, Float8GetDatum(0.0));
		bounds[3] = cd_key_encode(kt, Float8GetDatum(get_float8_infinity()));
		bounds[4] = cd_key_encode(kt, Float8GetDatum(get_float8_nan()));
	}
}

/* A reader of k's keys (keystream.h), for serialkeys. */
static uint32
read_fixed(CDKeyReader *r, uint64 *dst, uint32 max)
{
	const DSKeys *k = (const DSKeys *) r->source;
	uint32		n = (uint32) Min((Size) max, r->count - r->pos);
	uint32		i;

#define READ_KEYS(T) \
	do { \
		const T    *x = (const T *) k->fixed + r->pos; \
		\
		for (i = 0; i < n; i++) \
			dst[i] = x[i]; \
	} while (0)

	switch (k->width)
	{
		case 1:
			READ_KEYS(uint8);
			break;
		case 2:
			READ_KEYS(uint16);
			break;
		case 4:
			READ_KEYS(uint32);
			break;
		default:
			READ_KEYS(uint64);
			break;
	}
#undef READ_KEYS
	r->pos += n;
	return n;
}

static const char *
read_bytes(CDKeyReader *r, Size *len)
{
	const DSKeys *k = (const DSKeys *) r->source;
	uint32		i = (uint32) r->pos;

	if (r->pos >= r->count)
		return NULL;
	r->pos++;
	*len = k->len[i];
	return k->ptr[i];
}

void
dsk_reader(const DSKeys *k, CDKeyReader *r)
{
	cd_key_reader_init(r, k, k->n, read_fixed, read_bytes);
}

static Size
encoded_size(const DSKeys *k, CDKeyReader *r)
{
	Size		size;

	r->pos = 0;
	if (k->width > 0)
		size = cd_serial_fixed_size(r, k->width, DSET_MAX_SIZE);
	else
		size = cd_serial_bytes_size(r);
	r->pos = 0;
	return size;
}

Size
dsk_encoded_size(const DSKeys *k)
{
	CDKeyReader r;

	dsk_reader(k, &r);
	return encoded_size(k, &r);
}

void
dsk_encode(StringInfo buf, const DSKeys *k)
{
	CDKeyReader r;
	Size		size;

	dsk_reader(k, &r);
	size = encoded_size(k, &r);
	if (size > DSET_MAX_SIZE - (Size) buf->len)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large"),
				 errdetail("The set holds %u values, which take at least %zu bytes; a distinct_set is limited to 1 GB.",
						   k->n, size)));
	enlargeStringInfo(buf, (int) size);
	if (k->width > 0)
		cd_serial_write_fixed(buf, &r, k->width);
	else
		cd_serial_write_bytes(buf, &r);
}

static void
too_large_to_decode(uint32 n)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("distinct_set too large"),
			 errdetail("The set holds %u values, more than 1 GB of keys.", n)));
}

/*
 * The bytes the n front-coded keys at buf's cursor decode to (serialkeys.h:
 * each key as the LEB128 lengths of the prefix it shares with the previous
 * key and of the rest, then the rest), read without decoding; PG_UINT64_MAX
 * for malformed input (which decoding then refuses).
 */
static uint64
decoded_bytes_size(StringInfo buf, uint32 n)
{
	StringInfoData view = *buf;	/* reads ahead, leaving buf's cursor */
	uint64		total = 0;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		uint64		shared;
		uint64		rest;

		if (!cd_front_skim(&view, &shared, &rest))
			return PG_UINT64_MAX;
		total += shared + rest;
		if (total > DSET_MAX_DECODED)
			return total;
	}
	return total;
}

/* A writer into DSKeys (keystream.h), for serialkeys. */
typedef struct KeysWriter
{
	DSKeys	   *k;
	char	   *arena;			/* byte keys: sized for all of them */
	Size		used;
} KeysWriter;

static void
put_fixed(CDKeyWriter *w, const uint64 *keys, uint32 n)
{
	KeysWriter *kw = (KeysWriter *) w->target;
	uint32		i;

	for (i = 0; i < n; i++)
		dsk_put(kw->k, kw->k->n++, keys[i]);
}

static void
put_bytes(CDKeyWriter *w, const char *key, Size len)
{
	KeysWriter *kw = (KeysWriter *) w->target;
	DSKeys	   *k = kw->k;

	memcpy(kw->arena + kw->used, key, len);
	k->ptr[k->n] = kw->arena + kw->used;
	k->len[k->n] = (uint32) len;
	k->n++;
	kw->used += len;
}

void
dsk_decode(StringInfo buf, DSKeys *k, const CDKeyType *kt, uint32 n)
{
	Size		left = (Size) (buf->len - buf->cursor);
	KeysWriter	kw = {k, NULL, 0};
	CDKeyWriter w;

	if (kt->width > 0)
	{
		/* a block of up to CD_BLOCK_KEYS keys takes at least one full key */
		if ((Size) n > (left / kt->width) * CD_BLOCK_KEYS)
			dset_invalid("The length does not match the number of keys.");
		if ((Size) n * kt->width > DSET_MAX_DECODED)
			too_large_to_decode(n);
		dsk_alloc(k, kt, n);
		cd_key_writer_init(&w, &kw, put_fixed, NULL);
		cd_serial_read_fixed(buf, kt, n, &w, CD_WHAT_DSET);
	}
	else
	{
		uint64		bytes;

		/* each key takes at least its two lengths */
		if ((Size) n > left / 2)
			dset_invalid("The length does not match the number of keys.");
		/* front coding can expand: bound what decoding will allocate */
		bytes = decoded_bytes_size(buf, n);
		if (bytes == PG_UINT64_MAX)
			dset_invalid("A length is malformed.");
		if (bytes > DSET_MAX_DECODED)
			too_large_to_decode(n);
		dsk_alloc(k, kt, n);
		/*
		 * The keys' bytes: not k's to free (owner stays NULL), since runs
		 * merged from k point into them; they go with the memory context.
		 */
		kw.arena = MemoryContextAllocHuge(CurrentMemoryContext, Max(bytes, 1));
		cd_key_writer_init(&w, &kw, NULL, put_bytes);
		cd_serial_read_bytes(buf, kt, n, &w, CD_WHAT_DSET);
	}
	Assert(k->n == n);
}

/* the types any of whose keys is a valid value (besides the checks above) */
static bool
every_key_valid(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
		case CHAROID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case FLOAT4OID:
		case FLOAT8OID:
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
		case UUIDOID:
			return true;
		default:
			return false;
	}
}

bool
dsk_keys_all_valid(const CDKeyType *kt)
{
	return (kt->encoding == CD_KEY_INT || kt->encoding == CD_KEY_UINT) &&
		every_key_valid(kt->typid);
}

typedef struct ValidateArgs
{
	const DSKeys *k;
	CDValueIO  *vio;
} ValidateArgs;

static void
validate_values(void *arg)
{
	ValidateArgs *a = (ValidateArgs *) arg;
	const DSKeys *k = a->k;
	const CDKeyType *kt = k->kt;
	StringInfoData buf;
	StringInfoData key;
	MemoryContext valuecxt;
	MemoryContext old;
	uint32		i;

	initStringInfo(&buf);
	initStringInfo(&key);
	valuecxt = AllocSetContextCreate(CurrentMemoryContext,
									 "distinct_set value",
									 ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(valuecxt);
	for (i = 0; i < k->n; i++)
	{
		Datum		value = dsk_datum(k, i);
		uint64		fixed = 0;
		bool		same;

		resetStringInfo(&buf);
		cd_value_send(&buf, a->vio, kt->typid, value);
		value = cd_value_recv(&buf, a->vio, kt->typid, -1);
		dsk_value_key(kt, value, &fixed, &key);
		if (k->width > 0)
			same = fixed == dsk_get(k, i);
		else
			same = cd_varkey_compare_bytes(key.data, key.len, k->ptr[i], k->len[i]) == 0;
		if (!same)
			dset_invalid("A key is not one of a valid value.");
		MemoryContextReset(valuecxt);
		if ((i & 0xFFF) == 0xFFF)
			CHECK_FOR_INTERRUPTS();
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(valuecxt);
}

void
dsk_validate_values(const DSKeys *k)
{
	ValidateArgs a;

	if (every_key_valid(k->kt->typid))
		return;
	a.k = k;
	a.vio = cd_value_io_create(CurrentMemoryContext);
	validate_values(&a);
}
