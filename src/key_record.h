/*-------------------------------------------------------------------------
 *
 * key_record.h
 *	  Records as byte keys: a named composite, or an anonymous record
 *	  (ROW(a, b)), whose fields all have fixed-width or byte keys (key.h)
 *	  gets a CD_KEY_BYTES key made of its fields' keys.
 *
 * The key of a record is, for each field that is not dropped, in order:
 *	  0x01 and the field's key, or 0x02 for a NULL field (record_cmp orders
 *	  a NULL field after every value, and record_eq finds two NULL fields
 *	  equal); the field's key is
 *	    fixed-width keys: their width bytes, big-endian (so memcmp order is
 *	      unsigned order);
 *	    byte keys of one length (uuid, interval): those bytes;
 *	    text, varchar, bpchar keys (which never hold a zero byte): the bytes
 *	      and a terminating 0x00;
 *	    other byte keys (bytea, numeric): the bytes with each 0x00 written
 *	      0x00 0xFF, then the terminator 0x00 0x01;
 *	    a field of a named composite type: its record key (recursively).
 * Each field's encoding is prefix-free and orders as the field's key, so
 * byte equality of record keys is record_eq under the fields' default
 * btree opclasses and memcmp order is record_cmp's order wherever the
 * fields' key order is their btree order; where a field's is not (text
 * under a deterministic collation other than C) the key type sorts the
 * output by record_cmp (sort_on_output).  Anything else in a field
 * (arrays, nested anonymous records, jsonb, nondeterministic collations,
 * ...) leaves the whole record on the comparator path: the path is chosen
 * once per key type, from the record's row type, never per row.
 *
 * An anonymous record's row type is known only from its values (their
 * typmod, local to the backend), so its key type is that of a canonical
 * row type: the same column types and collations, columns named f1, f2,
 * ... and without typmods, blessed in this backend (kt->typmod).  Every
 * value is checked (one comparison per row while the row type does not
 * change) to have the key type's column types; a serialized state names
 * them (cd_record_send_fields).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEY_RECORD_H
#define CD_KEY_RECORD_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "lib/stringinfo.h"

#include "key.h"

/*
 * Fill kt for values of type typid, for an anonymous record (RECORDOID) of
 * the canonical typmod (-1: not known, the comparator path); other types
 * as cd_keytype_init.  ERROR if the type is not supported.
 */
extern void cd_keytype_init_typmod(CDKeyType *kt, Oid typid, int32 typmod,
								   Oid collation, MemoryContext mcxt);

/*
 * The canonical typmod of an anonymous record value's row type (cached for
 * the last row type seen); -1 if its record cannot have byte keys (then
 * values of this row type take the comparator path).
 */
extern int32 cd_record_value_typmod(Datum value);

/*
 * An anonymous record key type's column types and collations, in a
 * serialized state's header: uint16 number of columns, then each column's
 * type and collation reference (value_io.h).  Receiving returns the
 * canonical typmod of those columns (ERROR if they cannot have byte keys).
 */
extern void cd_record_send_fields(StringInfo buf, int32 typmod);
extern int32 cd_record_recv_fields(StringInfo buf);

/*
 * Rows given as their columns' values (the multi-argument count_distinct),
 * without forming a tuple:
 * cd_record_rowtype_typmod: the canonical typmod of records of row type d
 * (-1: they cannot have byte keys);
 * cd_record_takes_rows: is kt the byte-key type of records of canonical
 * typmod typmod (as cd_keytype_init_typmod makes it);
 * cd_record_row_datum: the key of the row values/isnull (one per column of
 * that row type, of its column types), encoded into kt's scratch; returns a
 * Datum that kt's codec reads as that key (cd_varkey_size,
 * cd_varkey_write), valid until the next key of kt is encoded.  The caller
 * vouches for the values' types.
 */
extern int32 cd_record_rowtype_typmod(TupleDesc d);
extern bool cd_record_takes_rows(const CDKeyType *kt, int32 typmod);
extern Datum cd_record_row_datum(const CDKeyType *kt, const Datum *values,
								 const bool *isnull);

#endif							/* CD_KEY_RECORD_H */
