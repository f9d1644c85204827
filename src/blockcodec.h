/*-------------------------------------------------------------------------
 *
 * blockcodec.h
 *	  The one codec of blocks: up to CD_BLOCK_KEYS strictly increasing
 *	  fixed-width keys as their first key and the gaps between them.
 *
 * A block of m keys is its first key, then, if m > 1, one byte b and the
 * m - 1 gaps to the previous key minus one, b bits each, least-significant
 * bit first, in (m - 1) * b bits rounded up to whole bytes with zero
 * padding (frame of reference).  b is the fewest bits that hold the
 * block's largest gap, so dense or clustered keys take a few bits, or none
 * (b = 0: a block of consecutive keys).
 *
 * Where the first key goes is the container's: a packed set keeps it in
 * its index (packedset.h) and writes b even for a block of one key;
 * serialized states and stored sets write it in full, big-endian, before b
 * (cd_block_read_head, cd_block_write).
 *
 * Two modes of decoding:
 * - trusting (cd_block_decode_gaps): for our own memory, or bytes whose
 *   bounds the caller has checked; no check of the keys, whole 8-byte loads
 *   where the bytes allow;
 * - validating (cd_block_decode_checked): for untrusted bytes; every bound
 *   checked, keys within their width, the form canonical (the fewest bits,
 *   zero padding), keys strictly increasing from the previous block's.
 *   Errors name what is decoded (errors.h: cd_invalid).
 *
 * Encoding stores whole 8-byte words: the caller leaves CD_BLOCK_SLACK
 * bytes of room past the gaps.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_BLOCKCODEC_H
#define CD_BLOCKCODEC_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"

#include "key.h"
#include "keystream.h"

/* keys per block (one batch of a key stream) */
#define CD_BLOCK_KEYS	CD_KEY_BATCH

/* bytes an encoder may store, and a trusting decoder load, past the gaps */
#define CD_BLOCK_SLACK	16

/* the most bytes of one block's b and gaps: b, then 127 gaps of 64 bits */
#define CD_BLOCK_GAPS_MAX	(1 + (CD_BLOCK_KEYS - 1) * 8)

/* bits needed for v (0 for 0) */
static inline int
cd_bit_width(uint64 v)
{
	return v == 0 ? 0 : pg_leftmost_one_pos64(v) + 1;
}

/* the largest key of width bytes */
static inline uint64
cd_width_max_key(int width)
{
	return width == 8 ? PG_UINT64_MAX : (UINT64CONST(1) << (8 * width)) - 1;
}

static inline uint64
cd_load64(const uint8 *p)
{
	uint64		w;

	memcpy(&w, p, sizeof(w));
#ifdef WORDS_BIGENDIAN
	w = pg_bswap64(w);
#endif
	return w;
}

static inline void
cd_store64(uint8 *p, uint64 w)
{
#ifdef WORDS_BIGENDIAN
	w = pg_bswap64(w);
#endif
	memcpy(p, &w, sizeof(w));
}

/* bytes of the gaps of a block of m keys, b bits each */
static inline Size
cd_block_gaps_size(uint32 m, int b)
{
	return ((Size) (m - 1) * b + 7) / 8;
}

/*
 * The gaps (minus one) of m keys into gap[0 .. m - 2], and b: the width of
 * the largest, which is that of all of them or-ed together (a loop without
 * comparisons, which the compiler vectorizes).
 */
static inline int
cd_block_gaps(const uint64 *keys, uint32 m, uint64 *gap)
{
	uint64		gaps = 0;
	uint32		i;

	for (i = 1; i < m; i++)
	{
		gap[i - 1] = keys[i] - keys[i - 1] - 1;
		gaps |= gap[i - 1];
	}
	return cd_bit_width(gaps);
}

/* b of a block of m keys, without keeping the gaps */
static inline int
cd_block_gap_bits(const uint64 *keys, uint32 m)
{
	uint64		gaps = 0;
	uint32		i;

	for (i = 1; i < m; i++)
		gaps |= keys[i] - keys[i - 1] - 1;
	return cd_bit_width(gaps);
}

/*
 * Bytes of one block of m (1 .. CD_BLOCK_KEYS) keys of width bytes with
 * its first key in full (the serialized form).
 */
static inline Size
cd_block_size(const uint64 *keys, uint32 m, int width)
{
	if (m == 1)
		return width;
	return width + 1 + cd_block_gaps_size(m, cd_block_gap_bits(keys, m));
}

/*
 * Write ngaps gaps of b bits (b > 0) at p; returns the end of their bytes.
 * Up to 8 bytes past it are overwritten (CD_BLOCK_SLACK).
 */
static inline uint8 *
cd_block_encode_gaps(uint8 *p, const uint64 *gap, uint32 ngaps, int b)
{
	uint64		acc = 0;		/* bits not stored yet */
	int			nacc = 0;
	uint32		i = 0;

/* add the w low bits of v to the stream */
#define CD_PUT_BITS(v, w) \
	do { \
		acc |= (v) << nacc; \
		nacc += (w); \
		if (nacc >= 64) \
		{ \
			cd_store64(p, acc); \
			p += 8; \
			nacc -= 64; \
			/* the bits of v that did not fit (none if nacc is 0) */ \
			acc = ((v) >> 1) >> ((w) - 1 - nacc); \
		} \
	} while (0)

	Assert(b > 0);
	if (2 * b <= 64)
	{
		/* two gaps at a time (the common case: int4 keys) */
		for (; i + 1 < ngaps; i += 2)
		{
			uint64		v = gap[i] | gap[i + 1] << b;

			CD_PUT_BITS(v, 2 * b);
		}
	}
	for (; i < ngaps; i++)
		CD_PUT_BITS(gap[i], b);
#undef CD_PUT_BITS
	/* the last bits, in whole bytes (the word may overrun: slack) */
	cd_store64(p, acc);
	return p + (nacc + 7) / 8;
}

/*
 * The gap of b bits at bit bitpos of gaps, read byte by byte (no byte
 * past the gap's last is read).
 */
static inline uint64
cd_block_gap_at(const uint8 *gaps, Size bitpos, int b)
{
	uint64		v = 0;
	int			got = 0;

	while (got < b)
	{
		int			off = bitpos & 7;
		int			take = Min(8 - off, b - got);

		v |= (uint64) ((gaps[bitpos >> 3] >> off) & ((1 << take) - 1)) << got;
		got += take;
		bitpos += take;
	}
	return v;
}

/*
 * Trusting decoding: the m keys of a block whose first key is first and
 * whose m - 1 gaps of b bits are at gaps, into out.  avail is the bytes
 * readable from gaps: with the gaps' bytes and CD_BLOCK_SLACK more (our
 * own memory), each gap comes from one 8-byte load (two gaps for b <= 28);
 * with fewer, the gaps are read byte by byte.  Keys are not checked: the
 * caller knows the bytes are an encoder's, or checks the keys itself.
 */
static inline void
cd_block_decode_gaps(const uint8 *gaps, Size avail, int b, uint32 m,
					 uint64 first, uint64 *out)
{
	uint64		key = first;
	Size		bitpos = 0;
	uint32		i;

	out[0] = key;
	if (b == 0)
	{
		/* consecutive keys */
		for (i = 1; i < m; i++)
			out[i] = key + i;
		return;
	}
	if (unlikely(avail < cd_block_gaps_size(m, b) + 9))
	{
		for (i = 1; i < m; i++, bitpos += b)
		{
			key += cd_block_gap_at(gaps, bitpos, b) + 1;
			out[i] = key;
		}
		return;
	}
	if (b <= 56)
	{
		uint64		mask = (UINT64CONST(1) << b) - 1;

		i = 1;
		if (b <= 28)
		{
			/* two gaps from each load (the common case: int4 keys) */
			for (; i + 1 < m; i += 2, bitpos += 2 * b)
			{
				uint64		w = cd_load64(gaps + (bitpos >> 3)) >> (bitpos & 7);

				key += (w & mask) + 1;
				out[i] = key;
				key += ((w >> b) & mask) + 1;
				out[i + 1] = key;
			}
		}
		for (; i < m; i++, bitpos += b)
		{
			key += ((cd_load64(gaps + (bitpos >> 3)) >> (bitpos & 7)) & mask) + 1;
			out[i] = key;
		}
	}
	else
	{
		uint64		mask = b == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << b) - 1;

		for (i = 1; i < m; i++, bitpos += b)
		{
			int			shift = bitpos & 7;
			uint64		v = cd_load64(gaps + (bitpos >> 3)) >> shift;

			if (shift + b > 64)
				v |= (uint64) gaps[(bitpos >> 3) + 8] << (64 - shift);
			key += (v & mask) + 1;
			out[i] = key;
		}
	}
}

/*
 * The serialized form's head of a block of m keys at p (end: the end of
 * the bytes): its first key, b and where its gaps start; returns the end
 * of the block.  Bounds and b are checked (ERROR naming what), not the
 * gaps.
 */
extern const uint8 *cd_block_read_head(const uint8 *p, const uint8 *end,
									   int width, uint32 m, uint64 *first,
									   int *b, const uint8 **gaps,
									   const char *what);

/*
 * Append the serialized form of the m keys (1 .. CD_BLOCK_KEYS, strictly
 * increasing) to buf.
 */
extern void cd_block_write(StringInfo buf, const uint64 *keys, uint32 m,
						   int width);

/*
 * Validating decoding of the serialized form, a block at a time: n keys of
 * kt from the len bytes at data.  cd_block_decoder_next puts the next
 * block's keys (up to CD_BLOCK_KEYS) into block and returns how many, 0
 * after the last; ERROR (invalid what) on anything that is not exactly
 * what cd_block_write writes, or a key kt does not produce.  After the last
 * block, d->p is past the keys' bytes.
 */
typedef struct CDBlockDecoder
{
	const uint8 *p;				/* the next block's bytes */
	const uint8 *end;
	const CDKeyType *kt;
	const char *what;			/* what is decoded, for errors */
	uint32		n;				/* keys in all */
	uint32		done;			/* keys decoded so far */
	uint64		last;			/* the last of them */
} CDBlockDecoder;

extern void cd_block_decoder_init(CDBlockDecoder *d, const char *data,
								  Size len, const CDKeyType *kt, uint32 n,
								  const char *what);
extern uint32 cd_block_decoder_next(CDBlockDecoder *d, uint64 *block);

#endif							/* CD_BLOCKCODEC_H */
