/*-------------------------------------------------------------------------
 *
 * keypack.h
 *	  Compact forms of a sorted, duplicate-free run of keys, for serialized
 *	  states (serialize.c).
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

#include "set.h"

#define CD_PACK_BLOCK	128

/*
 * Bytes that cd_pack_fixed / cd_pack_bytes will write for the first n keys
 * (cd_pack_fixed_size stops counting once past limit).
 */
extern Size cd_pack_fixed_size(const CDSet *set, uint32 n, Size limit);
extern Size cd_pack_bytes_size(const CDVarSet *set);

/* Append the packed keys of set (compacted, n = its keys) to buf. */
extern void cd_pack_fixed(StringInfo buf, const CDSet *set, uint32 n);
extern void cd_pack_bytes(StringInfo buf, const CDVarSet *set);

/*
 * Decode n packed keys from buf into set (empty, room for n fixed-width
 * keys; a CDVarSet grows as needed, so use the set cd_unpack_bytes
 * returns); ERROR on anything that is not exactly what the encoder writes.
 */
extern void cd_unpack_fixed(StringInfo buf, CDSet *set, uint32 n);
extern CDVarSet *cd_unpack_bytes(StringInfo buf, CDVarSet *set, uint32 n);

#endif							/* CD_KEYPACK_H */
