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

#include "key.h"
#include "keystream.h"

#define CD_PACK_BLOCK	CD_KEY_BATCH

/*
 * Bytes that cd_pack_fixed / cd_pack_bytes will write for the keys of r
 * (cd_pack_fixed_size stops counting once past limit).  Both read r to its
 * end.
 */
extern Size cd_pack_fixed_size(CDKeyReader *r, int width, Size limit);
extern Size cd_pack_bytes_size(CDKeyReader *r);

/* Append the packed keys of r (strictly increasing) to buf. */
extern void cd_pack_fixed(StringInfo buf, CDKeyReader *r, int width);
extern void cd_pack_bytes(StringInfo buf, CDKeyReader *r);

/*
 * Decode n packed keys of kt from buf into w; ERROR (invalid state) on
 * anything that is not exactly what the encoder writes.
 */
extern void cd_unpack_fixed(StringInfo buf, const CDKeyType *kt, uint32 n,
							CDKeyWriter *w);
extern void cd_unpack_bytes(StringInfo buf, const CDKeyType *kt, uint32 n,
							CDKeyWriter *w);

#endif							/* CD_KEYPACK_H */
