/*-------------------------------------------------------------------------
 *
 * serialize.h
 *	  The serialized form of a set's keys (a partial aggregate state): a
 *	  header naming the value type, then the keys (see serialize.c).
 *
 * It reads and writes streams of keys (keystream.h), never a set: set.c
 * puts the two together.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_SERIALIZE_H
#define CD_SERIALIZE_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "key.h"
#include "keystream.h"
#include "value_io.h"

/*
 * A state of the keys of r (strictly increasing values of kt), as a bytea;
 * ERROR when it would exceed 1 GB.  r is read more than once (its pos is
 * reset).
 */
extern bytea *cd_state_write(const CDKeyType *kt, CDValueIO *vio,
							 CDKeyReader *r);

/*
 * The header of a state of n keys of kt that take keybytes (ERROR when the
 * state would exceed 1 GB): buf starts with VARHDRSZ bytes for the bytea's
 * length (not set), then the header.  For states whose keys the caller
 * writes itself, copied from a set that holds them in serialkeys.h's form or
 * encoded straight into their memory (set.h: CDStateImage).
 */
extern void cd_state_header(StringInfo buf, const CDKeyType *kt, uint32 n,
							Size keybytes);

/*
 * What deserialization remembers between calls of one call site (may be
 * kept in fn_extra; zeroed at first): the last header's type and
 * collation references and what they resolved to.
 */
typedef struct CDStateRefCache
{
	MemoryContext mcxt;			/* where refs is allocated */
	char	   *refs;
	int			refslen;
	Oid			typid;
	int32		typmod;
	Oid			collation;
} CDStateRefCache;

/* A state's header. */
typedef struct CDStateHeader
{
	int			encoding;		/* CDKeyEncoding */
	int			width;
	Oid			typid;
	int32		typmod;			/* anonymous records' byte keys: the
								 * canonical typmod (key_record.h); else -1 */
	Oid			collation;
	int			text_encoding;	/* comparator keys: of text in values */
	uint32		n;				/* keys */
} CDStateHeader;

/*
 * Start reading the state data[0 .. len-1] (buf: a read-only view of it)
 * and read its header; cache may be NULL.  ERROR on an invalid header.
 */
extern void cd_state_read_header(StringInfo buf, const char *data, Size len,
								 CDStateRefCache *cache, CDStateHeader *h);

/*
 * Check that kt, the key type of the header's value type, gives the
 * header's encoding; return the bytes the keys will take once decoded (a
 * hint for the set that receives them).  ERROR if the count cannot fit in
 * the bytes left.
 */
extern Size cd_state_check_keys(StringInfo buf, const CDStateHeader *h,
								const CDKeyType *kt);

/*
 * Decode the header's n keys into w, and check that they end the state
 * (vio: comparator keys, set to the header's text encoding).
 * ERROR on anything the encoder would not have written.
 */
extern void cd_state_read_keys(StringInfo buf, const CDKeyType *kt,
							   CDValueIO *vio, uint32 n, CDKeyWriter *w);

#endif							/* CD_SERIALIZE_H */
