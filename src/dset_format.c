/*-------------------------------------------------------------------------
 *
 * dset_format.c
 *	  Stored sets: the on-disk format (dset.h), encoding, decoding and
 *	  validation.
 *
 * Decoding trusts nothing: the version, the flags, the type reference (the
 * type must exist and give exactly the stored encoding and width), the
 * count against the bytes left (before allocating), and the keys as
 * keypack.h checks them (canonical packing, strictly increasing, valid
 * keys of the type); no byte may be left over.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "dset.h"
#include "serialize.h"
#include "value_io.h"

static int
format_encoding(const CDKeyType *kt)
{
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

bytea *
dset_encode(const CDKeyType *kt, const DSKeys *keys)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, VARHDRSZ);
	pq_sendint8(&buf, DSET_VERSION);
	pq_sendint8(&buf, (uint8) format_encoding(kt));
	pq_sendint8(&buf, kt->width);
	pq_sendint8(&buf, 0);
	pq_sendint32(&buf, keys->n);
	cd_send_type_ref(&buf, kt->typid);
	cd_send_collation_ref(&buf, InvalidOid);
	dsk_pack(&buf, keys);
	SET_VARSIZE(buf.data, buf.len);
	return (bytea *) buf.data;
}

void
dset_invalid(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid distinct_set"),
			 errdetail_internal("%s", detail)));
	pg_unreachable();
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

static const CDKeyType *
decode(FunctionCallInfo fcinfo, const bytea *ds, DSKeys *keys)
{
	StringInfoData buf;
	int			version;
	int			encoding;
	int			width;
	int			flags;
	uint32		n;
	Oid			typid;
	Oid			collation;
	const CDKeyType *kt;

	/* read-only view of the bytes */
	buf.data = (char *) VARDATA_ANY(ds);
	buf.len = (int) VARSIZE_ANY_EXHDR(ds);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	if (buf.len < DSET_HEADER_SIZE)
		cd_invalid_state("The value is shorter than its header.");

	version = pq_getmsgbyte(&buf);
	encoding = pq_getmsgbyte(&buf);
	width = pq_getmsgbyte(&buf);
	flags = pq_getmsgbyte(&buf);
	if (version != DSET_VERSION)
		cd_invalid_state("Unknown format version.");
	if (flags != 0)
		cd_invalid_state("Unknown flags.");
	n = (uint32) pq_getmsgint(&buf, 4);
	typid = cd_recv_type_ref(&buf);
	collation = cd_recv_collation_ref(&buf);
	if (OidIsValid(collation))
		cd_invalid_state("This format version stores no collation.");

	kt = dsk_keytype(fcinfo, typid);
	if (format_encoding(kt) != encoding || kt->width != width)
		cd_invalid_state("The key encoding does not match the element type.");
	dsk_unpack(&buf, keys, kt, n);
	if (buf.cursor != buf.len)
		cd_invalid_state("There are bytes left after the keys.");
	return kt;
}

/*
 * The checks are shared with serialized states (keypack.h, value_io.h),
 * whose errors name a count_distinct state: they are raised again naming
 * a distinct_set.
 */
const CDKeyType *
dset_decode(FunctionCallInfo fcinfo, const bytea *ds, DSKeys *keys)
{
	MemoryContext mcxt = CurrentMemoryContext;
	const CDKeyType *volatile kt = NULL;

	PG_TRY();
	{
		kt = decode(fcinfo, ds, keys);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(mcxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_INVALID_BINARY_REPRESENTATION &&
			edata->sqlerrcode != ERRCODE_UNDEFINED_OBJECT)
			PG_RE_THROW();
		FlushErrorState();
		if (edata->sqlerrcode == ERRCODE_INVALID_BINARY_REPRESENTATION)
			edata->message = pstrdup("invalid distinct_set");
		else
		{
			/* "type \"s.t\" of a count_distinct state does not exist" */
			char	   *p = strstr(edata->message, " of a count_distinct state ");

			if (p != NULL)
				edata->message = psprintf("%.*s of a distinct_set %s",
										  (int) (p - edata->message), edata->message,
										  p + strlen(" of a count_distinct state "));
			edata->hint = NULL;
		}
		ReThrowError(edata);
	}
	PG_END_TRY();
	return kt;
}

void
dset_check_same_type(const CDKeyType *a, const CDKeyType *b)
{
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
