/*-------------------------------------------------------------------------
 *
 * dset_format.c
 *	  Stored sets: the on-disk format (dset.h), encoding, decoding and
 *	  validation.
 *
 * Decoding trusts nothing: the version, the flags, the type reference (the
 * type must exist, be the type written, dset.h's "Element type identity",
 * and give exactly the stored encoding and width), the
 * count against the bytes left (before allocating), and the keys as
 * serialkeys.h checks them (canonical encoding, strictly increasing, valid
 * keys of the type); no byte may be left over.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "funcapi.h"

#include "dset.h"
#include "key_record.h"
#include "serialkeys.h"
#include "errors.h"
#include "value_io.h"

static int
format_encoding(const CDKeyType *kt)
{
	/* byte keys of records and arrays (key_record.h): not anonymous ones */
	if (kt->record != NULL)
		dsk_check_storable(kt);
	switch (kt->encoding)
	{
		case CD_KEY_BOOL:
			return DSET_ENC_BOOL;
		case CD_KEY_UINT:
			return DSET_ENC_UINT;
		case CD_KEY_INT:
			return DSET_ENC_INT;
		case CD_KEY_FLOAT:
			return DSET_ENC_FLOAT;
		case CD_KEY_BYTES:
			return DSET_ENC_BYTES;
		case CD_KEY_COMPARATOR:
			break;
	}
	dsk_check_storable(kt);
	pg_unreachable();
}

/*
 * A reader that passes on the batches of another and counts the maximal
 * runs of consecutive keys in them, so that encoding the blocks also tells
 * whether the runs layout could be shorter.
 */
typedef struct RunCounter
{
	CDKeyReader r;
	CDKeyReader *inner;
	uint32		nruns;
	uint64		last;			/* the last key passed on */
} RunCounter;

static uint32
count_runs_next(CDKeyReader *r, uint64 *dst, uint32 max)
{
	RunCounter *rc = (RunCounter *) r;
	uint32		m = rc->inner->next_fixed(rc->inner, dst, max);
	uint32		nruns = rc->nruns;
	uint32		i;

	if (m == 0)
		return 0;
	/* a run starts at each key but one past the previous key */
	nruns += r->pos == 0 || dst[0] != rc->last + 1;
	for (i = 1; i < m; i++)
		nruns += dst[i] != dst[i - 1] + 1;
	rc->nruns = nruns;
	rc->last = dst[m - 1];
	r->pos += m;
	return m;
}

/*
 * The runs layout of r's keys (read from the start), nruns runs: its size,
 * and its bytes appended to buf if not NULL.
 */
static Size
runs_layout(CDKeyReader *r, int width, uint32 nruns, StringInfo buf)
{
	uint64		batch[DSET_BLOCK];
	uint32		m;
	uint32		seen = 0;
	uint64		start = 0;
	uint64		len = 0;
	uint64		prevend = 0;
	Size		size = cd_runs_put_count(buf, nruns);

	r->pos = 0;
	while ((m = r->next_fixed(r, batch, DSET_BLOCK)) > 0)
	{
		uint32		i;

		for (i = 0; i < m; i++)
		{
			uint64		k = batch[i];

			if (len > 0 && k == start + len)
			{
				len++;
				continue;
			}
			if (len > 0)
			{
				size += cd_run_put(buf, width, seen++ == 0, start, len, prevend);
				prevend = start + len - 1;
			}
			start = k;
			len = 1;
		}
		CHECK_FOR_INTERRUPTS();
	}
	if (len > 0)
		size += cd_run_put(buf, width, seen++ == 0, start, len, prevend);
	Assert(seen == nruns);
	return size;
}

static void
decode_runs(StringInfo buf, DSKeys *k, const CDKeyType *kt, uint32 n)
{
	CDRunsReader rr;
	uint64		first;
	uint64		last;
	uint32		o = 0;

	cd_runs_reader_init(&rr, buf->data + buf->cursor, buf->len - buf->cursor,
						kt->width, n, CD_WHAT_DSET);
	dsk_alloc(k, kt, n);
	while (cd_runs_next(&rr, &first, &last))
	{
		uint64		key = first;

		for (;;)
		{
			if (!dsk_key_is_canonical(kt, key))
				dset_invalid("A key is not in canonical form.");
			dsk_put(k, o++, key);
			if (((key - first) & 0xFFFF) == 0xFFFF)
				CHECK_FOR_INTERRUPTS();
			if (key == last)
				break;
			key++;
		}
		CHECK_FOR_INTERRUPTS();
	}
	buf->cursor += (int) rr.pos;
	k->n = n;
}

/* ------------------------------------------------------------------------
 * The element type (dset.h, "Element type identity")
 * ------------------------------------------------------------------------
 */
StaticAssertDecl(DSET_REF_LOCAL >= CD_REF_FIRST_FREE &&
				 DSET_REF_ORPHAN >= CD_REF_FIRST_FREE,
				 "stored sets' reference kinds are not value_io.h's");

/* a stored set's type reference, as read */
typedef struct DSRef
{
	int			kind;			/* CD_REF_OID, CD_REF_NAME, DSET_REF_* */
	Oid			typid;			/* the type bound, or InvalidOid: none */
	Oid			written;		/* DSET_REF_LOCAL: the OID written */
	Oid			basetypid;		/* the base type, if known, else InvalidOid */
	char	   *name;			/* CD_REF_NAME: "schema.name" */
	bool		altered;		/* DSET_REF_LAYOUT: the type's layout differs */
	int32		typmod;			/* an anonymous record's canonical typmod */
	int			end;			/* offset of what follows the reference */
} DSRef;

/*
 * What reading and writing sets of a non-built-in type ask of the catalog,
 * cached for the backend (a few syscache lookups per set would cost as much
 * as reading a small set): whether the type exists, is a domain, its base
 * type, and whether its own collation is nondeterministic.  Any change to
 * pg_type empties the cache (as the type cache does).
 */
typedef struct LocalType
{
	Oid			typid;
	bool		domain;			/* exists and is a domain */
	Oid			basetypid;
	bool		nondeterministic;	/* its own collation */
} LocalType;

#define LOCAL_TYPES 16
static LocalType local_types[LOCAL_TYPES];
static int	nlocal_types = 0;
static int	next_local_type = 0;
static bool local_types_callback = false;

static void
local_types_reset(Datum arg, int cacheid, uint32 hashvalue)
{
	nlocal_types = 0;
	next_local_type = 0;
}

static const LocalType *
local_type(Oid typid)
{
	LocalType	t;
	Oid			collation;
	int			i;

	if (!local_types_callback)
	{
		CacheRegisterSyscacheCallback(TYPEOID, local_types_reset, (Datum) 0);
		local_types_callback = true;
	}
	for (i = 0; i < nlocal_types; i++)
	{
		if (local_types[i].typid == typid)
			return &local_types[i];
	}
	memset(&t, 0, sizeof(t));
	t.typid = typid;
	if (SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(typid)) &&
		get_typtype(typid) == TYPTYPE_DOMAIN)
	{
		t.domain = true;
		t.basetypid = getBaseType(typid);
		collation = get_typcollation(typid);
		t.nondeterministic = OidIsValid(collation) &&
			!get_collation_isdeterministic(collation);
	}
	i = next_local_type;
	next_local_type = (next_local_type + 1) % LOCAL_TYPES;
	if (nlocal_types < LOCAL_TYPES)
		nlocal_types++;
	local_types[i] = t;
	return &local_types[i];
}

/* ------------------------------------------------------------------------
 * Layouts: the element type of a set of records or arrays (dset.h,
 * DSET_REF_LAYOUT), which names the type and every field type, so that a
 * set is read only under the layout it was written with.
 * ------------------------------------------------------------------------
 */

/* the deepest nesting of layouts a reference may hold (untrusted input) */
#define LAYOUT_MAX_DEPTH	32

/*
 * Does a field (or an element type) of type typid take a nested record or
 * array key (key_record.c's field_init: a composite, or a true array)?
 * *shape: DSET_SHAPE_*.
 */
static bool
layout_shape(Oid typid, int *shape)
{
	Oid			base = getBaseType(typid);
	Oid			elem;

	if (base == RECORDOID)
		return false;
	if (get_typtype(base) == TYPTYPE_COMPOSITE)
	{
		*shape = DSET_SHAPE_RECORD;
		return true;
	}
	if (get_typlen(base) != -1)
		return false;
	elem = get_element_type(base);
	if (!OidIsValid(elem) || get_array_type(elem) != base)
		return false;
	*shape = DSET_SHAPE_ARRAY;
	return true;
}

static bool describe_field(StringInfo buf, Oid typid, bool portable,
						   int depth);

/*
 * Append the DSET_REF_LAYOUT reference of typid (of shape) to buf: on disk
 * (portable false) or in the binary form; false if a field's type cannot be
 * described (not a built-in type, a domain over one, or a layout).
 */
static bool
describe_layout(StringInfo buf, Oid typid, int32 typmod, int shape,
				bool portable, int depth)
{
	Oid			base = getBaseType(typid);

	if (depth > LAYOUT_MAX_DEPTH)
		return false;
	check_stack_depth();
	pq_sendint8(buf, DSET_REF_LAYOUT);
	pq_sendint8(buf, (uint8) shape);
	if (typid < FirstGenbkiObjectId || portable)
		cd_send_type_ref(buf, typid);
	else
	{
		pq_sendint8(buf, DSET_REF_TYPE);
		pq_sendint32(buf, typid);
	}
	if (shape == DSET_SHAPE_ARRAY)
		return describe_field(buf, get_element_type(base), portable, depth + 1);
	else
	{
		TupleDesc	d = lookup_rowtype_tupdesc(base, base == RECORDOID ? typmod : -1);
		int			natts = d->natts;
		Oid		   *types = palloc(sizeof(Oid) * Max(natts, 1));
		int			n = 0;
		bool		keyable = true;
		int			i;

		/*
		 * record keys skip dropped columns (key_record.h); a column under a
		 * nondeterministic collation has no key (ALTER TYPE ... ALTER
		 * ATTRIBUTE ... COLLATE can give a column one after sets of the
		 * type were stored: they are then of no type, never misread)
		 */
		for (i = 0; i < natts; i++)
		{
			Form_pg_attribute a = TupleDescAttr(d, i);

			if (a->attisdropped)
				continue;
			types[n++] = a->atttypid;
			if (OidIsValid(a->attcollation) &&
				!get_collation_isdeterministic(a->attcollation))
				keyable = false;
		}
		ReleaseTupleDesc(d);
		if (!keyable)
		{
			pfree(types);
			return false;
		}
		pq_sendint16(buf, (uint16) n);
		for (i = 0; i < n; i++)
		{
			if (!describe_field(buf, types[i], portable, depth + 1))
				return false;
		}
		pfree(types);
	}
	return true;
}

/*
 * Append the reference of a field type (or element type) typid: a layout,
 * a built-in type by OID, else (a domain over a built-in type) its OID and
 * base type's on disk, its name in the binary form.
 */
static bool
describe_field(StringInfo buf, Oid typid, bool portable, int depth)
{
	int			shape;
	Oid			base;

	if (layout_shape(typid, &shape))
		return describe_layout(buf, typid, -1, shape, portable, depth);
	if (typid < FirstGenbkiObjectId)
	{
		cd_send_type_ref(buf, typid);
		return true;
	}
	base = getBaseType(typid);
	if (base >= FirstGenbkiObjectId)
		return false;
	if (portable)
		cd_send_type_ref(buf, typid);
	else
	{
		pq_sendint8(buf, DSET_REF_LOCAL);
		pq_sendint32(buf, typid);
		pq_sendint32(buf, base);
	}
	return true;
}

/* skip a NUL-terminated string of a reference */
static void
skip_cstring(StringInfo buf)
{
	const char *s = buf->data + buf->cursor;
	const char *z = memchr(s, '\0', buf->len - buf->cursor);

	if (z == NULL)
		dset_invalid("A type reference is malformed.");
	buf->cursor += (int) (z - s) + 1;
}

static void
skip_bytes(StringInfo buf, int n)
{
	if (buf->len - buf->cursor < n)
		dset_invalid("A type reference is malformed.");
	buf->cursor += n;
}

/*
 * Skip a layout reference after its kind byte, checking only its shape (the
 * catalog is not read); *disk: it holds on-disk references (OIDs of types
 * that are not built-in), *named: it holds names.
 */
static void
skip_layout(StringInfo buf, int depth, bool *disk, bool *named)
{
	int			shape;
	int			kind;
	int			n;
	int			i;

	if (depth > LAYOUT_MAX_DEPTH)
		dset_invalid("A type reference is nested too deeply.");
	check_stack_depth();
	skip_bytes(buf, 2);
	shape = (uint8) buf->data[buf->cursor - 2];
	kind = (uint8) buf->data[buf->cursor - 1];
	if (kind == CD_REF_OID || kind == DSET_REF_TYPE)
		skip_bytes(buf, 4);
	else if (kind == CD_REF_NAME)
	{
		skip_cstring(buf);
		skip_cstring(buf);
	}
	else
		dset_invalid("A type reference is malformed.");
	*disk |= (kind == DSET_REF_TYPE);
	*named |= (kind == CD_REF_NAME);
	if (shape == DSET_SHAPE_ARRAY)
		n = 1;
	else if (shape == DSET_SHAPE_RECORD)
	{
		skip_bytes(buf, 2);
		n = ((uint8) buf->data[buf->cursor - 2] << 8) |
			(uint8) buf->data[buf->cursor - 1];
		if (n > MaxTupleAttributeNumber)
			dset_invalid("A type reference is malformed.");
	}
	else
		dset_invalid("A type reference is malformed.");
	for (i = 0; i < n; i++)
	{
		skip_bytes(buf, 1);
		kind = (uint8) buf->data[buf->cursor - 1];
		switch (kind)
		{
			case CD_REF_OID:
				skip_bytes(buf, 4);
				break;
			case CD_REF_NAME:
				skip_cstring(buf);
				skip_cstring(buf);
				*named = true;
				break;
			case DSET_REF_LOCAL:
				skip_bytes(buf, 8);
				*disk = true;
				break;
			case DSET_REF_LAYOUT:
				skip_layout(buf, depth + 1, disk, named);
				break;
			default:
				dset_invalid("A type reference is malformed.");
		}
	}
}

/*
 * On disk: a built-in type by its fixed OID (CD_REF_OID, as in version 1),
 * records and arrays by their layout (DSET_REF_LAYOUT), any other type (a
 * domain: the only other non-built-in types with canonical keys) by its OID
 * and its base type's (DSET_REF_LOCAL).
 */
static void
send_type_ref(StringInfo buf, const CDKeyType *kt)
{
	int			shape;

	if (kt->record != NULL)
	{
		/* an anonymous record: its canonical row type's fields */
		if (kt->basetypid == RECORDOID)
			shape = DSET_SHAPE_RECORD;
		if ((kt->basetypid != RECORDOID && !layout_shape(kt->typid, &shape)) ||
			!describe_layout(buf, kt->typid, kt->typmod, shape, false, 0))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("distinct_set cannot hold values of type %s",
							format_type_be(kt->typid)),
					 errdetail("Its fields are not all of built-in types, domains over them, composite types or arrays.")));
		return;
	}
	if (kt->typid < FirstGenbkiObjectId)
	{
		cd_send_type_ref(buf, kt->typid);
		return;
	}
	/* refuses, naming it, a domain under a nondeterministic collation */
	if (local_type(kt->typid)->nondeterministic)
		dsk_check_storable(kt);
	Assert(kt->basetypid < FirstGenbkiObjectId);
	pq_sendint8(buf, DSET_REF_LOCAL);
	pq_sendint32(buf, kt->typid);
	pq_sendint32(buf, kt->basetypid);
}

/* a base type written in a reference: a built-in type that exists */
static Oid
recv_base_type(StringInfo buf, bool zero_ok)
{
	Oid			base = cd_recv_ref_oid_raw(buf, CD_WHAT_DSET);

	if (base == InvalidOid && zero_ok)
		return InvalidOid;
	if (base == InvalidOid || base >= FirstGenbkiObjectId ||
		!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(base)) ||
		getBaseType(base) != base)
		dset_invalid("The base type of the element type is not a built-in type.");
	return base;
}

/*
 * Layouts found to bind, cached for the backend (describing a type costs a
 * few catalog lookups per field, more than reading a small set): the
 * on-disk reference's bytes and the type they bind to.  Any change to
 * pg_type, and any relcache invalidation (ALTER TYPE of a composite
 * changes its relation's attributes), empties the cache.  References with
 * names (the binary form) are not cached: they are resolved as the reader
 * may, and names change without either.
 */
typedef struct LayoutEntry
{
	char	   *ref;			/* in TopMemoryContext */
	int			len;
	Oid			typid;
	int32		typmod;			/* anonymous records: canonical typmod */
} LayoutEntry;

#define LAYOUT_CACHE 16
static LayoutEntry layout_cache[LAYOUT_CACHE];
static int	nlayouts = 0;
static int	next_layout = 0;
static bool layout_callbacks = false;

static void
layouts_reset(void)
{
	int			i;

	for (i = 0; i < nlayouts; i++)
		pfree(layout_cache[i].ref);
	nlayouts = 0;
	next_layout = 0;
}

static void
layouts_syscache_reset(Datum arg, int cacheid, uint32 hashvalue)
{
	layouts_reset();
}

static void
layouts_relcache_reset(Datum arg, Oid relid)
{
	layouts_reset();
}

static Oid
layout_cached(const char *ref, int len, int32 *typmod)
{
	int			i;

	for (i = 0; i < nlayouts; i++)
	{
		if (layout_cache[i].len == len &&
			memcmp(layout_cache[i].ref, ref, len) == 0)
		{
			*typmod = layout_cache[i].typmod;
			return layout_cache[i].typid;
		}
	}
	return InvalidOid;
}

static void
layout_remember(const char *ref, int len, Oid typid, int32 typmod)
{
	LayoutEntry *e;

	if (!layout_callbacks)
	{
		CacheRegisterSyscacheCallback(TYPEOID, layouts_syscache_reset, (Datum) 0);
		CacheRegisterRelcacheCallback(layouts_relcache_reset, (Datum) 0);
		layout_callbacks = true;
	}
	e = &layout_cache[next_layout];
	if (nlayouts == LAYOUT_CACHE)
		pfree(e->ref);
	else
		nlayouts++;
	next_layout = (next_layout + 1) % LAYOUT_CACHE;
	e->ref = MemoryContextAlloc(TopMemoryContext, len);
	memcpy(e->ref, ref, len);
	e->len = len;
	e->typid = typid;
	e->typmod = typmod;
}

/* the shape of an element type with a layout (anonymous records too) */
static bool
top_shape(Oid typid, int *shape)
{
	if (getBaseType(typid) == RECORDOID)
	{
		*shape = DSET_SHAPE_RECORD;
		return true;
	}
	return layout_shape(typid, shape);
}

/*
 * The type a field reference at buf's cursor names (InvalidOid: none, or
 * not the one written), resolved as flags say; the cursor moves past it.
 */
static Oid
resolve_field(StringInfo buf, int flags)
{
	int			kind = (uint8) buf->data[buf->cursor];
	char	   *name;
	Oid			typid;
	Oid			base;
	bool		disk = false;
	bool		named = false;
	StringInfoData self;

	switch (kind)
	{
		case CD_REF_OID:
		case CD_REF_NAME:
			return cd_recv_type_ref_ext(buf, flags | CD_REF_MISSING_OK, &kind,
										&name, CD_WHAT_DSET);
		case DSET_REF_LOCAL:
			buf->cursor++;
			typid = cd_recv_ref_oid_raw(buf, CD_WHAT_DSET);
			base = cd_recv_ref_oid_raw(buf, CD_WHAT_DSET);
			if (typid < FirstGenbkiObjectId ||
				!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(typid)) ||
				getBaseType(typid) != base)
				return InvalidOid;
			return typid;
		case DSET_REF_LAYOUT:
			/* its own type; the whole layout is compared by the caller */
			self = *buf;
			self.cursor += 2;
			buf->cursor++;
			skip_layout(buf, 1, &disk, &named);
			if ((uint8) self.data[self.cursor] == DSET_REF_TYPE)
			{
				self.cursor++;
				typid = cd_recv_ref_oid_raw(&self, CD_WHAT_DSET);
				if (typid < FirstGenbkiObjectId ||
					!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(typid)))
					return InvalidOid;
				return typid;
			}
			return cd_recv_type_ref_ext(&self, flags | CD_REF_MISSING_OK,
										&kind, &name, CD_WHAT_DSET);
		default:
			dset_invalid("A type reference is malformed.");
	}
}

/*
 * The canonical typmod of an anonymous record whose layout (after its kind,
 * shape and type bytes) is at buf's cursor: its fields' types (each field
 * under its type's collation: stored sets keep no collation), -1 if a field
 * names no type or the fields cannot have record keys.
 */
static int32
record_layout_typmod(StringInfo buf, int flags)
{
	int			n = pq_getmsgint(buf, 2);
	TupleDesc	d = CreateTemplateTupleDesc(n);
	int32		typmod;
	int			i;

	for (i = 0; i < n; i++)
	{
		Oid			typid = resolve_field(buf, flags);

		if (!OidIsValid(typid) || getBaseType(typid) == RECORDOID)
			return -1;
		TupleDescInitEntry(d, (AttrNumber) (i + 1), NULL, typid, -1, 0);
		TupleDescInitEntryCollation(d, (AttrNumber) (i + 1),
									get_typcollation(typid));
	}
	typmod = cd_record_rowtype_typmod(d);
	FreeTupleDesc(d);
	return typmod;
}

/*
 * A layout reference (after its kind byte): its type, named by OID on disk
 * (CD_REF_OID, DSET_REF_TYPE) or by name in the binary form (CD_REF_NAME,
 * resolved as flags say), binds only if describing that type now gives the
 * same bytes: the same fields, of the same types (domains: the same OIDs
 * and base types on disk, the same names in the binary form), nested
 * alike.  A type that was altered (ALTER TYPE ... ADD, DROP or ALTER
 * ATTRIBUTE, of it or of a nested type), or dropped and created again, is
 * no type for the set (ref->altered if it still exists): its keys are never
 * read under another layout.  Binary input never holds OIDs of types that
 * are not built-in.
 */
static void
read_layout_ref(StringInfo buf, int flags, DSRef *ref)
{
	int			start = buf->cursor - 1;
	bool		disk = false;
	bool		named = false;
	StringInfoData self;
	StringInfoData now;
	int			kind;
	char	   *name;
	Oid			typid;
	bool		cacheable;

	skip_layout(buf, 0, &disk, &named);
	ref->end = buf->cursor;
	if (disk && named)
		dset_invalid("A type reference is malformed.");
	if (disk && (flags & CD_REF_AS_USER))
		dset_invalid("A type reference is malformed.");
	cacheable = !named && !(flags & CD_REF_AS_USER);
	ref->typmod = -1;
	if (cacheable &&
		OidIsValid(typid = layout_cached(buf->data + start, ref->end - start,
										 &ref->typmod)))
	{
		ref->kind = DSET_REF_LAYOUT;
		ref->written = typid;
		ref->typid = typid;
		ref->basetypid = getBaseType(typid);
		buf->cursor = ref->end;
		return;
	}

	/* the type itself, after the kind and shape bytes */
	self = *buf;
	self.cursor = start + 2;
	if ((uint8) self.data[self.cursor] == DSET_REF_TYPE)
	{
		self.cursor++;
		typid = cd_recv_ref_oid_raw(&self, CD_WHAT_DSET);
		ref->written = typid;
		if (typid < FirstGenbkiObjectId ||
			!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(typid)))
			typid = InvalidOid;
	}
	else
	{
		typid = cd_recv_type_ref_ext(&self, flags | CD_REF_MISSING_OK, &kind,
									 &name, CD_WHAT_DSET);
		ref->name = name;
		ref->written = typid;
		/* an anonymous record: the row type of its fields' types */
		if (typid == RECORDOID &&
			(uint8) buf->data[start + 1] == DSET_SHAPE_RECORD &&
			(ref->typmod = record_layout_typmod(&self, flags)) < 0)
		{
			ref->altered = true;
			typid = InvalidOid;
		}
	}
	if (OidIsValid(typid))
	{
		int			shape;
		bool		same;

		initStringInfo(&now);
		same = top_shape(typid, &shape) &&
			(typid != RECORDOID || ref->typmod >= 0) &&
			describe_layout(&now, typid, ref->typmod, shape, named, 0) &&
			now.len == ref->end - start &&
			memcmp(now.data, buf->data + start, now.len) == 0;
		pfree(now.data);
		if (!same)
		{
			ref->altered = true;
			typid = InvalidOid;
		}
		else if (cacheable)
			layout_remember(buf->data + start, ref->end - start, typid,
							ref->typmod);
	}
	ref->typid = typid;
	ref->basetypid = OidIsValid(typid) ? getBaseType(typid) : InvalidOid;
	buf->cursor = ref->end;
}

/*
 * Read the type reference at buf's cursor.  Names (CD_REF_NAME) are
 * resolved as flags say (CD_REF_AS_USER: binary input), always missing_ok;
 * a local OID binds only to the type of that OID if it is still a domain
 * over the base type written (a dropped type, or another type that got its
 * OID, is no type: ref->typid is InvalidOid).  Binary input never holds
 * local OIDs: it names types.
 */
static void
read_type_ref(StringInfo buf, int flags, DSRef *ref)
{
	const LocalType *lt;

	memset(ref, 0, sizeof(*ref));
	ref->typid = cd_recv_type_ref_ext(buf, flags | CD_REF_MISSING_OK,
									  &ref->kind, &ref->name, CD_WHAT_DSET);
	switch (ref->kind)
	{
		case CD_REF_OID:
			ref->basetypid = ref->typid;
			break;
		case CD_REF_NAME:
			if (OidIsValid(ref->typid))
				ref->basetypid = getBaseType(ref->typid);
			break;
		case DSET_REF_LOCAL:
			if (flags & CD_REF_AS_USER)
				dset_invalid("A type reference is malformed.");
			ref->written = cd_recv_ref_oid_raw(buf, CD_WHAT_DSET);
			ref->basetypid = recv_base_type(buf, false);
			if (ref->written < FirstGenbkiObjectId)
				dset_invalid("A type reference is malformed.");
			lt = local_type(ref->written);
			if (lt->domain && lt->basetypid == ref->basetypid)
				ref->typid = ref->written;
			break;
		case DSET_REF_ORPHAN:
			ref->basetypid = recv_base_type(buf, true);
			break;
		case DSET_REF_LAYOUT:
			read_layout_ref(buf, flags, ref);
			break;
		default:
			dset_invalid("A type reference is malformed.");
	}
	ref->end = buf->cursor;
}

/* ERROR 42704: the set's element type is gone */
static void
type_gone(const DSRef *ref)
{
	const char *base = OidIsValid(ref->basetypid) ?
		format_type_be(ref->basetypid) : NULL;

	if (ref->kind == DSET_REF_LOCAL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("element type %u of a distinct_set does not exist",
						ref->written),
				 SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(ref->written)) ?
				 errdetail("The set was written for a domain over %s with OID %u, which was dropped; type %s has that OID now.",
						   base, ref->written, format_type_be(ref->written)) :
				 errdetail("The set was written for a domain over %s with OID %u, which was dropped.",
						   base, ref->written),
				 errhint("distinct_set_recover(set, NULL::type) binds the set's values to a type you name, checking each value.")));
	if (ref->kind == DSET_REF_LAYOUT && ref->altered)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("element type %s of a distinct_set was altered",
						format_type_be(ref->written)),
				 errdetail("The set was written for another layout of the type's fields (ALTER TYPE, or the type was dropped and created again); its values are not read under the new one."),
				 errhint("distinct_set_recover(set, NULL::type) binds the set's values to a type you name, checking each value.")));
	if (ref->kind == DSET_REF_LAYOUT && ref->name != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type \"%s\" of a distinct_set does not exist", ref->name),
				 errhint("distinct_set_recover(set, NULL::type) binds the set's values to a type you name, checking each value.")));
	if (ref->kind == DSET_REF_LAYOUT)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("element type %u of a distinct_set does not exist",
						ref->written),
				 errdetail("The set was written for a composite or array type with OID %u, which was dropped.",
						   ref->written),
				 errhint("distinct_set_recover(set, NULL::type) binds the set's values to a type you name, checking each value.")));
	if (ref->kind == CD_REF_NAME)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type \"%s\" of a distinct_set does not exist", ref->name),
				 errhint("distinct_set_recover(set, NULL::type) binds the set's values to a type you name, checking each value.")));
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("distinct_set has no element type"),
			 base ?
			 errdetail("Its element type, a domain over %s, was dropped before it was last written.", base) :
			 errdetail("Its element type was dropped before it was last written."),
			 errhint("distinct_set_recover(set, NULL::type) binds the set's values to a type you name, checking each value.")));
}

/*
 * A built-in type whose keys have the encoding and width given: the base
 * type if known, else one chosen by the encoding (byte keys: bytea, which
 * takes any bytes), for reading the keys of a set without a type.
 */
static Oid
standin_type(Oid basetypid, int encoding, int width)
{
	static const struct
	{
		int			encoding;
		int			width;
		Oid			typid;
	}			standins[] = {
		{DSET_ENC_BOOL, 1, BOOLOID},
		{DSET_ENC_UINT, 1, CHAROID},
		{DSET_ENC_UINT, 4, OIDOID},
		{DSET_ENC_INT, 2, INT2OID},
		{DSET_ENC_INT, 4, INT4OID},
		{DSET_ENC_INT, 8, INT8OID},
		{DSET_ENC_FLOAT, 4, FLOAT4OID},
		{DSET_ENC_FLOAT, 8, FLOAT8OID},
		{DSET_ENC_BYTES, 0, BYTEAOID},
	};
	int			i;

	if (OidIsValid(basetypid))
		return basetypid;
	for (i = 0; i < lengthof(standins); i++)
	{
		if (standins[i].encoding == encoding && standins[i].width == width)
			return standins[i].typid;
	}
	dset_invalid("The key encoding does not match the element type.");
}

/* a copy of ds with the type reference ending at ref_end replaced by ref */
static bytea *
with_type_ref(const bytea *ds, int ref_end, StringInfo ref)
{
	const char *p = VARDATA_ANY(ds);
	Size		len = VARSIZE_ANY_EXHDR(ds);
	Size		size = VARHDRSZ + DSET_HEADER_SIZE + ref->len + (len - ref_end);
	bytea	   *out;

	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large")));
	out = palloc(size);
	SET_VARSIZE(out, size);
	memcpy(VARDATA(out), p, DSET_HEADER_SIZE);
	memcpy(VARDATA(out) + DSET_HEADER_SIZE, ref->data, ref->len);
	memcpy(VARDATA(out) + DSET_HEADER_SIZE + ref->len, p + ref_end,
		   len - ref_end);
	return out;
}

/* an orphan reference: no type, the base type if known */
static void
orphan_ref(StringInfo ref, Oid basetypid)
{
	initStringInfo(ref);
	pq_sendint8(ref, DSET_REF_ORPHAN);
	pq_sendint32(ref, basetypid);
}

/* a read-only view of a stored set's payload */
static void
view_of(StringInfo buf, const bytea *ds)
{
	buf->data = (char *) VARDATA_ANY(ds);
	buf->len = (int) VARSIZE_ANY_EXHDR(ds);
	buf->maxlen = buf->len;
	buf->cursor = 0;
}

/* the header and type reference of a stored set of n keys */
static void
start_value(StringInfo buf, const CDKeyType *kt, int flags, uint32 n)
{
	initStringInfo(buf);
	appendStringInfoSpaces(buf, VARHDRSZ);
	pq_sendint8(buf, DSET_VERSION);
	pq_sendint8(buf, (uint8) format_encoding(kt));
	pq_sendint8(buf, kt->width);
	pq_sendint8(buf, flags);
	pq_sendint32(buf, n);
	send_type_ref(buf, kt);
	cd_send_collation_ref(buf, InvalidOid);
}

static void
too_large(uint32 n, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("distinct_set too large"),
			 errdetail("The set holds %u values, %s.", n, what)));
}

/*
 * The blocks are encoded first, counting runs on the way; the runs layout,
 * written exactly when it is shorter, is sized (and written) only when it
 * could be: each run takes at least two bytes, the first one the key in full
 * and a byte, and their count a byte.
 */
bytea *
dset_encode_fixed(const CDKeyType *kt, CDKeyReader *r, int64 nruns)
{
	StringInfoData buf;
	RunCounter	rc;
	int			start;
	Size		blocks;

	Assert(kt->width > 0);
	/* every stored set can be decoded (DSET_MAX_DECODED) */
	if ((Size) r->count * kt->width > DSET_MAX_DECODED)
		too_large(r->count, "more than 1 GB of keys");
	start_value(&buf, kt, 0, r->count);
	start = buf.len;

	r->pos = 0;
	if (nruns >= 0)
		cd_serial_write_fixed(&buf, r, kt->width);
	else
	{
		rc.inner = r;
		rc.nruns = 0;
		rc.last = 0;
		cd_key_reader_init(&rc.r, &rc, r->count, count_runs_next, NULL);
		cd_serial_write_fixed(&buf, &rc.r, kt->width);
		nruns = rc.nruns;
	}
	blocks = buf.len - start;

	if (nruns > 0 && kt->width + 2 * (Size) nruns < blocks &&
		runs_layout(r, kt->width, (uint32) nruns, NULL) < blocks)
	{
		buf.len = start;
		buf.data[VARHDRSZ + 3] = DSET_FLAG_RUNS;
		(void) runs_layout(r, kt->width, (uint32) nruns, &buf);
	}
	SET_VARSIZE(buf.data, buf.len);
	return (bytea *) buf.data;
}

bytea *
dset_encode(const CDKeyType *kt, const DSKeys *keys)
{
	StringInfoData buf;
	Size		decoded = 0;
	uint32		i;

	if (keys->width > 0)
	{
		CDKeyReader r;

		dsk_reader(keys, &r);
		return dset_encode_fixed(kt, &r, -1);
	}
	/* every stored set can be decoded (DSET_MAX_DECODED) */
	for (i = 0; i < keys->n && decoded <= DSET_MAX_DECODED; i++)
		decoded += keys->len[i];
	if (decoded > DSET_MAX_DECODED)
		too_large(keys->n, "more than 1 GB of keys");
	start_value(&buf, kt, 0, keys->n);
	dsk_encode(&buf, keys);
	SET_VARSIZE(buf.data, buf.len);
	return (bytea *) buf.data;
}

void
dset_invalid(const char *detail)
{
	cd_invalid(CD_WHAT_DSET, detail);
}

uint32
dset_count(const bytea *ds)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(ds);

	if (VARSIZE_ANY_EXHDR(ds) < DSET_HEADER_SIZE || p[0] != DSET_VERSION)
		dset_invalid("Unknown format version.");
	return ((uint32) p[4] << 24) | ((uint32) p[5] << 16) |
		((uint32) p[6] << 8) | p[7];
}

/*
 * The header and the type reference: h->kt, h->n, h->flags, h->start,
 * h->orphan, and *ref.  flags: read_type_ref's.  A set without a type (an
 * orphan, or one whose type is gone) is an ERROR unless orphan_ok, which
 * reads it with the stand-in type of its keys (h->orphan).
 */
static void
parse_header_ext(FunctionCallInfo fcinfo, const bytea *ds, DSHeader *h,
				 int flags, bool orphan_ok, DSRef *ref)
{
	StringInfoData buf;
	int			version;
	int			encoding;
	int			width;
	Oid			collation;

	view_of(&buf, ds);
	if (buf.len < DSET_HEADER_SIZE)
		dset_invalid("The value is shorter than its header.");

	version = pq_getmsgbyte(&buf);
	encoding = pq_getmsgbyte(&buf);
	width = pq_getmsgbyte(&buf);
	h->flags = pq_getmsgbyte(&buf);
	if (version != DSET_VERSION)
		dset_invalid("Unknown format version.");
	h->n = (uint32) pq_getmsgint(&buf, 4);
	if ((h->flags & ~DSET_FLAG_RUNS) != 0 ||
		((h->flags & DSET_FLAG_RUNS) && (width == 0 || h->n == 0)))
		dset_invalid("Unknown flags.");
	read_type_ref(&buf, flags, ref);
	collation = cd_recv_collation_ref(&buf, CD_WHAT_DSET);
	if (OidIsValid(collation))
		dset_invalid("This format version stores no collation.");

	h->orphan = !OidIsValid(ref->typid);
	if (h->orphan && !orphan_ok)
		type_gone(ref);
	h->kt = h->orphan ?
		dsk_keytype(fcinfo, standin_type(ref->basetypid, encoding, width)) :
		dsk_keytype_typmod(fcinfo, ref->typid,
						   ref->kind == DSET_REF_LAYOUT ? ref->typmod : -1);
	if (format_encoding(h->kt) != encoding || h->kt->width != width)
		dset_invalid("The key encoding does not match the element type.");
	if (width > 0 && (Size) h->n * width > DSET_MAX_DECODED)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large"),
				 errdetail("The set holds %u values, more than 1 GB of keys.", h->n)));
	h->start = buf.cursor;
}

static void
parse_header(FunctionCallInfo fcinfo, const bytea *ds, DSHeader *h)
{
	DSRef		ref;

	parse_header_ext(fcinfo, ds, h, 0, false, &ref);
}

/* the keys of a set whose header is h, as keys of kt */
static void
decode_keys(const bytea *ds, const DSHeader *h, const CDKeyType *kt,
			DSKeys *keys)
{
	StringInfoData buf;

	view_of(&buf, ds);
	buf.cursor = h->start;
	if (h->flags & DSET_FLAG_RUNS)
		decode_runs(&buf, keys, kt, h->n);
	else
		dsk_decode(&buf, keys, kt, h->n);
	if (buf.cursor != buf.len)
		dset_invalid("There are bytes left after the keys.");

	/*
	 * Not checked here: that the layout is the shorter one (runs exactly
	 * when shorter than blocks).  Every stored set comes from dset_encode
	 * or from binary input, which encodes what it decoded and refuses
	 * anything that does not come back the same.
	 */
}

static const CDKeyType *
decode(FunctionCallInfo fcinfo, const bytea *ds, DSKeys *keys)
{
	DSHeader	h;

	parse_header(fcinfo, ds, &h);
	decode_keys(ds, &h, h.kt, keys);
	return h.kt;
}

/* in the blocks layout: the first key of each block, then one block's gaps */
static bool
blocks_contain(const uint8 *p, const uint8 *end, int width, uint32 n,
			   uint64 key)
{
	const uint8 *gaps = NULL;
	uint64		first = 0;
	uint32		m = 0;
	int			b = 0;
	bool		found = false;
	uint32		start;
	uint64		k;
	Size		bitpos = 0;
	uint32		i;

	for (start = 0; start < n; start += DSET_BLOCK)
	{
		uint32		bm = Min(DSET_BLOCK, n - start);
		uint64		bfirst;
		int			bb;
		const uint8 *bgaps;

		if (end - p >= width && cd_key_read_be(p, width) > key)
			break;
		p = cd_block_read_head(p, end, width, bm, &bfirst, &bb, &bgaps,
							   CD_WHAT_DSET);
		first = bfirst;
		m = bm;
		b = bb;
		gaps = bgaps;
		found = true;
		if ((start & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (!found)
		return false;
	/* the last block whose first key is <= key: its gaps, b bits each */
	k = first;
	for (i = 1; i < m && k < key; i++, bitpos += b)
		k += cd_block_gap_at(gaps, bitpos, b) + 1;
	return k == key;
}

/* in the runs layout: the runs up to the one key would be in */
static bool
runs_contain(StringInfo buf, int width, uint32 n, uint64 key)
{
	CDRunsReader rr;
	uint64		first;
	uint64		last;

	cd_runs_reader_init(&rr, buf->data + buf->cursor, buf->len - buf->cursor,
						width, n, CD_WHAT_DSET);
	while (cd_runs_next(&rr, &first, &last))
	{
		if (key < first)
			return false;
		if (key <= last)
			return true;
	}
	return false;
}

static bool
contains_key(FunctionCallInfo fcinfo, const bytea *ds, DSHeader *h, Datum value)
{
	StringInfoData buf;
	StringInfoData bytes;
	uint64		key = 0;
	DSKeys		keys;
	DSKeys		one;
	const char *ptr;
	uint32		len;
	uint32		i;

	buf.data = (char *) VARDATA_ANY(ds);
	buf.len = (int) VARSIZE_ANY_EXHDR(ds);
	buf.maxlen = buf.len;
	buf.cursor = h->start;
	initStringInfo(&bytes);
	dsk_value_key(h->kt, value, &key, &bytes);
	if (h->kt->width > 0)
	{
		if (h->flags & DSET_FLAG_RUNS)
			return runs_contain(&buf, h->kt->width, h->n, key);
		return blocks_contain((const uint8 *) buf.data + buf.cursor,
							  (const uint8 *) buf.data + buf.len,
							  h->kt->width, h->n, key);
	}
	/* byte keys: decoded (front coding is read from the start anyway) */
	(void) decode(fcinfo, ds, &keys);
	ptr = bytes.data;
	len = (uint32) bytes.len;
	one.kt = h->kt;
	one.n = 1;
	one.width = 0;
	one.ptr = &ptr;
	one.len = &len;
	i = dsk_lower_bound(&keys, 0, &one, 0);
	return i < keys.n && dsk_cmp(&keys, i, &one, 0) == 0;
}

void
dset_key_range(const bytea *ds, const DSHeader *h, uint64 *first,
			   uint64 *last)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(ds) + h->start;
	const uint8 *end = (const uint8 *) VARDATA_ANY(ds) + VARSIZE_ANY_EXHDR(ds);
	int			width = h->kt->width;

	Assert(width > 0 && h->n > 0);
	if (h->flags & DSET_FLAG_RUNS)
	{
		CDRunsReader rr;
		uint64		f;
		uint64		l;
		bool		started = false;

		cd_runs_reader_init(&rr, (const char *) p, end - p, width, h->n,
							CD_WHAT_DSET);
		while (cd_runs_next(&rr, &f, &l))
		{
			if (!started)
				*first = f;
			started = true;
			*last = l;
		}
	}
	else
	{
		uint32		start;
		uint64		bfirst = 0;
		int			b = 0;
		const uint8 *gaps = NULL;
		uint32		m = 0;
		uint64		keys[DSET_BLOCK];

		for (start = 0; start < h->n; start += DSET_BLOCK)
		{
			m = Min(DSET_BLOCK, h->n - start);
			p = cd_block_read_head(p, end, width, m, &bfirst, &b, &gaps,
								   CD_WHAT_DSET);
			if (start == 0)
				*first = bfirst;
			if ((start & 0xFFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		cd_block_decode_gaps(gaps, end - gaps, b, m, bfirst, keys);
		*last = keys[m - 1];
	}
}

void
dset_foreach_key(const bytea *ds, const DSHeader *h, DSKeysFn fn, void *arg)
{
	uint64		keys[DSET_BLOCK];

	const uint8 *p = (const uint8 *) VARDATA_ANY(ds) + h->start;
	const uint8 *end = (const uint8 *) VARDATA_ANY(ds) + VARSIZE_ANY_EXHDR(ds);
	int			width = h->kt->width;

	Assert(width > 0);
	if (h->flags & DSET_FLAG_RUNS)
	{
		CDRunsReader rr;
		uint64		f;
		uint64		l;

		cd_runs_reader_init(&rr, (const char *) p, end - p, width, h->n,
							CD_WHAT_DSET);
		while (cd_runs_next(&rr, &f, &l))
		{
			uint64		k = f;
			bool		more = true;

			while (more)
			{
				uint32		m = 0;

				while (m < DSET_BLOCK && more)
				{
					keys[m++] = k;
					more = k++ != l;
				}
				fn(keys, m, arg);
				if (((k - f) & 0xFFFF) < DSET_BLOCK)
					CHECK_FOR_INTERRUPTS();
			}
			CHECK_FOR_INTERRUPTS();
		}
	}
	else
	{
		uint32		start;

		for (start = 0; start < h->n; start += DSET_BLOCK)
		{
			uint32		m = Min(DSET_BLOCK, h->n - start);
			uint64		bfirst;
			int			b;
			const uint8 *gaps;

			p = cd_block_read_head(p, end, width, m, &bfirst, &b, &gaps,
								   CD_WHAT_DSET);
			cd_block_decode_gaps(gaps, end - gaps, b, m, bfirst, keys);
			fn(keys, m, arg);
			if ((start & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
}

const CDKeyType *
dset_decode(FunctionCallInfo fcinfo, const bytea *ds, DSKeys *keys)
{
	return decode(fcinfo, ds, keys);
}

const CDKeyType *
dset_header(FunctionCallInfo fcinfo, const bytea *ds, DSHeader *h)
{
	parse_header(fcinfo, ds, h);
	return h->kt;
}

/* the binary form of a set read with ref: see dset_portable */
static bytea *
portable(const bytea *ds, const DSRef *ref, bool *orphan)
{
	StringInfoData r;

	*orphan = false;
	switch (ref->kind)
	{
		case CD_REF_OID:
			return (bytea *) ds;
		case CD_REF_NAME:
			if (OidIsValid(ref->typid))
				return (bytea *) ds;
			break;
		case DSET_REF_LOCAL:
			if (OidIsValid(ref->typid))
			{
				initStringInfo(&r);
				cd_send_type_ref(&r, ref->typid);
				return with_type_ref(ds, ref->end, &r);
			}
			break;
		case DSET_REF_LAYOUT:
			if (OidIsValid(ref->typid))
			{
				int			shape;

				initStringInfo(&r);
				if (top_shape(ref->typid, &shape) &&
					describe_layout(&r, ref->typid, ref->typmod, shape, true, 0))
					return with_type_ref(ds, ref->end, &r);
			}
			break;
		default:
			*orphan = true;
			return (bytea *) ds;
	}
	*orphan = true;
	orphan_ref(&r, ref->basetypid);
	return with_type_ref(ds, ref->end, &r);
}

bytea *
dset_portable(FunctionCallInfo fcinfo, const bytea *ds, bool *orphan)
{
	StringInfoData buf;
	DSRef		ref;
	bytea	   *result;
	bool		o;

	view_of(&buf, ds);
	if (buf.len < DSET_HEADER_SIZE || buf.data[0] != DSET_VERSION)
		dset_invalid("Unknown format version.");
	buf.cursor = DSET_HEADER_SIZE;
	read_type_ref(&buf, 0, &ref);
	result = portable(ds, &ref, &o);
	if (orphan != NULL)
		*orphan = o;
	return result;
}

const CDKeyType *
dset_decode_input(FunctionCallInfo fcinfo, const bytea *ds, DSKeys *keys,
				  bool *orphan, Oid *basetypid)
{
	DSHeader	h;
	DSRef		ref;

	parse_header_ext(fcinfo, ds, &h, CD_REF_AS_USER, true, &ref);
	decode_keys(ds, &h, h.kt, keys);
	*orphan = h.orphan;
	*basetypid = ref.basetypid;
	return h.kt;
}

Oid
dset_element_type(FunctionCallInfo fcinfo, const bytea *ds)
{
	StringInfoData buf;
	DSRef		ref;

	view_of(&buf, ds);
	if (buf.len < DSET_HEADER_SIZE || buf.data[0] != DSET_VERSION)
		dset_invalid("Unknown format version.");
	buf.cursor = DSET_HEADER_SIZE;
	read_type_ref(&buf, 0, &ref);
	return ref.typid;
}

bytea *
dset_orphan(const bytea *ds, Oid basetypid)
{
	StringInfoData buf;
	StringInfoData r;
	DSRef		ref;

	view_of(&buf, ds);
	buf.cursor = DSET_HEADER_SIZE;
	read_type_ref(&buf, 0, &ref);
	orphan_ref(&r, basetypid);
	return with_type_ref(ds, ref.end, &r);
}

/* ERROR 42804: a set's keys cannot be those of kt */
static void
cannot_rebind(const DSRef *ref, const CDKeyType *kt)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cannot bind a distinct_set to type %s", format_type_be(kt->typid)),
			 OidIsValid(ref->basetypid) ?
			 errdetail("The set holds values of type %s, the type's values are of type %s.",
					   format_type_be(ref->basetypid), format_type_be(kt->basetypid)) :
			 errdetail("The set's keys are not those of values of type %s.",
					   format_type_be(kt->typid))));
}

const CDKeyType *
dset_decode_as(FunctionCallInfo fcinfo, const bytea *ds, const CDKeyType *kt,
			   DSKeys *keys)
{
	DSHeader	h;
	DSRef		ref;

	parse_header_ext(fcinfo, ds, &h, 0, true, &ref);
	/* the same keys: of the same base type if known, else the same encoding */
	if (OidIsValid(ref.basetypid) ? ref.basetypid != kt->basetypid :
		(h.kt->encoding != kt->encoding || h.kt->width != kt->width))
		cannot_rebind(&ref, kt);
	decode_keys(ds, &h, kt, keys);
	return kt;
}

bool
dset_contains(FunctionCallInfo fcinfo, const bytea *ds, DSHeader *h,
			  Datum value)
{
	return contains_key(fcinfo, ds, h, value);
}

char *
dset_type_name(const CDKeyType *kt)
{
	TupleDesc	d;
	StringInfoData s;
	int			i;

	if (kt->typid != RECORDOID || kt->typmod < 0)
		return format_type_be(kt->typid);
	d = lookup_rowtype_tupdesc(RECORDOID, kt->typmod);
	initStringInfo(&s);
	appendStringInfoString(&s, "record(");
	for (i = 0; i < d->natts; i++)
	{
		if (i > 0)
			appendStringInfoString(&s, ", ");
		appendStringInfoString(&s, format_type_be(TupleDescAttr(d, i)->atttypid));
	}
	appendStringInfoChar(&s, ')');
	ReleaseTupleDesc(d);
	return s.data;
}

void
dset_check_same_type(const CDKeyType *a, const CDKeyType *b)
{
	/* anonymous records: of the same column types (canonical typmods) */
	if (a->typid == RECORDOID && b->typid == RECORDOID && a->typmod != b->typmod)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot combine distinct_sets of types %s and %s",
						dset_type_name(a), dset_type_name(b))));
	if (a->typid != b->typid)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot combine distinct_sets of types %s and %s",
						format_type_be(a->typid), format_type_be(b->typid))));
}

void
dset_check_element_type(const CDKeyType *kt, Oid typid)
{
	if (typid != kt->typid && getBaseType(typid) != kt->basetypid)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("distinct_set of type %s does not hold values of type %s",
						format_type_be(kt->typid), format_type_be(typid)),
				 errhint("Pass a value of the set's element type, e.g. NULL::%s.",
						 format_type_be(kt->typid))));
}

/* set the bits of keys (those in the bitmap; see dset_or_bits) */
typedef struct OrBits
{
	uint64	   *bits;
	uint64		lo;
	uint64		nbits;
} OrBits;

static void
or_keys(const uint64 *keys, uint32 n, void *arg)
{
	OrBits	   *ob = (OrBits *) arg;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		uint64		off = keys[i] - ob->lo;

		if (off < ob->nbits)
			ob->bits[off >> 6] |= UINT64CONST(1) << (off & 63);
	}
}

void
dset_or_bits(const bytea *ds, const DSHeader *h, uint64 *bits, uint64 lo,
			 uint64 nbits)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(ds) + h->start;
	const uint8 *end = (const uint8 *) VARDATA_ANY(ds) + VARSIZE_ANY_EXHDR(ds);
	int			width = h->kt->width;
	OrBits		ob = {bits, lo, nbits};
	uint64		keys[DSET_BLOCK];
	uint32		start;

	Assert(width > 0);
	if (h->flags & DSET_FLAG_RUNS)
	{
		dset_foreach_key(ds, h, or_keys, &ob);
		return;
	}
	for (start = 0; start < h->n; start += DSET_BLOCK)
	{
		uint32		m = Min(DSET_BLOCK, h->n - start);
		uint64		first;
		int			b;
		const uint8 *gaps;
		Size		nbytes;

		p = cd_block_read_head(p, end, width, m, &first, &b, &gaps,
							   CD_WHAT_DSET);
		nbytes = cd_block_gaps_size(m, b);

		/*
		 * The common block: its keys surely inside the bitmap (the last is at
		 * most first + (m - 1) * 2^b), each gap read with one 8-byte load as
		 * blockcodec.h's trusting decoder does: decode and set bits in one
		 * loop, without a check per key or a pass over the keys decoded.
		 */
		if (b > 0 && b <= 32 && first >= lo &&
			first - lo < nbits && (nbits - (first - lo)) >> b > m &&
			(Size) (end - gaps) >= nbytes + 8)
		{
			uint64		mask = (UINT64CONST(1) << b) - 1;
			uint64		off = first - lo;
			Size		bitpos = 0;
			uint32		i;

			bits[off >> 6] |= UINT64CONST(1) << (off & 63);
			for (i = 1; i < m; i++, bitpos += b)
			{
				off += ((cd_load64(gaps + (bitpos >> 3)) >> (bitpos & 7)) & mask) + 1;
				bits[off >> 6] |= UINT64CONST(1) << (off & 63);
			}
		}
		else
		{
			cd_block_decode_gaps(gaps, end - gaps, b, m, first, keys);
			or_keys(keys, m, &ob);
		}
		if ((start & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* ------------------------------------------------------------------------
 * Fixed-width keys as runs (dset.h): stored keys read as runs in place,
 * and runs encoded, without expanding runs into keys.
 * ------------------------------------------------------------------------
 */

void
dset_too_large(uint64 n, int width)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("distinct_set too large"),
			 n > PG_UINT32_MAX ?
			 errdetail("The set would hold " UINT64_FORMAT " values; a distinct_set holds at most %u.",
					   n, PG_UINT32_MAX) :
			 errdetail("The set would hold " UINT64_FORMAT " values, more than 1 GB of keys.", n),
			 errhint("Count such sets without storing them: cardinality() of the union is computed without building it.")));
	pg_unreachable();
}

void
dset_stored_keys(const bytea *ds, const DSHeader *h, DSStored *p)
{
	Assert(h->kt->width > 0);
	p->width = h->kt->width;
	p->runs = (h->flags & DSET_FLAG_RUNS) != 0;
	p->n = h->n;
	p->data = VARDATA_ANY(ds) + h->start;
	p->len = VARSIZE_ANY_EXHDR(ds) - h->start;
}

static void
stored_rewind(DSRunSource *s)
{
	DSStoredReader *r = (DSStoredReader *) s;

	r->pos = 0;
	r->left = r->p->n;
	r->started = false;
	r->prev = 0;
	r->m = r->i = 0;
	if (r->p->runs)
	{
		cd_runs_reader_init(&r->runs, r->p->data, r->p->len, r->p->width,
							r->p->n, CD_WHAT_DSET);
		r->pos = r->runs.pos;
	}
}

/* the next run of the runs layout */
static bool
stored_next_run(DSStoredReader *r, uint64 *first, uint64 *last)
{
	bool		more = cd_runs_next(&r->runs, first, last);

	r->pos = r->runs.pos;
	return more;
}

/* the next block of the blocks layout into r->keys; false at the end */
static bool
stored_fill(DSStoredReader *r)
{
	const uint8 *base = (const uint8 *) r->p->data;
	const uint8 *end = base + r->p->len;
	int			width = r->p->width;
	uint32		m;
	uint64		first;
	int			b;
	const uint8 *gaps;
	const uint8 *p;
	uint32		i;

	if (r->left == 0)
		return false;
	m = (uint32) Min((uint64) DSET_BLOCK, r->left);
	p = cd_block_read_head(base + r->pos, end, width, m, &first, &b, &gaps,
						   CD_WHAT_DSET);
	cd_block_decode_gaps(gaps, end - gaps, b, m, first, r->keys);
	/* strictly increasing, within the width (no wrap-around either) */
	if (r->started && r->keys[0] <= r->prev)
		dset_invalid("The keys are not strictly increasing.");
	for (i = 1; i < m; i++)
	{
		if (r->keys[i] <= r->keys[i - 1])
			dset_invalid("The keys are not strictly increasing.");
	}
	if (r->keys[m - 1] > cd_width_max_key(width))
		dset_invalid("A key is out of range.");
	r->pos = p - base;
	r->left -= m;
	r->prev = r->keys[m - 1];
	r->started = true;
	r->m = m;
	r->i = 0;
	if ((++r->calls & 0x3FF) == 0)
		CHECK_FOR_INTERRUPTS();
	return true;
}

static bool
stored_next(DSRunSource *s, uint64 *first, uint64 *last)
{
	DSStoredReader *r = (DSStoredReader *) s;
	uint64		l;

	if (r->p->runs)
		return stored_next_run(r, first, last);
	/* blocks: consecutive keys joined into one run */
	if (r->i >= r->m && !stored_fill(r))
		return false;
	*first = l = r->keys[r->i++];
	for (;;)
	{
		if (r->i >= r->m && !stored_fill(r))
			break;
		if (r->keys[r->i] - l != 1)
			break;
		l = r->keys[r->i++];
	}
	*last = l;
	return true;
}

void
dset_stored_reader(DSStoredReader *r, const DSStored *p)
{
	r->src.next = stored_next;
	r->src.rewind = stored_rewind;
	r->p = p;
	r->calls = 0;
	stored_rewind(&r->src);
}

/* a source's runs, adjacent ones joined: maximal runs */
typedef struct Joiner
{
	DSRunSource *src;
	bool		have;
	uint64		f;
	uint64		l;
	uint64		calls;
} Joiner;

static void
join_start(Joiner *j, DSRunSource *src)
{
	j->src = src;
	j->calls = 0;
	src->rewind(src);
	j->have = src->next(src, &j->f, &j->l);
}

static bool
join_next(Joiner *j, uint64 *first, uint64 *last)
{
	if (!j->have)
		return false;
	*first = j->f;
	*last = j->l;
	while ((j->have = j->src->next(j->src, &j->f, &j->l)) && j->f - *last == 1)
		*last = j->l;
	if ((++j->calls & 0xFFFF) == 0)
		CHECK_FOR_INTERRUPTS();
	return true;
}

uint64
dset_count_runs(DSRunSource *src)
{
	uint64		n = 0;
	uint64		f;
	uint64		l;
	uint64		calls = 0;

	src->rewind(src);
	while (src->next(src, &f, &l))
	{
		/* l - f + 1 is 0 for all 2^64 keys */
		if (l - f + 1 == 0 || n + (l - f + 1) < n)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many values to count")));
		n += l - f + 1;
		if ((++calls & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return n;
}

/*
 * The blocks layout's size, counted run by run: a block of 128 keys inside
 * one run takes the first key and a byte (no gaps), so whole blocks inside
 * a run are counted, not expanded, and each run costs at most the 127 keys
 * of the block it starts or ends in.
 */
typedef struct BlocksSize
{
	int			width;
	uint32		m;				/* keys of the block being filled */
	Size		size;
	uint64		block[DSET_BLOCK];
} BlocksSize;

static void
blocks_size_add(BlocksSize *bs, uint64 f, uint64 l)
{
	uint64		k = f;

	for (;;)
	{
		if (bs->m == 0 && l - k >= DSET_BLOCK - 1)
		{
			/* l - k + 1 keys left: whole blocks of them */
			uint64		left = l - k;
			uint64		full = left / DSET_BLOCK + (left % DSET_BLOCK == DSET_BLOCK - 1);

			/* at most 2^57 blocks of at most 9 bytes: no overflow */
			bs->size += (Size) full * (bs->width + 1);
			if (full * DSET_BLOCK - 1 == left)
				return;			/* the run ends with the last of them */
			k += full * DSET_BLOCK;
			continue;
		}
		bs->block[bs->m++] = k;
		if (bs->m == DSET_BLOCK)
		{
			bs->size += cd_block_size(bs->block, bs->m, bs->width);
			bs->m = 0;
		}
		if (k == l)
			return;
		k++;
	}
}

/*
 * A source's keys: their number, maximal runs and the size of each layout,
 * in one pass.
 */
typedef struct RunsStats
{
	uint64		n;
	uint64		nruns;
	Size		runs_size;
	Size		blocks_size;
} RunsStats;

static void
runs_stats(DSRunSource *src, int width, RunsStats *st)
{
	Joiner		j;
	uint64		f;
	uint64		l;
	uint64		prevend = 0;
	BlocksSize	bs;

	st->n = 0;
	st->nruns = 0;
	st->runs_size = 0;
	bs.width = width;
	bs.m = 0;
	bs.size = 0;
	join_start(&j, src);
	while (join_next(&j, &f, &l))
	{
		if (l - f + 1 == 0 || st->n + (l - f + 1) < st->n)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many values to count")));
		st->n += l - f + 1;
		st->runs_size += cd_run_put(NULL, width, st->nruns == 0, f, l - f + 1,
								 prevend);
		blocks_size_add(&bs, f, l);
		st->nruns++;
		prevend = l;
	}
	st->runs_size += cd_runs_put_count(NULL, st->nruns);
	if (bs.m > 0)
		bs.size += cd_block_size(bs.block, bs.m, width);
	st->blocks_size = bs.size;
}

/*
 * a reader of a source's keys one by one (keystream.h), for
 * cd_serial_write_fixed
 */
typedef struct RunKeys
{
	CDKeyReader r;
	Joiner		j;
	bool		have;
	uint64		k;				/* the next key ... */
	uint64		l;				/* ... and the last of its run */
} RunKeys;

static uint32
run_keys_next(CDKeyReader *r, uint64 *dst, uint32 max)
{
	RunKeys    *rk = (RunKeys *) r;
	uint32		o = 0;

	while (o < max && rk->have)
	{
		dst[o++] = rk->k;
		if (rk->k == rk->l)
		{
			uint64		f;

			rk->have = join_next(&rk->j, &f, &rk->l);
			rk->k = f;
		}
		else
			rk->k++;
	}
	r->pos += o;
	return o;
}

/* write the chosen layout of src's keys (stats: runs_stats's) to buf */
static void
write_layout(StringInfo buf, int width, DSRunSource *src, bool runs,
			 const RunsStats *st)
{
	Joiner		j;
	uint64		f;
	uint64		l;

	if (runs)
	{
		uint64		prevend = 0;
		uint64		seen = 0;

		(void) cd_runs_put_count(buf, st->nruns);
		join_start(&j, src);
		while (join_next(&j, &f, &l))
		{
			(void) cd_run_put(buf, width, seen++ == 0, f, l - f + 1, prevend);
			prevend = l;
		}
		Assert(seen == st->nruns);
	}
	else
	{
		RunKeys		rk;

		join_start(&rk.j, src);
		rk.have = join_next(&rk.j, &rk.k, &rk.l);
		cd_key_reader_init(&rk.r, &rk, 0, run_keys_next, NULL);
		cd_serial_write_fixed(buf, &rk.r, width);
	}
}

/* the layout for src's keys: runs exactly when shorter; its size */
static bool
choose_layout(const RunsStats *st, Size *size)
{
	if (st->nruns > 0 && st->runs_size < st->blocks_size)
	{
		*size = st->runs_size;
		return true;
	}
	*size = st->blocks_size;
	return false;
}

bytea *
dset_encode_runs(const CDKeyType *kt, DSRunSource *src)
{
	StringInfoData buf;
	RunsStats	st;
	Size		size;
	bool		runs;

	Assert(kt->width > 0);
	runs_stats(src, kt->width, &st);
	/* every stored set can be decoded (DSET_MAX_DECODED) */
	if (st.n > PG_UINT32_MAX || st.n * kt->width > DSET_MAX_DECODED)
		dset_too_large(st.n, kt->width);
	runs = choose_layout(&st, &size);
	start_value(&buf, kt, runs ? DSET_FLAG_RUNS : 0, (uint32) st.n);
	if (size > DSET_MAX_SIZE - (Size) buf.len)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large"),
				 errdetail("The set would take %zu bytes; a distinct_set is limited to 1 GB.",
						   size + buf.len)));
	enlargeStringInfo(&buf, (int) size);
	write_layout(&buf, kt->width, src, runs, &st);
	SET_VARSIZE(buf.data, buf.len);
	return (bytea *) buf.data;
}

void
dset_store_runs(StringInfo buf, int width, DSRunSource *src, DSStored *p)
{
	RunsStats	st;
	Size		size;
	bool		runs;
	int			start = buf->len;

	runs_stats(src, width, &st);
	runs = choose_layout(&st, &size);
	if (size > MaxAllocSize - 1 - (Size) buf->len)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set aggregate state too large"),
				 errdetail("The keys would take %zu bytes, more than 1 GB.", size)));
	enlargeStringInfo(buf, (int) size);
	write_layout(buf, width, src, runs, &st);
	p->width = width;
	p->runs = runs;
	p->n = st.n;
	p->data = buf->data + start;
	p->len = buf->len - start;
}

bool
dset_recv_in_place(FunctionCallInfo fcinfo, const bytea *ds)
{
	DSHeader	h;
	DSStored	p;
	DSStoredReader r;
	bytea	   *again;
	bool		same;

	/*
	 * Only a built-in type's reference: any other goes through
	 * dset_decode_input, which resolves names with the caller's privileges.
	 */
	if (VARSIZE_ANY_EXHDR(ds) <= DSET_HEADER_SIZE ||
		((const uint8 *) VARDATA_ANY(ds))[DSET_HEADER_SIZE] != CD_REF_OID)
		return false;
	if (dset_header(fcinfo, ds, &h)->width == 0 || !dsk_keys_all_valid(h.kt))
		return false;
	/* as binary input of any other set: USAGE on the type and its schema */
	if (!cd_type_usable(h.kt->typid))
		cd_error_type_not_usable(format_type_be(h.kt->typid));
	dset_stored_keys(ds, &h, &p);
	dset_stored_reader(&r, &p);
	again = dset_encode_runs(h.kt, &r.src);
	/* every pass reads the keys to their end */
	if (r.pos != p.len)
		dset_invalid("There are bytes left after the keys.");
	same = VARSIZE_ANY_EXHDR(again) == VARSIZE_ANY_EXHDR(ds) &&
		memcmp(VARDATA_ANY(again), VARDATA_ANY(ds), VARSIZE_ANY_EXHDR(ds)) == 0;
	pfree(again);
	if (!same)
		dset_invalid("The value is not in canonical form.");
	return true;
}

/* A source that checks each run of another against the canonical keys. */
typedef struct CanonicalSource
{
	DSRunSource src;
	DSRunSource *inner;
	bool		check;			/* kt's keys are not all canonical */
	uint64		bounds[5];		/* dsk_canonical_bounds */
} CanonicalSource;

static bool
canonical_next(DSRunSource *s, uint64 *first, uint64 *last)
{
	CanonicalSource *c = (CanonicalSource *) s;

	if (!c->inner->next(c->inner, first, last))
		return false;
	if (c->check && !dsk_run_in_bounds(c->bounds, *first, *last))
		dset_invalid("A key is not in canonical form.");
	return true;
}

static void
canonical_rewind(DSRunSource *s)
{
	CanonicalSource *c = (CanonicalSource *) s;

	c->inner->rewind(c->inner);
}

void
dset_check_stored(const CDKeyType *kt, const DSStored *p)
{
	DSStoredReader r;
	CanonicalSource c;
	RunsStats	st;
	Size		size;

	Assert(kt->width == p->width);
	dset_stored_reader(&r, p);
	c.src.next = canonical_next;
	c.src.rewind = canonical_rewind;
	c.inner = &r.src;
	c.check = !dsk_keys_all_canonical(kt);
	if (c.check)
		dsk_canonical_bounds(kt, c.bounds);
	runs_stats(&c.src, p->width, &st);
	if (st.n != p->n || r.pos != p->len)
		dset_invalid("There are bytes left after the keys.");
	if (choose_layout(&st, &size) != p->runs || size != p->len)
		dset_invalid("The keys are not in their shorter layout.");
}

bytea *
dset_from_stored(const CDKeyType *kt, const DSStored *p)
{
	StringInfoData buf;

	Assert(kt->width == p->width);
	if (p->n > PG_UINT32_MAX || p->n * kt->width > DSET_MAX_DECODED)
		dset_too_large(p->n, kt->width);
	start_value(&buf, kt, p->runs ? DSET_FLAG_RUNS : 0, (uint32) p->n);
	if (p->len > DSET_MAX_SIZE - (Size) buf.len)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large"),
				 errdetail("The set would take %zu bytes; a distinct_set is limited to 1 GB.",
						   p->len + buf.len)));
	appendBinaryStringInfo(&buf, p->data, (int) p->len);
	SET_VARSIZE(buf.data, buf.len);
	return (bytea *) buf.data;
}
