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

/*
 * The first byte of a type or collation reference.  Kinds from
 * CD_REF_FIRST_FREE on are not written here: stored sets use them (dset.h).
 */
#define CD_REF_NONE			0	/* no collation */
#define CD_REF_OID			1	/* uint32, below FirstGenbkiObjectId */
#define CD_REF_NAME			2	/* schema and name, NUL-terminated */
#define CD_REF_FIRST_FREE	3

/*
 * Type and collation references (collation InvalidOid: none).  Readers
 * name what they read in their errors (CD_WHAT_STATE, CD_WHAT_DSET:
 * errors.h); cd_recv_type_ref reads states'.
 */
extern void cd_send_type_ref(StringInfo buf, Oid typid);
extern Oid	cd_recv_type_ref(StringInfo buf);

/*
 * A type reference, for stored sets (dset_format.c), which need more than
 * cd_recv_type_ref: flags CD_REF_AS_USER resolves with the privileges of
 * the current user (binary input; never for count_distinct's own states,
 * whose readers may aggregate types they cannot name): a name resolves only
 * to a type on whose schema and on which the user has USAGE, and a missing
 * type and one the user may not use raise the same ERROR (42704), before
 * any function of the type runs; CD_REF_MISSING_OK returns InvalidOid for a
 * name that resolves to no type.  *kind: the reference's kind; kinds other
 * than CD_REF_OID and CD_REF_NAME are left unread (InvalidOid returned).
 * *name: for CD_REF_NAME, "schema.name" (palloc'd), else NULL.
 */
#define CD_REF_AS_USER		0x01
#define CD_REF_MISSING_OK	0x02
extern Oid	cd_recv_type_ref_ext(StringInfo buf, int flags, int *kind,
								 char **name, const char *what);

/* The 4-byte OID of a reference of another kind (checked against the end). */
extern Oid	cd_recv_ref_oid_raw(StringInfo buf, const char *what);
/* Has the current user USAGE on the type and on its schema? */
extern bool cd_type_usable(Oid typid);
/* The ERROR of CD_REF_AS_USER for a type name as written. */
#ifdef pg_noreturn				/* 18+ */
pg_noreturn extern void cd_error_type_not_usable(const char *name);
#else
extern void cd_error_type_not_usable(const char *name) pg_attribute_noreturn();
#endif

extern void cd_send_collation_ref(StringInfo buf, Oid collation);
extern Oid	cd_recv_collation_ref(StringInfo buf, const char *what);

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
