/*-------------------------------------------------------------------------
 *
 * value_io.h
 *	  Values, types and collations in a form that any backend of any node
 *	  can read back: what serialized states are made of (serialize.c).
 *
 * The types' own send/receive functions are not enough on their own:
 * record_send and array_send write type OIDs (which differ between nodes
 * for enums, extension types, composites), and record_recv cannot read an
 * anonymous record (ROW(a, b)) or an array of them at all.  So composite
 * values, arrays and ranges are written structurally here, with the column
 * types of anonymous records named, and only the leaves go through their
 * type's send/receive (or, without those, output/input) functions, under
 * session settings fixed so that they write the same bytes in every
 * process (text in the database encoding whatever the client encoding).  Types and
 * collations are named by schema and name, except those of the initial
 * catalog, whose OIDs PostgreSQL fixes (int4 is 23 everywhere).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_VALUE_IO_H
#define CD_VALUE_IO_H

#include "postgres.h"

#include "lib/stringinfo.h"

/* I/O details of the types met so far (opaque; see value_io.c) */
typedef struct CDValueIO CDValueIO;

/* A cache of type I/O details, allocated in mcxt (lives as long as it). */
extern CDValueIO *cd_value_io_create(MemoryContext mcxt);

/* Type and collation references (collation InvalidOid: none). */
extern void cd_send_type_ref(StringInfo buf, Oid typid);
extern Oid	cd_recv_type_ref(StringInfo buf);
extern void cd_send_collation_ref(StringInfo buf, Oid collation);
extern Oid	cd_recv_collation_ref(StringInfo buf);

/* One non-NULL value of type typid: a length, then its bytes. */
extern void cd_value_send(StringInfo buf, CDValueIO *vio, Oid typid,
						  Datum value);
extern Datum cd_value_recv(StringInfo buf, CDValueIO *vio, Oid typid,
						   int32 typmod);

/*
 * Runs fn(arg), which writes (receiving: reads) values, with the session
 * settings that leaves are written and read under (value_io.c) set once for
 * all of them rather than around each leaf.
 */
extern void cd_value_io_run(CDValueIO *vio, bool receiving,
							void (*fn) (void *arg), void *arg);

/*
 * Text inside values is written in the database encoding;
 * cd_value_io_set_encoding sets the encoding of the text being received
 * (that of the database that wrote it; ERROR if it is not a server encoding
 * or cannot be converted to this database's), converted to this database's
 * on receipt.
 */
extern void cd_value_io_set_encoding(CDValueIO *vio, int encoding);

#endif							/* CD_VALUE_IO_H */
