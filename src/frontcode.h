/*-------------------------------------------------------------------------
 *
 * frontcode.h
 *	  The one codec of front coding: a sorted array of byte keys, each as
 *	  the length of the prefix it shares with the previous key and the
 *	  length of the rest (varints, varint.h), then the rest.
 *
 * The form is canonical (one form per array of keys: the shared prefix is
 * the longest).  Front-coded sets keep their sorted part so (frontset.h),
 * serialized states and stored sets their byte keys (serialkeys.h).
 *
 * Two modes of decoding:
 * - trusting (CDFrontDecoder): our own memory; no check;
 * - validating (cd_front_decode_checked): untrusted bytes; every length
 *   against the bytes left, the form canonical, keys strictly increasing
 *   and valid for their type.  Errors name what is decoded (errors.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_FRONTCODE_H
#define CD_FRONTCODE_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "alloc.h"
#include "key.h"
#include "keystream.h"
#include "varint.h"

/* The length of the prefix byte keys a and b share. */
static inline Size
cd_common_prefix(const char *a, Size alen, const char *b, Size blen)
{
	return cd_bytes_common_prefix(a, alen, b, blen, 0);
}

/* Bytes of a key of len bytes that shares shared with the one before. */
static inline Size
cd_front_key_size(Size len, Size shared)
{
	return cd_varint_size(shared) + cd_varint_size(len - shared) + len - shared;
}

/* The most bytes a key of len bytes takes, whatever it shares. */
static inline Size
cd_front_key_bound(Size len)
{
	return 2 * cd_varint_size(len) + len;
}

/* Write key (len bytes), which shares shared bytes with the last one. */
static inline void
cd_front_put_key(char *dst, Size *w, const char *key, Size len, Size shared)
{
	cd_put_varint(dst, w, shared);
	cd_put_varint(dst, w, len - shared);
	memcpy(dst + *w, key + shared, len - shared);
	*w += len - shared;
}

/*
 * Trusting decoding of the keys of data[pos, end), each built on the one
 * before.
 */
typedef struct CDFrontDecoder
{
	const char *data;
	Size		pos;			/* the next key's encoding */
	Size		end;
	Size		start;			/* where the current key's encoding starts */
	Size		shared;			/* what it shares with the one before */
	int			cur;			/* buf[cur] holds the current key */
	char	   *buf[2];			/* the current and the previous key */
	Size		room[2];
} CDFrontDecoder;

static inline void
cd_front_decoder_init(CDFrontDecoder *d, const char *data, Size pos, Size end)
{
	memset(d, 0, sizeof(*d));
	d->data = data;
	d->pos = pos;
	d->end = end;
	/* never NULL, which would end the stream: the empty key is a key */
	d->room[0] = d->room[1] = 64;
	d->buf[0] = palloc(d->room[0]);
	d->buf[1] = palloc(d->room[1]);
}

/*
 * The next key (sets *len), or NULL at the end.  It stays valid while the
 * key after it is decoded, not longer.
 */
static inline const char *
cd_front_decoder_next(CDFrontDecoder *d, Size *len)
{
	int			nx = d->cur ^ 1;
	Size		shared;
	Size		rest;

	if (d->pos >= d->end)
		return NULL;
	d->start = d->pos;
	shared = (Size) cd_varint_get(d->data, &d->pos);
	rest = (Size) cd_varint_get(d->data, &d->pos);
	if (unlikely(d->room[nx] < shared + rest))
	{
		Size		room = Max(shared + rest, 2 * d->room[nx]);

		pfree(d->buf[nx]);
		d->buf[nx] = cd_alloc_huge(CurrentMemoryContext, room);
		d->room[nx] = room;
	}
	if (shared > 0)
		memcpy(d->buf[nx], d->buf[d->cur], shared);
	memcpy(d->buf[nx] + shared, d->data + d->pos, rest);
	d->pos += rest;
	d->cur = nx;
	d->shared = shared;
	*len = shared + rest;
	return d->buf[nx];
}

static inline void
cd_front_decoder_free(CDFrontDecoder *d)
{
	pfree(d->buf[0]);
	pfree(d->buf[1]);
}

/*
 * Skim one key at buf's cursor without building it: its two lengths
 * (below 2^35, as keys are below 1 GB) into *shared and *rest, and the
 * cursor past its rest; false (the cursor then undefined) if the lengths
 * are malformed or the rest runs past the end.  For passes that size or
 * sample untrusted keys before they are decoded.
 */
static inline bool
cd_front_skim(StringInfo buf, uint64 *shared, uint64 *rest)
{
	if (!cd_recv_varint(buf, 35, shared) ||
		!cd_recv_varint(buf, 35, rest) ||
		*rest > (uint64) (buf->len - buf->cursor))
		return false;
	buf->cursor += (int) *rest;
	return true;
}

/*
 * Bytes of the front coding of r's keys (read to its end); the keys
 * written into dst, which has room for room bytes (ERROR rather than past
 * them), returning the bytes written.
 */
extern Size cd_front_encoded_size(CDKeyReader *r);
extern Size cd_front_encode(char *dst, Size room, CDKeyReader *r);

/*
 * Validating decoding of n front-coded keys of kt at buf's cursor into w;
 * ERROR (invalid what) on anything that is not exactly what the encoder
 * writes, or a key not valid for kt.
 */
extern void cd_front_decode_checked(StringInfo buf, const CDKeyType *kt,
									uint32 n, CDKeyWriter *w,
									const char *what);

#endif							/* CD_FRONTCODE_H */
