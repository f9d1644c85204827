/*-------------------------------------------------------------------------
 *
 * serialize.c
 *	  The serialized form of a set.
 *
 * Format (version 2), all integers in network byte order:
 *
 *	  uint8   format version (2)
 *	  uint8   key encoding (CDKeyEncoding)
 *	  uint8   key width in bytes (0: variable-size keys)
 *	  uint8   reserved, 0
 *	  the value type: a built-in one's fixed OID, else schema and name
 *	    (value_io.h)
 *	  the collation: none, a built-in one's fixed OID, or schema and name
 *	  uint32  number of keys, n
 *	  then n keys, strictly increasing:
 *	    fixed-width keys: packed in blocks, frame of reference (keypack.h);
 *	    CD_KEY_BYTES: each with the prefix it shares with the previous one
 *	      elided (keypack.h);
 *	    CD_KEY_COMPARATOR: the value as cd_value_send writes it (a length,
 *	      then composites and arrays structurally, other values by their
 *	      type's send function, in the database encoding).
 *
 * Nothing in it depends on the node or the process: no OIDs but the fixed
 * ones of the initial catalog, no addresses,
 * record typmods or in-memory images, so states can travel between the
 * processes of a parallel query and between the nodes of a cluster (Citus),
 * where OIDs of enums, extension types and collations differ.  Only
 * distinct values are sent, never the unsorted tail.
 *
 * Deserialization trusts nothing: the version; that the type and collation
 * exist and give exactly this encoding and width; every length against the
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
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "keypack.h"
#include "registry.h"
#include "serialize.h"
#include "value_io.h"

#define CD_SERIAL_VERSION		2

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
	CDVarSet   *set;
	uint32		n;
} SendArgs;

static void
send_var_keys(void *arg)
{
	SendArgs   *a = (SendArgs *) arg;
	const CDKeyType *kt = a->set->kt;
	StringInfo	buf = a->buf;
	Size		pos = 0;
	Size		len;
	const char *key;

	while ((key = cdvar_next(a->set, &pos, &len)) != NULL)
	{
		{
			Datum		value = cd_varkey_output_datum(kt, key, len);

			cd_value_send(buf, kt->vio, kt->typid, value);
			cd_varkey_free_output_datum(kt, value);
			/* keep below the limit that StringInfo would hit later */
			if ((Size) buf->len > CD_SERIAL_MAX_SIZE / 2)
			{
				if ((Size) buf->len + 4 + len > CD_SERIAL_MAX_SIZE)
					too_large(a->n, (Size) buf->len + 4 + len);
			}
		}
	}
}

bytea *
cd_serialize(CDSet *set)
{
	StringInfoData buf;
	uint32		n = cdset_count(set);
	Size		keybytes;

	/* the size of the keys, when known up front: refuse before allocating */
	if (set->width > 0)
		keybytes = cd_pack_fixed_size(set, n, CD_SERIAL_MAX_SIZE);
	else if (set->kt->encoding == CD_KEY_BYTES)
		keybytes = cd_pack_bytes_size((CDVarSet *) set);
	else
		keybytes = (Size) n * 4;	/* at least each value's length */
	if (keybytes > CD_SERIAL_MAX_SIZE - 4 * NAMEDATALEN - 8)
		too_large(n, keybytes);

	pq_begintypsend(&buf);
	pq_sendint8(&buf, CD_SERIAL_VERSION);
	pq_sendint8(&buf, (uint8) set->kt->encoding);
	pq_sendint8(&buf, set->width);
	pq_sendint8(&buf, 0);
	cd_send_type_ref(&buf, set->kt->typid);
	cd_send_collation_ref(&buf, set->kt->collation);
	pq_sendint32(&buf, n);

	if (set->width > 0)
	{
		enlargeStringInfo(&buf, (int) keybytes);
		cd_pack_fixed(&buf, set, n);
	}
	else if (set->kt->encoding == CD_KEY_BYTES)
	{
		enlargeStringInfo(&buf, (int) keybytes);
		cd_pack_bytes(&buf, (CDVarSet *) set);
	}
	else
	{
		SendArgs	args = {&buf, (CDVarSet *) set, n};

		cd_with_database_encoding(send_var_keys, &args);
	}
	elog(DEBUG2, "count_distinct: %u keys of %d bytes serialized into %d bytes",
		 n, set->width, buf.len);
	return pq_endtypsend(&buf);
}

void
cd_invalid_state(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid count_distinct state"),
			 errdetail_internal("%s", detail)));
	pg_unreachable();
}

static CDSet *
receive_fixed_keys(StringInfo buf, const CDKeyType *kt, uint32 n)
{
	CDSet	   *set;

	/* a block of up to CD_PACK_BLOCK keys takes at least one full key */
	if ((Size) n > ((Size) (buf->len - buf->cursor) / kt->width) * CD_PACK_BLOCK)
		cd_invalid_state("The length does not match the number of keys.");
	set = cdset_create_sized(kt, CurrentMemoryContext, n);
	cd_unpack_fixed(buf, set, n);
	return set;
}

typedef struct ReceiveArgs
{
	StringInfo	buf;
	const CDKeyType *kt;
	uint32		n;
	CDVarSet   *set;
} ReceiveArgs;

static void
receive_var_keys(void *arg)
{
	ReceiveArgs *a = (ReceiveArgs *) arg;
	StringInfo	buf = a->buf;
	const CDKeyType *kt = a->kt;
	CDVarSet   *set;
	MemoryContext valuecxt;
	uint32		i;
	Size		prevpos = 0;

	/* every key takes at least its 4-byte length */
	if ((Size) (buf->len - buf->cursor) / 4 < a->n)
		cd_invalid_state("The length does not match the number of keys.");

	set = cdvar_create(kt, CurrentMemoryContext, buf->len - buf->cursor, false);
	valuecxt = AllocSetContextCreate(CurrentMemoryContext,
									 "count_distinct value",
									 ALLOCSET_SMALL_SIZES);
	for (i = 0; i < a->n; i++)
	{
		Size		start = set->used;

		{
			MemoryContext old = MemoryContextSwitchTo(valuecxt);

			set = cdvar_add(set, cd_value_recv(buf, kt->vio, kt->typid, -1), NULL);
			MemoryContextSwitchTo(old);
			/* what the receive functions allocated */
			MemoryContextReset(valuecxt);
		}

		/* strictly increasing: compare with the previous entry */
		if (i > 0)
		{
			Size		apos = prevpos;
			Size		bpos = start;
			Size		alen = 0;
			Size		blen = 0;
			const char *ka = cdvar_next(set, &apos, &alen);
			const char *kb = cdvar_next(set, &bpos, &blen);

			if (cdvar_compare(set, ka, alen, kb, blen) >= 0)
				cd_invalid_state("The values are not strictly increasing.");
		}
		prevpos = start;
		/* all checked so far: sorted (so growing never compacts them) */
		set->nsorted = set->nall;
		set->sortedbytes = set->used;
		if ((i & 0xFFF) == 0xFFF)
			CHECK_FOR_INTERRUPTS();
	}
	set->nsorted = set->nall;
	set->sortedbytes = set->used;
	MemoryContextDelete(valuecxt);
	a->set = set;
}

/*
 * The value type and collation named by the header's references (at
 * buf->cursor), resolved once per distinct header bytes.
 */
static void
receive_refs(StringInfo buf, CDStateRefCache *cache, Oid *typid,
			 Oid *collation)
{
	int			start = buf->cursor;
	const char *refs = buf->data + start;

	if (cache != NULL && cache->refs != NULL &&
		cache->refslen <= buf->len - start &&
		memcmp(cache->refs, refs, cache->refslen) == 0)
	{
		buf->cursor += cache->refslen;
		*typid = cache->typid;
		*collation = cache->collation;
		return;
	}
	*typid = cd_recv_type_ref(buf);
	*collation = cd_recv_collation_ref(buf);
	if (cache != NULL)
	{
		if (cache->refs != NULL)
			pfree(cache->refs);
		cache->refslen = buf->cursor - start;
		cache->refs = MemoryContextAlloc(cache->mcxt, cache->refslen);
		memcpy(cache->refs, refs, cache->refslen);
		cache->typid = *typid;
		cache->collation = *collation;
	}
}

CDSet *
cd_deserialize(FunctionCallInfo fcinfo, const char *data, Size len,
			   CDStateRefCache *cache)
{
	StringInfoData buf;
	int			version;
	int			encoding;
	int			width;
	int			reserved;
	Oid			typid;
	Oid			collation;
	uint32		n;
	const CDKeyType *kt;
	CDSet	   *set;

	if (len < 4 || len > CD_SERIAL_MAX_SIZE)
		cd_invalid_state("The state is shorter than its header.");

	/* read-only view of the bytes */
	buf.data = (char *) data;
	buf.len = (int) len;
	buf.maxlen = (int) len;
	buf.cursor = 0;

	version = pq_getmsgbyte(&buf);
	encoding = pq_getmsgbyte(&buf);
	width = pq_getmsgbyte(&buf);
	reserved = pq_getmsgbyte(&buf);
	if (version != CD_SERIAL_VERSION || reserved != 0)
		cd_invalid_state("Unknown format version.");
	receive_refs(&buf, cache, &typid, &collation);
	n = (uint32) pq_getmsgint(&buf, 4);

	kt = cd_registry_keytype(fcinfo, typid, collation);
	if (kt->encoding != encoding || kt->width != width ||
		kt->collation != collation)
		cd_invalid_state("The key encoding does not match the value type.");

	if (width > 0)
		set = receive_fixed_keys(&buf, kt, n);
	else
	{
		ReceiveArgs args = {&buf, kt, n, NULL};

		if (kt->encoding == CD_KEY_BYTES)
		{
			/* each key takes at least its two lengths */
			if ((Size) n > (Size) (buf.len - buf.cursor) / 2)
				cd_invalid_state("The length does not match the number of keys.");
			args.set = cdvar_create(kt, CurrentMemoryContext,
									buf.len - buf.cursor, false);
			args.set = cd_unpack_bytes(&buf, args.set, n);
		}
		else
			cd_with_database_encoding(receive_var_keys, &args);
		set = (CDSet *) args.set;
	}
	pq_getmsgend(&buf);
	return set;
}
