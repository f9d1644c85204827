/*-------------------------------------------------------------------------
 *
 * frontcode.c
 *	  Front coding of byte keys: sizing, encoding a stream and the
 *	  validating decoder (see frontcode.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "errors.h"
#include "frontcode.h"

Size
cd_front_encoded_size(CDKeyReader *r)
{
	Size		len;
	Size		prevlen = 0;
	const char *prev = NULL;
	const char *key;
	Size		size = 0;

	while ((key = r->next_bytes(r, &len)) != NULL)
	{
		Size		shared = prev ? cd_common_prefix(prev, prevlen, key, len) : 0;

		size += cd_front_key_size(len, shared);
		prev = key;
		prevlen = len;
	}
	return size;
}

Size
cd_front_encode(char *dst, Size room, CDKeyReader *r)
{
	Size		len;
	Size		prevlen = 0;
	const char *prev = NULL;
	const char *key;
	Size		w = 0;
	uint32		i = 0;

	while ((key = r->next_bytes(r, &len)) != NULL)
	{
		Size		shared = prev ? cd_common_prefix(prev, prevlen, key, len) : 0;

		if (cd_front_key_size(len, shared) > room - w)
			elog(ERROR, "count_distinct: packed keys larger than their room of %zu bytes",
				 room);
		cd_front_put_key(dst, &w, key, len, shared);
		prev = key;
		prevlen = len;
		if ((++i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return w;
}

/*
 * A key's lengths: below 2^35 (keys are below 1 GB).  One byte, the
 * common case, without the general loop.
 */
static inline Size
recv_length(StringInfo buf, const char *what)
{
	uint64		v;

	if (likely(buf->cursor < buf->len) &&
		(uint8) buf->data[buf->cursor] < 0x80)
		return (Size) (uint8) buf->data[buf->cursor++];
	if (!cd_recv_varint(buf, 35, &v))
		cd_invalid(what, "A length is malformed.");
	return (Size) v;
}

/*
 * The key is built in a buffer of its own, on the one before, and lengths
 * of one byte are read without the general loop.
 */
void
cd_front_decode_checked(StringInfo buf, const CDKeyType *kt, uint32 n,
						CDKeyWriter *w, const char *what)
{
	Size		room = 64;
	char	   *key = palloc(room);	/* the current key, built on the last */
	Size		len = 0;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		Size		shared = recv_length(buf, what);
		Size		rest = recv_length(buf, what);
		const char *bytes;

		if (shared > len || (i == 0 && shared > 0))
			cd_invalid(what, "A key shares more than the previous key.");
		if (rest > (Size) (buf->len - buf->cursor))
			cd_invalid(what, "A key runs past the end of the value.");
		bytes = buf->data + buf->cursor;
		buf->cursor += rest;

		/*
		 * Strictly increasing, and the shared prefix is the longest: after
		 * it, the key is longer (shared = previous length) or its next byte
		 * is greater.
		 */
		if (i > 0)
		{
			if (shared == len ? rest == 0 :
				(rest == 0 || (uint8) bytes[0] <= (uint8) key[shared]))
				cd_invalid(what, "The keys are not strictly increasing.");
		}
		if (shared + rest > MaxAllocSize - VARHDRSZ - 1)
			cd_invalid(what, "A key is too long.");
		if (unlikely(shared + rest > room))
		{
			room = Max(shared + rest, 2 * room);
			key = repalloc_huge(key, room);
		}
		memcpy(key + shared, bytes, rest);
		len = shared + rest;
		if (!cd_varkey_is_valid_after(kt, key, len, shared))
			cd_invalid(what, "A value is not valid for its type.");
		w->put_bytes(w, key, len);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(key);
}
