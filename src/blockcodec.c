/*-------------------------------------------------------------------------
 *
 * blockcodec.c
 *	  Blocks of fixed-width keys: the serialized form's writer and its
 *	  validating decoder (see blockcodec.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "blockcodec.h"
#include "errors.h"

const uint8 *
cd_block_read_head(const uint8 *p, const uint8 *end, int width, uint32 m,
				   uint64 *first, int *b, const uint8 **gaps,
				   const char *what)
{
	if (end - p < width)
		cd_invalid(what, "The keys run past the end of the value.");
	*first = cd_key_read_be(p, width);
	p += width;
	*b = 0;
	*gaps = p;
	if (m > 1)
	{
		Size		bytes;

		if (p >= end)
			cd_invalid(what, "The keys run past the end of the value.");
		*b = *p++;
		bytes = cd_block_gaps_size(m, *b);
		if (*b > 64 || (Size) (end - p) < bytes)
			cd_invalid(what, "The keys run past the end of the value.");
		*gaps = p;
		p += bytes;
	}
	return p;
}

void
cd_block_write(StringInfo buf, const uint64 *keys, uint32 m, int width)
{
	uint64		gap[CD_BLOCK_KEYS];
	uint8	   *p;
	int			b;
	int			i;

	Assert(m >= 1 && m <= CD_BLOCK_KEYS);
	enlargeStringInfo(buf, width + 1);
	for (i = width - 1; i >= 0; i--)
		buf->data[buf->len++] = (char) (keys[0] >> (8 * i));
	if (m > 1)
	{
		b = cd_block_gaps(keys, m, gap);
		buf->data[buf->len++] = (char) b;
		if (b > 0)
		{
			enlargeStringInfo(buf, (int) (cd_block_gaps_size(m, b) + CD_BLOCK_SLACK));
			p = cd_block_encode_gaps((uint8 *) buf->data + buf->len, gap, m - 1, b);
			buf->len = (char *) p - buf->data;
		}
	}
	buf->data[buf->len] = '\0';
}

void
cd_block_decoder_init(CDBlockDecoder *d, const char *data, Size len,
					  const CDKeyType *kt, uint32 n, const char *what)
{
	d->p = (const uint8 *) data;
	d->end = (const uint8 *) data + len;
	d->kt = kt;
	d->what = what;
	d->n = n;
	d->done = 0;
	d->last = 0;
}

uint32
cd_block_decoder_next(CDBlockDecoder *d, uint64 *block)
{
	const CDKeyType *kt = d->kt;
	const char *what = d->what;
	int			width = kt->width;
	uint64		limit = cd_width_max_key(width);
	bool		check_canonical = (kt->encoding == CD_KEY_BOOL ||
								   kt->encoding == CD_KEY_FLOAT);
	const uint8 *p = d->p;
	const uint8 *end = d->end;
	uint32		start = d->done;
	uint64		key = 0;
	uint64		maxgap = 0;
	uint64		acc = 0;
	int			nacc = 0;
	int			b = 0;
	uint32		m;
	uint32		i;
	int			j;

	if (start >= d->n)
		return 0;
	m = Min(CD_BLOCK_KEYS, d->n - start);
	if (end - p < width + (m > 1 ? 1 : 0))
		cd_invalid(what, "The keys run past the end of the value.");
	for (j = 0; j < width; j++)
		key = (key << 8) | *p++;
	if (start > 0 && key <= d->last)
		cd_invalid(what, "The keys are not strictly increasing.");
	if (m > 1)
	{
		b = *p++;
		if (b > 64 || (Size) (end - p) < cd_block_gaps_size(m, b))
			cd_invalid(what, "The keys run past the end of the value.");
	}
	block[0] = key;
	i = 1;
	if (m > 1 && b > 0 && b <= 56 &&
		(Size) (end - p) >= cd_block_gaps_size(m, b) + 8)
	{
		/*
		 * fast path: each gap with one unaligned 8-byte load, from the byte
		 * holding its first bit: it ends at most 7 bytes past the last byte
		 * of the gaps, still inside the value (checked)
		 */
		uint64		mask = (UINT64CONST(1) << b) - 1;
		Size		nbits = (Size) (m - 1) * b;
		Size		bitpos = 0;

		for (i = 1; i < m; i++, bitpos += b)
		{
			uint64		v = (cd_load64(p + (bitpos >> 3)) >> (bitpos & 7)) & mask;

			/* key + v + 1 must stay a key of this width */
			if (key == limit || v > limit - key - 1)
				cd_invalid(what, "A key is out of range.");
			key += v + 1;
			maxgap = Max(maxgap, v);
			block[i] = key;
		}
		p += (nbits + 7) / 8;
		/* the padding bits of the last byte */
		if (nbits % 8 != 0)
			acc = p[-1] >> (nbits % 8);
		i = m;
	}
	for (; i < m; i++)
	{
		uint64		v = 0;
		int			got = 0;

		while (got < b)
		{
			int			take;

			if (nacc == 0)
			{
				acc = *p++;
				nacc = 8;
			}
			take = Min(b - got, nacc);
			v |= (acc & ((1U << take) - 1)) << got;
			acc >>= take;
			nacc -= take;
			got += take;
		}
		/* key + v + 1 must stay a key of this width */
		if (key == limit || v > limit - key - 1)
			cd_invalid(what, "A key is out of range.");
		key += v + 1;
		maxgap = Max(maxgap, v);
		block[i] = key;
	}
	/* canonical: the fewest bits, and zero padding */
	if (m > 1 && (cd_bit_width(maxgap) != b || acc != 0))
		cd_invalid(what, "The keys are not packed canonically.");
	if (check_canonical)
	{
		for (i = 0; i < m; i++)
		{
			uint64		k = block[i];

			/* only keys the encoding produces (no -0.0, one NaN, ...) */
			if (cd_key_encode(kt, cd_key_decode(kt, k)) != k)
				cd_invalid(what, "A key is not in canonical form.");
		}
	}
	d->p = p;
	d->done = start + m;
	d->last = key;
	if ((start & 0xFFFF) == 0)
		CHECK_FOR_INTERRUPTS();
	return m;
}
