/*-------------------------------------------------------------------------
 *
 * keystream.h
 *	  Streams of sorted, distinct keys: how a set hands its keys to a codec
 *	  and how a codec builds a set, without either knowing the other.
 *
 * A set (set.h) gives a reader over its sorted keys and a writer that
 * builds it from sorted keys; codecs (serialkeys.h, serialize.h) read and
 * write such streams.  Fixed-width keys (key.h) move in batches, as uint64,
 * so that a codec pays one call per batch; variable-size keys one at a
 * time, as bytes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEYSTREAM_H
#define CD_KEYSTREAM_H

#include "postgres.h"

typedef struct CDKeyReader CDKeyReader;
typedef struct CDKeyWriter CDKeyWriter;

struct CDKeyReader
{
	/*
	 * Fixed-width keys: copy the next min(max, keys left) keys, ascending,
	 * into dst; returns how many (0 at the end).
	 */
	uint32		(*next_fixed) (CDKeyReader *r, uint64 *dst, uint32 max);

	/*
	 * Variable-size keys: the next key (sets *len), ascending; NULL at the
	 * end.  The bytes stay valid while the next key is read (a front-coded
	 * set decodes into two buffers), not longer.
	 */
	const char *(*next_bytes) (CDKeyReader *r, Size *len);

	/*
	 * Optional (NULL: not offered): a source that holds the whole stream in
	 * its serialized form (serialkeys.h) already, or as blocks that become it
	 * with their heads put back, offers its bytes, so that a serialized
	 * state copies them instead of decoding and encoding every key.
	 * serial_size gives their size; write_serial writes exactly that many
	 * bytes to dst.  Both are of the whole stream, wherever pos is, and
	 * leave pos as it is.
	 */
	Size		(*serial_size) (const CDKeyReader *r);
	void		(*write_serial) (const CDKeyReader *r, char *dst);

	/*
	 * Optional (NULL: nothing to free): frees what the reader allocated
	 * (a decoder's buffers).  A reader that is not released lives as long
	 * as the memory context it was made in.
	 */
	void		(*release) (CDKeyReader *r);

	/* the source's own; setting pos to 0 starts the stream over */
	const void *source;
	Size		pos;
	uint32		count;			/* keys in the stream */
};

struct CDKeyWriter
{
	/* append n fixed-width keys, ascending, past the ones put before */
	void		(*put_fixed) (CDKeyWriter *w, const uint64 *keys, uint32 n);

	/* append one variable-size key, greater than the ones put before */
	void		(*put_bytes) (CDKeyWriter *w, const char *key, Size len);

	/* what is being built (a set moves as it grows: kept up to date here) */
	void	   *target;
};

/* A reader of count keys of source (one of the two functions set). */
static inline void
cd_key_reader_init(CDKeyReader *r, const void *source, uint32 count,
				   uint32 (*next_fixed) (CDKeyReader *, uint64 *, uint32),
				   const char *(*next_bytes) (CDKeyReader *, Size *))
{
	r->next_fixed = next_fixed;
	r->next_bytes = next_bytes;
	r->serial_size = NULL;
	r->write_serial = NULL;
	r->release = NULL;
	r->source = source;
	r->pos = 0;
	r->count = count;
}

/* The reader r offers its source's bytes in the serialized form. */
static inline void
cd_key_reader_offer_serial(CDKeyReader *r,
						   Size (*serial_size) (const CDKeyReader *),
						   void (*write_serial) (const CDKeyReader *, char *))
{
	r->serial_size = serial_size;
	r->write_serial = write_serial;
}

/* Free what the reader r allocated, if anything; r is done. */
static inline void
cd_key_reader_release(CDKeyReader *r)
{
	if (r->release != NULL)
		r->release(r);
}

/* A writer into target (one of the two functions set). */
static inline void
cd_key_writer_init(CDKeyWriter *w, void *target,
				   void (*put_fixed) (CDKeyWriter *, const uint64 *, uint32),
				   void (*put_bytes) (CDKeyWriter *, const char *, Size))
{
	w->put_fixed = put_fixed;
	w->put_bytes = put_bytes;
	w->target = target;
}

/* The keys of a fixed-width stream a batch may hold. */
#define CD_KEY_BATCH	128

#endif							/* CD_KEYSTREAM_H */
