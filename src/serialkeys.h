/*-------------------------------------------------------------------------
 *
 * serialkeys.h
 *	  A sorted, duplicate-free stream of keys (keystream.h) in its
 *	  serialized form and back, for serialized states (serialize.c) and
 *	  stored sets (dset_keys.c): fixed-width keys as blocks
 *	  (blockcodec.h), byte keys (CD_KEY_BYTES) front-coded (frontcode.h).
 *
 * Both forms are canonical (one form per run of keys), so decoding checks
 * that the input is exactly what the encoder would write; keys come out
 * strictly increasing by construction.  Decoding trusts nothing: every
 * count and length is checked against the bytes left, and errors name
 * what is decoded (CD_WHAT_STATE, CD_WHAT_DSET: errors.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_SERIALKEYS_H
#define CD_SERIALKEYS_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "blockcodec.h"
#include "frontcode.h"
#include "key.h"
#include "keystream.h"

/*
 * Bytes that cd_serial_write_fixed / cd_serial_write_bytes will write for
 * the keys of r (cd_serial_fixed_size stops counting once past limit).  Both
 * read r to its end.
 */
extern Size cd_serial_fixed_size(CDKeyReader *r, int width, Size limit);

static inline Size
cd_serial_bytes_size(CDKeyReader *r)
{
	return cd_front_encoded_size(r);
}

/*
 * Append the serialized keys of r (strictly increasing) to buf.
 * cd_serial_write_bytes needs the room already there (enlargeStringInfo by
 * cd_serial_bytes_size).
 */
extern void cd_serial_write_fixed(StringInfo buf, CDKeyReader *r, int width);
extern void cd_serial_write_bytes(StringInfo buf, CDKeyReader *r);

/*
 * Decode n serialized keys of kt from buf into w; ERROR (invalid what) on
 * anything that is not exactly what the encoder writes.
 */
extern void cd_serial_read_fixed(StringInfo buf, const CDKeyType *kt,
								 uint32 n, CDKeyWriter *w, const char *what);

static inline void
cd_serial_read_bytes(StringInfo buf, const CDKeyType *kt, uint32 n,
					 CDKeyWriter *w, const char *what)
{
	cd_front_decode_checked(buf, kt, n, w, what);
}

#endif							/* CD_SERIALKEYS_H */
