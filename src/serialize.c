/*-------------------------------------------------------------------------
 *
 * serialize.c
 *	  The serialized form of a set.
 *
 * Format (version 1), all integers in network byte order:
 *
 *	  uint8   format version (1)
 *	  uint8   key encoding (CDKeyEncoding)
 *	  uint8   key width in bytes
 *	  uint8   reserved, 0
 *	  uint32  value type OID
 *	  uint32  number of keys, n
 *	  n keys of `width` bytes each, strictly increasing
 *
 * Only distinct keys are sent, never addresses or the unsorted tail.
 * Deserialization trusts nothing: it checks the version, that the type
 * exists and has exactly this key encoding and width, that the length is
 * exactly the header plus n keys (before allocating anything), and that the
 * keys are strictly increasing and each is one that encoding produces.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/syscache.h"

#include "serialize.h"

#define CD_SERIAL_VERSION		1
#define CD_SERIAL_HEADER_SIZE	12

bytea *
cd_serialize(CDSet *set)
{
	StringInfoData buf;
	uint32		n = cdset_count(set);
	uint32		i;

	pq_begintypsend(&buf);
	enlargeStringInfo(&buf, CD_SERIAL_HEADER_SIZE + (Size) n * set->width);
	pq_sendint8(&buf, CD_SERIAL_VERSION);
	pq_sendint8(&buf, (uint8) set->kt->encoding);
	pq_sendint8(&buf, set->width);
	pq_sendint8(&buf, 0);
	pq_sendint32(&buf, set->kt->typid);
	pq_sendint32(&buf, n);

	switch (set->width)
	{
		case 1:
			for (i = 0; i < n; i++)
				pq_sendint8(&buf, (uint8) cdset_get_key(set, i));
			break;
		case 2:
			for (i = 0; i < n; i++)
				pq_sendint16(&buf, (uint16) cdset_get_key(set, i));
			break;
		case 4:
			for (i = 0; i < n; i++)
				pq_sendint32(&buf, (uint32) cdset_get_key(set, i));
			break;
		default:
			for (i = 0; i < n; i++)
				pq_sendint64(&buf, cdset_get_key(set, i));
			break;
	}
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

CDSet *
cd_deserialize(const char *data, Size len, FmgrInfo *flinfo)
{
	StringInfoData buf;
	int			version;
	int			encoding;
	int			width;
	Oid			typid;
	uint32		n;
	uint32		i;
	const CDKeyType *kt;
	CDSet	   *set;

	if (len < CD_SERIAL_HEADER_SIZE)
		invalid_state("The state is shorter than its header.");

	/* read-only view of the bytes */
	buf.data = (char *) data;
	buf.len = (int) len;
	buf.maxlen = (int) len;
	buf.cursor = 0;

	version = pq_getmsgbyte(&buf);
	encoding = pq_getmsgbyte(&buf);
	width = pq_getmsgbyte(&buf);
	(void) pq_getmsgbyte(&buf);
	typid = (Oid) pq_getmsgint(&buf, 4);
	n = (uint32) pq_getmsgint(&buf, 4);

	if (version != CD_SERIAL_VERSION)
		invalid_state("Unknown format version.");
	if (!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(typid)))
		invalid_state("The value type does not exist.");
	kt = cd_keytype_cached(flinfo, typid, InvalidOid);
	if (kt->encoding != encoding || kt->width != width)
		invalid_state("The key encoding does not match the value type.");
	if ((len - CD_SERIAL_HEADER_SIZE) / width != n ||
		(len - CD_SERIAL_HEADER_SIZE) % width != 0)
		invalid_state("The length does not match the number of keys.");

	set = cdset_create_sized(kt, CurrentMemoryContext, n);
	switch (width)
	{
		case 1:
			for (i = 0; i < n; i++)
				cdset_put_key(set, i, (uint8) pq_getmsgbyte(&buf));
			break;
		case 2:
			for (i = 0; i < n; i++)
				cdset_put_key(set, i, (uint16) pq_getmsgint(&buf, 2));
			break;
		case 4:
			for (i = 0; i < n; i++)
				cdset_put_key(set, i, (uint32) pq_getmsgint(&buf, 4));
			break;
		default:
			for (i = 0; i < n; i++)
				cdset_put_key(set, i, (uint64) pq_getmsgint64(&buf));
			break;
	}
	pq_getmsgend(&buf);

	if (!cdset_is_strictly_increasing(set, n))
		invalid_state("The keys are not strictly increasing.");
	/* only keys that encoding produces (no -0.0, no second NaN, no bool 2) */
	for (i = 0; i < n; i++)
	{
		uint64		key = cdset_get_key(set, i);

		if (cd_key_encode(kt, cd_key_decode(kt, key)) != key)
			invalid_state("A key is not in canonical form.");
	}
	set->nsorted = set->nall = n;
	return set;
}
