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
#include "errors.h"
#include "key_moving.h"

Size
cd_mkey_bytes_size(const CDKeyType *kt, Datum value, Datum *detoasted)
{
	Size		len = cd_varkey_size(kt, value, detoasted);

	if (len > MaxAllocSize)
		cd_error_value_too_large(len);
	return len;
}

void
cd_mkey_from_value(const CDKeyType *kt, Datum value, CDMKey *k)
{
	Datum		detoasted;

	Assert(kt->encoding == CD_KEY_COMPARATOR);

	/*
	 * The comparator gets a value with a 4-byte header, as the kept image
	 * has (a short header would be expanded by every comparison).
	 */
	if (kt->typlen == -1)
		value = PointerGetDatum(PG_DETOAST_DATUM(value));
	k->len = cd_varkey_size(kt, value, &detoasted);
	if (k->len > MaxAllocSize)
		cd_error_value_too_large(k->len);
	k->datum = detoasted;
	k->bytes = NULL;
}

void
cd_mkey_keep(const CDKeyType *kt, CDMKey *k, MemoryContext mcxt)
{
	/* MAXALIGNed, and room for a by-value image to be fetched */
	char	   *copy = MemoryContextAlloc(mcxt, Max(k->len, sizeof(Datum)));

	cd_varkey_write(kt, k->datum, copy);
	k->bytes = copy;
	k->datum = cd_varkey_image_datum(kt, copy);
}

void
cd_mkey_free(const CDKeyType *kt, CDMKey *k)
{
	pfree((char *) k->bytes);
	k->bytes = NULL;
}

Datum
cd_mkey_output_datum(const CDKeyType *kt, const CDMKey *k)
{
	return cd_varkey_output_datum(kt, k->bytes, k->len);
}
