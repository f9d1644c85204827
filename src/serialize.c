/*-------------------------------------------------------------------------
 *
 * serialize.c
 *	  The serialized form of a set.
 *
 * Format (version 1), all integers in network byte order:
 *
 *	  uint8   format version (1)
 *	  uint8   key encoding (CDKeyEncoding)
 *	  uint8   key width in bytes (0: variable-size keys)
 *	  uint8   reserved, 0
 *	  uint32  value type OID
 *	  uint32  collation OID (0 for types without one)
 *	  uint32  number of keys, n
 *	  then n keys, strictly increasing:
 *	    fixed-width keys: `width` bytes each;
 *	    CD_KEY_BYTES: uint32 length + the bytes;
 *	    CD_KEY_COMPARATOR: uint32 length + the type's send function's output
 *	      (or its output function's text, for types without binary I/O).
 *
 * Only distinct values are sent, never addresses, in-memory images or the
 * unsorted tail.  Deserialization trusts nothing: the version; that the type
 * and collation exist and give exactly this encoding and width; every
 * length against the bytes left (before allocating); text encoding; values
 * through the type's receive (or input) function; strictly increasing
 * order; and for fixed-width keys, that each is one that encoding produces.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "port/pg_bswap.h"
#include "utils/syscache.h"

#include "serialize.h"

#define CD_SERIAL_VERSION		1
#define CD_SERIAL_HEADER_SIZE	16

/* the keys, big-endian; the caller has made room for all of them */
static void
send_fixed_keys(StringInfo buf, CDSet *set, uint32 n)
{
	uint32		i;

	switch (set->width)
	{
		case 1:
			for (i = 0; i < n; i++)
				pq_writeint8(buf, (uint8) cdset_get_key(set, i));
			break;
		case 2:
			for (i = 0; i < n; i++)
				pq_writeint16(buf, (uint16) cdset_get_key(set, i));
			break;
		case 4:
			for (i = 0; i < n; i++)
				pq_writeint32(buf, (uint32) cdset_get_key(set, i));
			break;
		default:
			for (i = 0; i < n; i++)
				pq_writeint64(buf, cdset_get_key(set, i));
			break;
	}
}

static void
send_var_keys(StringInfo buf, CDVarSet *set)
{
	const CDKeyType *kt = set->kt;
	Size		pos = 0;
	Size		len;
	const char *key;

	while ((key = cdvar_next(set, &pos, &len)) != NULL)
	{
		if (kt->encoding == CD_KEY_BYTES)
		{
			pq_sendint32(buf, (uint32) len);
			pq_sendbytes(buf, key, (int) len);
		}
		else
		{
			Datum		value = cd_varkey_output_datum(kt, key, len);

			if (kt->binary_io)
			{
				bytea	   *b = SendFunctionCall((FmgrInfo *) &kt->sendfn, value);

				pq_sendint32(buf, (uint32) VARSIZE(b) - VARHDRSZ);
				pq_sendbytes(buf, VARDATA(b), VARSIZE(b) - VARHDRSZ);
				pfree(b);
			}
			else
			{
				char	   *s = OutputFunctionCall((FmgrInfo *) &kt->sendfn, value);
				Size		slen = strlen(s);

				pq_sendint32(buf, (uint32) slen);
				pq_sendbytes(buf, s, (int) slen);
				pfree(s);
			}
			if (!kt->typbyval)
				pfree(DatumGetPointer(value));
		}
	}
}

bytea *
cd_serialize(CDSet *set)
{
	StringInfoData buf;
	uint32		n = cdset_count(set);

	pq_begintypsend(&buf);
	pq_sendint8(&buf, CD_SERIAL_VERSION);
	pq_sendint8(&buf, (uint8) set->kt->encoding);
	pq_sendint8(&buf, set->width);
	pq_sendint8(&buf, 0);
	pq_sendint32(&buf, set->kt->typid);
	pq_sendint32(&buf, set->kt->collation);
	pq_sendint32(&buf, n);

	if (set->width > 0)
	{
		enlargeStringInfo(&buf, (Size) n * set->width);
		send_fixed_keys(&buf, set, n);
	}
	else
		send_var_keys(&buf, (CDVarSet *) set);
	return pq_endtypsend(&buf);
}

static void
invalid_state(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid count_distinct state"),
			 errdetail_internal("%s", detail)));
}

static CDSet *
receive_fixed_keys(StringInfo buf, const CDKeyType *kt, uint32 n)
{
	const uint8 *p = (const uint8 *) buf->data + buf->cursor;
	CDSet	   *set;
	uint32		i;

	if ((Size) (buf->len - buf->cursor) != (Size) n * kt->width)
		invalid_state("The length does not match the number of keys.");

	set = cdset_create_sized(kt, CurrentMemoryContext, n);
	for (i = 0; i < n; i++, p += kt->width)
	{
		uint64		key;

		/* the length is checked above: read the big-endian keys directly */
		switch (kt->width)
		{
			case 1:
				key = p[0];
				break;
			case 2:
				key = ((uint32) p[0] << 8) | p[1];
				break;
			case 4:
				{
					uint32		v;

					memcpy(&v, p, 4);
					key = pg_ntoh32(v);
				}
				break;
			default:
				{
					uint64		v;

					memcpy(&v, p, 8);
					key = pg_ntoh64(v);
				}
				break;
		}
		/* only keys that encoding produces (no -0.0, no second NaN, ...) */
		if (cd_key_encode(kt, cd_key_decode(kt, key)) != key)
			invalid_state("A key is not in canonical form.");
		cdset_put_key(set, i, key);
	}
	buf->cursor = buf->len;
	if (!cdset_is_strictly_increasing(set, n))
		invalid_state("The keys are not strictly increasing.");
	set->nsorted = set->nall = n;
	return set;
}

static CDSet *
receive_var_keys(StringInfo buf, const CDKeyType *kt, uint32 n)
{
	CDVarSet   *set;
	uint32		i;
	Size		prevpos = 0;

	/* every key takes at least its 4-byte length */
	if ((Size) (buf->len - buf->cursor) / 4 < n)
		invalid_state("The length does not match the number of keys.");

	set = cdvar_create(kt, CurrentMemoryContext, buf->len - buf->cursor, false);
	for (i = 0; i < n; i++)
	{
		uint32		len = (uint32) pq_getmsgint(buf, 4);
		const char *bytes;
		Size		start = set->used;

		if (len > (uint32) (buf->len - buf->cursor))
			invalid_state("A value's length runs past the end of the state.");
		bytes = pq_getmsgbytes(buf, (int) len);

		if (kt->encoding == CD_KEY_BYTES)
		{
			if (!cd_varkey_is_valid(kt, bytes, len))
				invalid_state("A value is not valid for its type.");
			cdvar_add_key(set, bytes, len);
		}
		else
		{
			Datum		value;

			if (kt->binary_io)
			{
				StringInfoData vbuf;

				vbuf.data = (char *) bytes;
				vbuf.len = (int) len;
				vbuf.maxlen = (int) len;
				vbuf.cursor = 0;
				value = ReceiveFunctionCall((FmgrInfo *) &kt->recvfn, &vbuf,
											kt->ioparam, -1);
			}
			else
			{
				char	   *s = pnstrdup(bytes, len);

				if (strlen(s) != len)
					invalid_state("A value contains a zero byte.");
				value = InputFunctionCall((FmgrInfo *) &kt->recvfn, s,
										  kt->ioparam, -1);
			}
			cdvar_add(set, value);
		}

		/* strictly increasing: compare with the previous entry */
		if (i > 0)
		{
			Size		apos = prevpos;
			Size		bpos = start;
			Size		alen = 0;
			Size		blen = 0;
			const char *a = cdvar_next(set, &apos, &alen);
			const char *b = cdvar_next(set, &bpos, &blen);

			if (cdvar_compare(set, a, alen, b, blen) >= 0)
				invalid_state("The values are not strictly increasing.");
		}
		prevpos = start;
		/* all checked so far: sorted (so growing never compacts them) */
		set->nsorted = set->nall;
		set->sortedbytes = set->used;
	}
	set->nsorted = set->nall;
	set->sortedbytes = set->used;
	return (CDSet *) set;
}

CDSet *
cd_deserialize(const char *data, Size len,
			   const CDKeyType **ktcache, MemoryContext ktmcxt)
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

	if (len < CD_SERIAL_HEADER_SIZE || len > (Size) PG_INT32_MAX)
		invalid_state("The state is shorter than its header.");

	/* read-only view of the bytes */
	buf.data = (char *) data;
	buf.len = (int) len;
	buf.maxlen = (int) len;
	buf.cursor = 0;

	version = pq_getmsgbyte(&buf);
	encoding = pq_getmsgbyte(&buf);
	width = pq_getmsgbyte(&buf);
	reserved = pq_getmsgbyte(&buf);
	typid = (Oid) pq_getmsgint(&buf, 4);
	collation = (Oid) pq_getmsgint(&buf, 4);
	n = (uint32) pq_getmsgint(&buf, 4);

	if (version != CD_SERIAL_VERSION || reserved != 0)
		invalid_state("Unknown format version.");
	if (!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(typid)))
		invalid_state("The value type does not exist.");
	if (OidIsValid(collation) &&
		!SearchSysCacheExists1(COLLOID, ObjectIdGetDatum(collation)))
		invalid_state("The collation does not exist.");
	kt = cd_keytype_cached(ktcache, ktmcxt, typid, collation);
	if (kt->encoding != encoding || kt->width != width ||
		kt->collation != collation)
		invalid_state("The key encoding does not match the value type.");

	if (width > 0)
		set = receive_fixed_keys(&buf, kt, n);
	else
		set = receive_var_keys(&buf, kt, n);
	pq_getmsgend(&buf);
	return set;
}
