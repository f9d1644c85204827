/*-------------------------------------------------------------------------
 *
 * varint.h
 *	  The one codec of varints: LEB128, 7 bits a byte, least significant
 *	  first, high bit set on all but the last byte; canonical (the shortest
 *	  form).  Front coding writes its lengths so (frontcode.h), stored sets
 *	  their runs (dset.h).
 *
 * Two modes of reading: cd_varint_get trusts its bytes (our own memory);
 * cd_varint_read checks every byte against the end, the bits against a
 * bound and the form.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_VARINT_H
#define CD_VARINT_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "port/pg_bitutils.h"

static inline Size
cd_varint_size(uint64 v)
{
	/* 7 bits a byte: the bits of v (at least 1), rounded up */
	return (Size) pg_leftmost_one_pos64(v | 1) / 7 + 1;
}

/* v into dst at *w (which moves past it); the room is the caller's */
static inline void
cd_put_varint(char *dst, Size *w, uint64 v)
{
	while (v >= 0x80)
	{
		dst[(*w)++] = (char) (0x80 | (v & 0x7F));
		v >>= 7;
	}
	dst[(*w)++] = (char) v;
}

static inline void
cd_send_varint(StringInfo buf, uint64 v)
{
	while (v >= 0x80)
	{
		appendStringInfoCharMacro(buf, (char) (0x80 | (v & 0x7F)));
		v >>= 7;
	}
	appendStringInfoCharMacro(buf, (char) v);
}

/* Trusting: the varint at src + *pos (which moves past it). */
static inline uint64
cd_varint_get(const char *src, Size *pos)
{
	uint64		v = 0;
	int			shift = 0;
	uint8		c;

	do
	{
		c = (uint8) src[(*pos)++];
		v |= (uint64) (c & 0x7F) << shift;
		shift += 7;
	} while (c & 0x80);
	return v;
}

/*
 * Validating: a varint of at most maxbits bits (up to 64) at src + *pos,
 * before end, into *v; *pos moves past it.  False (*pos then undefined) if
 * it runs past the end, has more bits or is not in the shortest form.
 */
static inline bool
cd_varint_read(const char *src, Size *pos, Size end, int maxbits, uint64 *v)
{
	uint64		r = 0;
	int			shift = 0;

	/* one byte, the common case (every bound here is at least 7 bits) */
	Assert(maxbits >= 7);
	if (likely(*pos < end) && (uint8) src[*pos] < 0x80)
	{
		*v = (uint8) src[(*pos)++];
		return true;
	}
	for (;;)
	{
		uint8		c;

		if (*pos >= end || shift >= maxbits)
			return false;
		c = (uint8) src[(*pos)++];
		if (maxbits - shift < 7 && ((c & 0x7F) >> (maxbits - shift)) != 0)
			return false;
		r |= (uint64) (c & 0x7F) << shift;
		if ((c & 0x80) == 0)
		{
			*v = r;
			return !(c == 0 && shift > 0);
		}
		shift += 7;
	}
}

/* The same at buf's cursor. */
static inline bool
cd_recv_varint(StringInfo buf, int maxbits, uint64 *v)
{
	Size		pos = buf->cursor;
	bool		ok = cd_varint_read(buf->data, &pos, buf->len, maxbits, v);

	buf->cursor = (int) pos;
	return ok;
}

#endif							/* CD_VARINT_H */
