/*-------------------------------------------------------------------------
 *
 * serialize.c
 *	  The serialized form of a set's keys (see serialize.h).
 *
 * Format, all integers in network byte order:
 *
 *	  uint8   format version: 3 for CD_KEY_COMPARATOR (whose values' leaves
 *	          are written by their send functions under fixed settings
 *	          since 4.3, value_io.h), 2 for the other keys
 *	  uint8   key encoding (CDKeyEncoding)
 *	  uint8   key width in bytes (0: variable-size keys)
 *	  uint8   CD_KEY_COMPARATOR: the writer's database encoding plus one, the
 *	          encoding of text inside the values (0, from versions before
 *	          4.2: this database's); other keys: 0
 *	  the value type: a built-in one's fixed OID, else schema and name
 *	    (value_io.h)
 *	  the collation: none, a built-in one's fixed OID, or schema and name
 *	  CD_KEY_BYTES of an anonymous record (record): its column types and
 *	    collations (key_record.h: cd_record_send_fields)
 *	  uint32  number of keys, n
 *	  then n keys, strictly increasing:
 *	    fixed-width keys: in blocks, frame of reference (serialkeys.h);
 *	    CD_KEY_BYTES: each with the prefix it shares with the previous one
 *	      elided (serialkeys.h);
 *	    CD_KEY_COMPARATOR: the value as cd_value_send writes it (a length,
 *	      then composites, arrays and ranges structurally, other values by
 *	      their type's send function, or output function if it has none,
 *	      under settings that make them exact and text in the database
 *	      encoding; a tsvector with the size of its layout, which its
 *	      order depends on).
 *
 * Nothing in it depends on the node or the process: no OIDs but the fixed
 * ones of the initial catalog, no addresses,
 * record typmods or in-memory images, so states can travel between the
 * processes of a parallel query and between the nodes of a cluster (Citus),
 * where OIDs of enums, extension types and collations differ.  Only
 * distinct values are sent, never the unsorted tail.
 *
 * Deserialization trusts nothing: the version; that the type and collation
 * exist, are referred to as the writer refers to them (built-in ones by OID)
 * and give exactly this encoding and width; every length against the
 * bytes left (before allocating); text encoding; values through the type's
 * receive (or input) function, each using exactly its length; strictly
 * increasing order; and for fixed-width keys, that each is one that
 * encoding produces.
 *
 * A serialized state is a bytea, so at most 1 GB: a larger one is refused
 * with an error before anything is allocated for it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "errors.h"
#include "key_record.h"
#include "serialkeys.h"
#include "serialize.h"

#define CD_SERIAL_VERSION		2
#define CD_SERIAL_VERSION_VALUES	3	/* CD_KEY_COMPARATOR */

/* the largest serialized state: a bytea's payload */
#define CD_SERIAL_MAX_SIZE		((Size) (MaxAllocSize - VARHDRSZ))

static void
too_large(uint32 n, Size size)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("count_distinct state too large to pass between processes"),
			 errdetail("The group holds %u distinct values, which take at least %zu bytes serialized; a serialized state is limited to 1 GB.",
					   n, size),
			 errhint("Plans without partial aggregation have no such limit: SET max_parallel_workers_per_gather = 0, or group by more columns so that each group holds fewer values.")));
}

typedef struct SendArgs
{
	StringInfo	buf;
	const CDKeyType *kt;
	CDValueIO  *vio;
	CDKeyReader *r;
} SendArgs;

/* Comparator keys: each value through value_io. */
static void
send_values(void *arg)
{
	SendArgs   *a = (SendArgs *) arg;
	const CDKeyType *kt = a->kt;
	StringInfo	buf = a->buf;
	Size		len;
	const char *key;

	while ((key = a->r->next_bytes(a->r, &len)) != NULL)
	{
		Datum		value = cd_varkey_output_datum(kt, key, len);

		cd_value_send(buf, a->vio, kt->typid, value);
		cd_varkey_free_output_datum(kt, value);
		/* keep below the limit that StringInfo would hit later */
		if ((Size) buf->len > CD_SERIAL_MAX_SIZE / 2 &&
			(Size) buf->len + 4 + len > CD_SERIAL_MAX_SIZE)
			too_large(a->r->count, (Size) buf->len + 4 + len);
	}
}

void
cd_state_header(StringInfo buf, const CDKeyType *kt, uint32 n, Size keybytes)
{
	/* refuse before allocating */
	if (keybytes > CD_SERIAL_MAX_SIZE - 4 * NAMEDATALEN - 8)
		too_large(n, keybytes);
	pq_begintypsend(buf);
	pq_sendint8(buf, kt->encoding == CD_KEY_COMPARATOR ?
				CD_SERIAL_VERSION_VALUES : CD_SERIAL_VERSION);
	pq_sendint8(buf, (uint8) kt->encoding);
	pq_sendint8(buf, kt->width);
	pq_sendint8(buf, kt->encoding == CD_KEY_COMPARATOR ?
				GetDatabaseEncoding() + 1 : 0);
	cd_send_type_ref(buf, kt->typid);
	cd_send_collation_ref(buf, kt->collation);
	if (kt->encoding == CD_KEY_BYTES && kt->typid == RECORDOID)
		cd_record_send_fields(buf, kt->typmod);
	pq_sendint32(buf, n);
}

bytea *
cd_state_write(const CDKeyType *kt, CDValueIO *vio, CDKeyReader *r)
{
	StringInfoData buf;
	uint32		n = r->count;
	Size		keybytes;

	/* the size of the keys, when known up front */
	if (kt->width > 0)
		keybytes = cd_serial_fixed_size(r, kt->width, CD_SERIAL_MAX_SIZE);
	else if (kt->encoding == CD_KEY_BYTES)
		keybytes = cd_serial_bytes_size(r);
	else
		keybytes = (Size) n * 4;	/* at least each value's length */
	r->pos = 0;
	cd_state_header(&buf, kt, n, keybytes);
	enlargeStringInfo(&buf, (int) keybytes);

	if (kt->width > 0)
		cd_serial_write_fixed(&buf, r, kt->width);
	else if (kt->encoding == CD_KEY_BYTES)
		cd_serial_write_bytes(&buf, r);
	else
	{
		SendArgs	args = {&buf, kt, vio, r};

		cd_value_io_run(vio, false, send_values, &args);
	}
	elog(DEBUG2, "count_distinct: %u keys of %d bytes serialized into %d bytes",
		 n, kt->width, buf.len);
	return pq_endtypsend(&buf);
}

/*
 * The references (len bytes at refs) must be the ones cd_state_header writes
 * for typid and collation: a built-in type or collation goes by its OID,
 * so naming one (pg_catalog.int4) would be a second form of the same state.
 */
static void
check_refs_canonical(const char *refs, int len, Oid typid, int32 typmod,
					 Oid collation)
{
	StringInfoData canon;

	initStringInfo(&canon);
	cd_send_type_ref(&canon, typid);
	cd_send_collation_ref(&canon, collation);
	if (typmod >= 0)
		cd_record_send_fields(&canon, typmod);
	if (canon.len != len || memcmp(canon.data, refs, len) != 0)
		cd_invalid_state("The type or collation reference is not in canonical form.");
	pfree(canon.data);
}

/*
 * The value type and collation named by the header's references (at
 * buf->cursor), and for byte keys of anonymous records the canonical
 * typmod of the columns named after them (else -1), resolved once per
 * distinct header bytes.
 */
static void
receive_refs(StringInfo buf, CDStateRefCache *cache, int encoding,
			 Oid *typid, int32 *typmod, Oid *collation)
{
	int			start = buf->cursor;
	const char *refs = buf->data + start;

	if (cache != NULL && cache->refs != NULL &&
		cache->refslen <= buf->len - start &&
		memcmp(cache->refs, refs, cache->refslen) == 0)
	{
		buf->cursor += cache->refslen;
		*typid = cache->typid;
		*typmod = cache->typmod;
		*collation = cache->collation;
		return;
	}
	*typid = cd_recv_type_ref(buf);
	*collation = cd_recv_collation_ref(buf, CD_WHAT_STATE);
	*typmod = -1;
	if (encoding == CD_KEY_BYTES && *typid == RECORDOID)
		*typmod = cd_record_recv_fields(buf);
	check_refs_canonical(refs, buf->cursor - start, *typid, *typmod,
						 *collation);
	if (cache != NULL)
	{
		if (cache->refs != NULL)
			pfree(cache->refs);
		cache->refslen = buf->cursor - start;
		cache->refs = MemoryContextAlloc(cache->mcxt, cache->refslen);
		memcpy(cache->refs, refs, cache->refslen);
		cache->typid = *typid;
		cache->typmod = *typmod;
		cache->collation = *collation;
	}
}

void
cd_state_read_header(StringInfo buf, const char *data, Size len,
					 CDStateRefCache *cache, CDStateHeader *h)
{
	int			version;
	int			textenc;

	if (len < 4 || len > CD_SERIAL_MAX_SIZE)
		cd_invalid_state("The state is shorter than its header.");

	/* read-only view of the bytes */
	buf->data = (char *) data;
	buf->len = (int) len;
	buf->maxlen = (int) len;
	buf->cursor = 0;

	version = pq_getmsgbyte(buf);
	h->encoding = pq_getmsgbyte(buf);
	h->width = pq_getmsgbyte(buf);
	textenc = pq_getmsgbyte(buf);
	if (version != (h->encoding == CD_KEY_COMPARATOR ?
					CD_SERIAL_VERSION_VALUES : CD_SERIAL_VERSION) ||
		(textenc != 0 && h->encoding != CD_KEY_COMPARATOR))
		cd_invalid_state("Unknown format version.");
	h->text_encoding = textenc == 0 ? GetDatabaseEncoding() : textenc - 1;
	receive_refs(buf, cache, h->encoding, &h->typid, &h->typmod,
				 &h->collation);
	h->n = (uint32) pq_getmsgint(buf, 4);
}

Size
cd_state_check_keys(StringInfo buf, const CDStateHeader *h,
					const CDKeyType *kt)
{
	Size		left = (Size) (buf->len - buf->cursor);

	if (kt->encoding != h->encoding || kt->width != h->width ||
		kt->collation != h->collation)
		cd_invalid_state("The key encoding does not match the value type.");
	if (kt->width > 0)
	{
		/* a block of up to CD_BLOCK_KEYS keys takes at least one full key */
		if ((Size) h->n > (left / kt->width) * CD_BLOCK_KEYS)
			cd_invalid_state("The length does not match the number of keys.");
		return (Size) h->n * kt->width;
	}
	/* byte keys take at least their two lengths, values their 4-byte one */
	if ((Size) h->n > left / (kt->encoding == CD_KEY_BYTES ? 2 : 4))
		cd_invalid_state("The length does not match the number of keys.");
	return left;
}

typedef struct ReceiveArgs
{
	StringInfo	buf;
	const CDKeyType *kt;
	CDValueIO  *vio;
	uint32		n;
	CDKeyWriter *w;
} ReceiveArgs;

/*
 * Comparator keys: each value through value_io, turned into its key and
 * checked to be greater than the previous one.
 */
static void
receive_values(void *arg)
{
	ReceiveArgs *a = (ReceiveArgs *) arg;
	const CDKeyType *kt = a->kt;
	MemoryContext valuecxt;
	MemoryContext old;
	StringInfoData prev;
	StringInfoData key;
	uint32		i;

	valuecxt = AllocSetContextCreate(CurrentMemoryContext,
									 "count_distinct value",
									 ALLOCSET_SMALL_SIZES);
	initStringInfo(&prev);
	initStringInfo(&key);
	for (i = 0; i < a->n; i++)
	{
		Datum		value;
		Datum		detoasted;
		Size		len;

		old = MemoryContextSwitchTo(valuecxt);
		value = cd_value_recv(a->buf, a->vio, kt->typid, -1);
		len = cd_varkey_size(kt, value, &detoasted);
		if (len > MaxAllocSize - 1)
			cd_error_value_too_large(len);
		MemoryContextSwitchTo(old);
		resetStringInfo(&key);
		enlargeStringInfo(&key, (int) len);
		cd_varkey_write(kt, detoasted, key.data);
		key.len = (int) len;
		/* what the receive functions allocated */
		MemoryContextReset(valuecxt);

		/* strictly increasing */
		if (i > 0 && cd_varkey_compare(kt, prev.data, prev.len,
									   key.data, key.len) >= 0)
			cd_invalid_state("The values are not strictly increasing.");
		a->w->put_bytes(a->w, key.data, key.len);
		resetStringInfo(&prev);
		appendBinaryStringInfo(&prev, key.data, key.len);
		if ((i & 0xFFF) == 0xFFF)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(prev.data);
	pfree(key.data);
	MemoryContextDelete(valuecxt);
}

void
cd_state_read_keys(StringInfo buf, const CDKeyType *kt, CDValueIO *vio,
				   uint32 n, CDKeyWriter *w)
{
	if (kt->width > 0)
		cd_serial_read_fixed(buf, kt, n, w, CD_WHAT_STATE);
	else if (kt->encoding == CD_KEY_BYTES)
		cd_serial_read_bytes(buf, kt, n, w, CD_WHAT_STATE);
	else
	{
		ReceiveArgs args = {buf, kt, vio, n, w};

		cd_value_io_run(vio, true, receive_values, &args);
	}
	pq_getmsgend(buf);
}
