/*-------------------------------------------------------------------------
 *
 * keypack.h
 *	  Compact forms of a sorted, duplicate-free stream of keys (keystream.h),
 *	  for serialized states (serialize.c) and anything else that stores
 *	  keys.
 *
 * Fixed-width keys: blocks of up to CD_PACK_BLOCK keys, each the block's
 * first key in full (big-endian), then, if the block has more keys, one
 * byte b and the gaps to the previous key minus one, b bits each,
 * least-significant bit first (frame of reference; b is the fewest bits
 * that hold the block's largest gap, so dense or clustered keys take a few
 * bits, or none).
 *
 * Byte keys (CD_KEY_BYTES): each key as the length of the prefix it
 * shares with the previous key and the length of the rest (LEB128 varints),
 * then the rest.
 *
 * Both forms are canonical (one form per run of keys), so decoding checks
 * that the input is exactly what the encoder would write; keys come out
 * strictly increasing by construction.  Decoding trusts nothing: every
 * count and length is checked against the bytes left.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEYPACK_H
#define CD_KEYPACK_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "port/pg_bitutils.h"

#include "key.h"
#include "keystream.h"

#define CD_PACK_BLOCK	CD_KEY_BATCH

/*
 * LEB128 varints, as the byte-key form writes lengths (and stored sets their
 * run lengths): 7 bits a byte, least significant first, high bit set on all
 * but the last byte; canonical (the shortest form).
 */
static inline Size
cd_varint_size(uint64 v)
{
	/* 7 bits a byte: the bits of v (at least 1), rounded up */
	return (Size) pg_leftmost_one_pos64(v | 1) / 7 + 1;
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

/* The same, into dst at *w (which moves past it); the room is the caller's. */
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

/*
 * Read a varint of at most maxbits bits (up to 64) at buf's cursor into *v;
 * false (the cursor then undefined) if it runs past the end, has more bits
 * or is not in the shortest form.
 */
static inline bool
cd_recv_varint(StringInfo buf, int maxbits, uint64 *v)
{
	uint64		r = 0;
	int			shift = 0;

	for (;;)
	{
		uint8		c;

		if (buf->cursor >= buf->len || shift >= maxbits)
			return false;
		c = (uint8) buf->data[buf->cursor++];
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

/* Bytes of a byte key of len bytes that shares shared with the one before. */
static inline Size
cd_pack_bytes_key_size(Size len, Size shared)
{
	return cd_varint_size(shared) + cd_varint_size(len - shared) + len - shared;
}

/* The length of the prefix byte keys a and b share. */
static inline Size
cd_common_prefix(const char *a, Size alen, const char *b, Size blen)
{
	return cd_bytes_common_prefix(a, alen, b, blen, 0);
}

/* bits needed for v (0 for 0) */
static inline int
cd_bit_width(uint64 v)
{
	return v == 0 ? 0 : pg_leftmost_one_pos64(v) + 1;
}

/*
 * The bits that the largest gap (minus one) between consecutive keys of a
 * block takes: those of all the gaps ORed, which has the same highest bit and
 * needs no comparison per key (the loop vectorizes).
 */
static inline int
cd_block_gap_bits(const uint64 *keys, uint32 m)
{
	uint64		gaps = 0;
	uint32		i;

	for (i = 1; i < m; i++)
		gaps |= keys[i] - keys[i - 1] - 1;
	return cd_bit_width(gaps);
}

/* Bytes of one block of m (1 .. CD_PACK_BLOCK) fixed-width keys, packed. */
static inline Size
cd_pack_block_size(const uint64 *keys, uint32 m, int width)
{
	if (m == 1)
		return width;
	return width + 1 + ((Size) (m - 1) * cd_block_gap_bits(keys, m) + 7) / 8;
}

/*
 * Bytes that cd_pack_fixed / cd_pack_bytes will write for the keys of r
 * (cd_pack_fixed_size stops counting once past limit).  Both read r to its
 * end.
 */
extern Size cd_pack_fixed_size(CDKeyReader *r, int width, Size limit);
extern Size cd_pack_bytes_size(CDKeyReader *r);

/*
 * Append the packed keys of r (strictly increasing) to buf.  cd_pack_bytes
 * needs the room already there (enlargeStringInfo by cd_pack_bytes_size).
 */
extern void cd_pack_fixed(StringInfo buf, CDKeyReader *r, int width);
extern void cd_pack_bytes(StringInfo buf, CDKeyReader *r);

/*
 * Write the packed byte keys of r (strictly increasing) to dst, which has
 * room for room bytes (ERROR rather than past them); returns the bytes
 * written.  Without a StringInfo: into memory of the exact size, such as a
 * tuple's (state_object.h).
 */
extern Size cd_pack_bytes_into(char *dst, Size room, CDKeyReader *r);

/*
 * Decode n packed keys of kt from buf into w; ERROR (invalid state) on
 * anything that is not exactly what the encoder writes.
 */
extern void cd_unpack_fixed(StringInfo buf, const CDKeyType *kt, uint32 n,
							CDKeyWriter *w);
extern void cd_unpack_bytes(StringInfo buf, const CDKeyType *kt, uint32 n,
							CDKeyWriter *w);

/*
 * The same decoding of n packed fixed-width keys, a block at a time, from
 * the len bytes at data: cd_unpacker_next puts the next block's keys (up to
 * CD_PACK_BLOCK) into block and returns how many, 0 after the last; ERROR
 * as cd_unpack_fixed.  After the last block, u->p is past the keys' bytes.
 */
typedef struct CDUnpacker
{
	const uint8 *p;				/* the next block's bytes */
	const uint8 *end;
	const CDKeyType *kt;
	uint32		n;				/* keys in all */
	uint32		done;			/* keys decoded so far */
	uint64		last;			/* the last of them */
} CDUnpacker;

extern void cd_unpacker_init(CDUnpacker *u, const char *data, Size len,
							 const CDKeyType *kt, uint32 n);
extern uint32 cd_unpacker_next(CDUnpacker *u, uint64 *block);

#endif							/* CD_KEYPACK_H */
