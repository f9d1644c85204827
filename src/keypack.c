/*-------------------------------------------------------------------------
 *
 * keypack.c
 *	  Compact forms of sorted runs of keys (see keypack.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "errors.h"
#include "keypack.h"

/* the largest key of a width */
static inline uint64
max_key(int width)
{
	return width == 8 ? PG_UINT64_MAX : (UINT64CONST(1) << (8 * width)) - 1;
}

Size
cd_pack_fixed_size(CDKeyReader *r, int width, Size limit)
{
	uint64		block[CD_PACK_BLOCK];
	Size		size = 0;
	uint32		m;
	uint32		nblocks = 0;

	while (size <= limit && (m = r->next_fixed(r, block, CD_PACK_BLOCK)) > 0)
	{
		size += cd_pack_block_size(block, m, width);
		if ((++nblocks & 0x1FFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return size;
}

static inline void
send_key(StringInfo buf, uint64 key, int width)
{
	int			i;

	for (i = width - 1; i >= 0; i--)
		appendStringInfoCharMacro(buf, (char) (key >> (8 * i)));
}

void
cd_pack_fixed(StringInfo buf, CDKeyReader *r, int width)
{
	uint64		block[CD_PACK_BLOCK];
	uint32		m;
	uint32		nblocks = 0;

	while ((m = r->next_fixed(r, block, CD_PACK_BLOCK)) > 0)
	{
		uint64		prev = block[0];
		int			b;
		uint64		acc = 0;
		int			nacc = 0;
		uint32		i;

		send_key(buf, prev, width);
		if (m == 1)
			continue;
		b = cd_block_gap_bits(block, m);
		appendStringInfoCharMacro(buf, (char) b);
		enlargeStringInfo(buf, (int) (((Size) (m - 1) * b + 7) / 8));
		if (b <= 32)
		{
			/* fast path: whole 32-bit words of gaps at a time */
			uint8	   *out = (uint8 *) buf->data + buf->len;

			for (i = 1; i < m; i++)
			{
				uint64		k = block[i];

				acc |= (k - prev - 1) << nacc;
				prev = k;
				nacc += b;
				if (nacc >= 32)
				{
					out[0] = (uint8) acc;
					out[1] = (uint8) (acc >> 8);
					out[2] = (uint8) (acc >> 16);
					out[3] = (uint8) (acc >> 24);
					out += 4;
					acc >>= 32;
					nacc -= 32;
				}
			}
			for (; nacc > 0; nacc -= 8)
			{
				*out++ = (uint8) acc;
				acc >>= 8;
			}
			buf->len = (char *) out - buf->data;
			buf->data[buf->len] = '\0';
			continue;
		}
		for (i = 1; i < m; i++)
		{
			uint64		k = block[i];
			uint64		v = k - prev - 1;
			int			left = b;

			prev = k;
			/* append b bits of v, least significant first; nacc < 8 here */
			while (left > 0)
			{
				int			take = Min(left, 64 - nacc);

				acc |= (take == 64 ? v : (v & ((UINT64CONST(1) << take) - 1))) << nacc;
				v = take == 64 ? 0 : v >> take;
				left -= take;
				nacc += take;
				while (nacc >= 8)
				{
					buf->data[buf->len++] = (char) acc;
					acc = nacc == 8 ? 0 : acc >> 8;
					nacc -= 8;
				}
			}
		}
		if (nacc > 0)
			buf->data[buf->len++] = (char) acc;
		buf->data[buf->len] = '\0';
		if ((++nblocks & 0x1FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

void
cd_unpacker_init(CDUnpacker *u, const char *data, Size len,
				 const CDKeyType *kt, uint32 n)
{
	u->p = (const uint8 *) data;
	u->end = (const uint8 *) data + len;
	u->kt = kt;
	u->n = n;
	u->done = 0;
	u->last = 0;
}

uint32
cd_unpacker_next(CDUnpacker *u, uint64 *block)
{
	const CDKeyType *kt = u->kt;
	int			width = kt->width;
	uint64		limit = max_key(width);
	bool		check_canonical = (kt->encoding == CD_KEY_BOOL ||
								   kt->encoding == CD_KEY_FLOAT);
	const uint8 *p = u->p;
	const uint8 *end = u->end;
	uint32		start = u->done;
	uint64		last = u->last;
	uint32		m;

	if (start >= u->n)
		return 0;
	m = Min(CD_PACK_BLOCK, u->n - start);
	{
		uint64		key = 0;
		uint64		maxgap = 0;
		uint64		acc = 0;
		int			nacc = 0;
		int			b = 0;
		uint32		i;
		int			j;

		if (end - p < width + (m > 1 ? 1 : 0))
			cd_invalid_state("The keys run past the end of the value.");
		for (j = 0; j < width; j++)
			key = (key << 8) | *p++;
		if (start > 0 && key <= last)
			cd_invalid_state("The keys are not strictly increasing.");
		if (m > 1)
		{
			b = *p++;
			if (b > 64 || (Size) (end - p) < ((Size) (m - 1) * b + 7) / 8)
				cd_invalid_state("The keys run past the end of the value.");
		}
		block[0] = key;
		i = 1;
		if (m > 1 && b > 0 && b <= 56 &&
			(Size) (end - p) >= ((Size) (m - 1) * b + 7) / 8 + 8)
		{
			/*
			 * fast path: each gap with one unaligned 8-byte load, from the
			 * byte holding its first bit: it ends at most 7 bytes past the
			 * last byte of the gaps, still inside the state (checked)
			 */
			uint64		mask = (UINT64CONST(1) << b) - 1;
			Size		nbits = (Size) (m - 1) * b;
			Size		bitpos = 0;

			for (i = 1; i < m; i++, bitpos += b)
			{
				uint64		word;
				uint64		v;

				memcpy(&word, p + (bitpos >> 3), sizeof(word));
#ifdef WORDS_BIGENDIAN
				word = pg_bswap64(word);
#endif
				v = (word >> (bitpos & 7)) & mask;
				/* key + v + 1 must stay a key of this width */
				if (key == limit || v > limit - key - 1)
					cd_invalid_state("A key is out of range.");
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
				cd_invalid_state("A key is out of range.");
			key += v + 1;
			maxgap = Max(maxgap, v);
			block[i] = key;
		}
		/* canonical: the fewest bits, and zero padding */
		if (m > 1 && (cd_bit_width(maxgap) != b || acc != 0))
			cd_invalid_state("The keys are not packed canonically.");
		last = key;
		if (check_canonical)
		{
			for (i = 0; i < m; i++)
			{
				uint64		k = block[i];

				/* only keys the encoding produces (no -0.0, one NaN, ...) */
				if (cd_key_encode(kt, cd_key_decode(kt, k)) != k)
					cd_invalid_state("A key is not in canonical form.");
			}
		}
	}
	u->p = p;
	u->done = start + m;
	u->last = last;
	if ((start & 0xFFFF) == 0)
		CHECK_FOR_INTERRUPTS();
	return m;
}

void
cd_unpack_fixed(StringInfo buf, const CDKeyType *kt, uint32 n, CDKeyWriter *w)
{
	uint64		block[CD_PACK_BLOCK];
	CDUnpacker	u;
	uint32		m;

	cd_unpacker_init(&u, buf->data + buf->cursor, buf->len - buf->cursor, kt, n);
	while ((m = cd_unpacker_next(&u, block)) > 0)
		w->put_fixed(w, block, m);
	buf->cursor = (const char *) u.p - buf->data;
}

/*
 * A byte key's lengths: below 2^35 (keys are below 1 GB).  One byte, the
 * common case, without the general loop.
 */
static inline Size
recv_length(StringInfo buf)
{
	uint64		v;

	if (likely(buf->cursor < buf->len) &&
		(uint8) buf->data[buf->cursor] < 0x80)
		return (Size) (uint8) buf->data[buf->cursor++];
	if (!cd_recv_varint(buf, 35, &v))
		cd_invalid_state("A length is malformed.");
	return (Size) v;
}

Size
cd_pack_bytes_size(CDKeyReader *r)
{
	Size		len;
	Size		prevlen = 0;
	const char *prev = NULL;
	const char *key;
	Size		size = 0;

	while ((key = r->next_bytes(r, &len)) != NULL)
	{
		Size		shared = prev ? cd_common_prefix(prev, prevlen, key, len) : 0;

		size += cd_pack_bytes_key_size(len, shared);
		prev = key;
		prevlen = len;
	}
	return size;
}

Size
cd_pack_bytes_into(char *dst, Size room, CDKeyReader *r)
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

		if (cd_pack_bytes_key_size(len, shared) > room - w)
			elog(ERROR, "count_distinct: packed keys larger than their room of %zu bytes",
				 room);
		cd_put_varint(dst, &w, shared);
		cd_put_varint(dst, &w, len - shared);
		memcpy(dst + w, key + shared, len - shared);
		w += len - shared;
		prev = key;
		prevlen = len;
		if ((++i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return w;
}

void
cd_pack_bytes(StringInfo buf, CDKeyReader *r)
{
	buf->len += (int) cd_pack_bytes_into(buf->data + buf->len,
										 (Size) (buf->maxlen - buf->len - 1), r);
	buf->data[buf->len] = '\0';
}

/*
 * The key is built in a buffer of its own, on the one before, and lengths
 * of one byte are read without the general loop: a parallel leader's
 * reading of a worker's state of 3.3M uuid (one group of 10M, 2 workers)
 * took 60-170 ms with a StringInfo's appends, 30-45 ms so.
 */
void
cd_unpack_bytes(StringInfo buf, const CDKeyType *kt, uint32 n, CDKeyWriter *w)
{
	Size		room = 64;
	char	   *key = palloc(room);	/* the current key, built on the last */
	Size		len = 0;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		Size		shared = recv_length(buf);
		Size		rest = recv_length(buf);
		const char *bytes;

		if (shared > len || (i == 0 && shared > 0))
			cd_invalid_state("A key shares more than the previous key.");
		if (rest > (Size) (buf->len - buf->cursor))
			cd_invalid_state("A key runs past the end of the value.");
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
				cd_invalid_state("The keys are not strictly increasing.");
		}
		if (shared + rest > MaxAllocSize - VARHDRSZ - 1)
			cd_invalid_state("A key is too long.");
		if (unlikely(shared + rest > room))
		{
			room = Max(shared + rest, 2 * room);
			key = repalloc_huge(key, room);
		}
		memcpy(key + shared, bytes, rest);
		len = shared + rest;
		if (!cd_varkey_is_valid_after(kt, key, len, shared))
			cd_invalid_state("A value is not valid for its type.");
		w->put_bytes(w, key, len);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(key);
}
