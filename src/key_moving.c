/*-------------------------------------------------------------------------
 *
 * key_moving.c
 *	  Keys for the moving-aggregate state: from a value, kept, and back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "compat.h"
#include "key_moving.h"

Size
cd_mkey_bytes_size(const CDKeyType *kt, Datum value, Datum *detoasted)
{
	Size		len = cd_varkey_size(kt, value, detoasted);

	if (len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("count_distinct: value too large")));
	return len;
}

void
cd_mkey_from_value(const CDKeyType *kt, Datum value, CDMKey *k)
{
	Datum		detoasted;

	if (kt->width > 0)
	{
		k->u.fixed = cd_key_encode(kt, value);
		k->bytes = NULL;
		k->len = 0;
		return;
	}

	/*
	 * The comparator gets a value with a 4-byte header, as the kept image
	 * has (a short header would be expanded by every comparison).
	 */
	if (kt->encoding == CD_KEY_COMPARATOR && kt->typlen == -1)
		value = PointerGetDatum(PG_DETOAST_DATUM(value));
	k->len = cd_varkey_size(kt, value, &detoasted);
	if (k->len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("count_distinct: value too large")));
	k->u.datum = detoasted;
	if (kt->codec != NULL)
	{
		/* an encoded key (numeric, interval, bpchar): for this lookup */
		char	   *buf = palloc(Max(k->len, 1));

		cd_varkey_write(kt, detoasted, buf);
		k->bytes = buf;
	}
	else if (kt->typbyval)
		k->bytes = NULL;		/* a by-value comparator key: the datum */
	else if (kt->typlen == -1 && kt->encoding == CD_KEY_BYTES)
		k->bytes = VARDATA_ANY(DatumGetPointer(detoasted));
	else
		k->bytes = DatumGetPointer(detoasted);
}

void
cd_mkey_keep(const CDKeyType *kt, CDMKey *k, MemoryContext mcxt)
{
	char	   *copy;

	if (kt->width > 0)
		return;
	/* MAXALIGNed, and room for a by-value image to be fetched */
	copy = MemoryContextAlloc(mcxt, Max(k->len, sizeof(Datum)));
	cd_varkey_write(kt, k->u.datum, copy);
	k->bytes = copy;
	if (kt->encoding == CD_KEY_COMPARATOR)
		k->u.datum = cd_varkey_image_datum(kt, copy);
	else
		k->u.datum = (Datum) 0;
}

void
cd_mkey_free(const CDKeyType *kt, CDMKey *k)
{
	if (kt->width > 0)
		return;
	pfree((char *) k->bytes);
	k->bytes = NULL;
}

Datum
cd_mkey_output_datum(const CDKeyType *kt, const CDMKey *k)
{
	if (kt->width > 0)
		return cd_key_decode(kt, k->u.fixed);
	return cd_varkey_output_datum(kt, k->bytes, k->len);
}
