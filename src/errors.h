/*-------------------------------------------------------------------------
 *
 * errors.h
 *	  The errors raised in more than one module, each worded once.
 *
 * Messages follow PostgreSQL's style guide: lowercase, no routine names;
 * details and hints are sentences.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_ERRORS_H
#define CD_ERRORS_H

#include "postgres.h"

#include "fmgr.h"

#ifdef pg_noreturn				/* 18+ */
#define CD_NORETURN_DECL(decl) pg_noreturn extern decl
#else
#define CD_NORETURN_DECL(decl) extern decl pg_attribute_noreturn()
#endif

/*
 * What the decoders of untrusted bytes name in their errors: each takes
 * the name of what it decodes and passes it on, so that one decoder serves
 * serialized states and stored sets alike.
 */
#define CD_WHAT_STATE	"count_distinct state"
#define CD_WHAT_DSET	"distinct_set"

/* invalid bytes of what (SQLSTATE 22P03: "invalid distinct_set"), a detail */
CD_NORETURN_DECL(void cd_invalid(const char *what, const char *detail));

/* invalid serialized state: cd_invalid(CD_WHAT_STATE, detail) */
CD_NORETURN_DECL(void cd_invalid_state(const char *detail));

/* a value whose key would exceed one allocation (54000) */
CD_NORETURN_DECL(void cd_error_value_too_large(Size len));

/*
 * more distinct values than one group can hold (54000): max values of
 * width bytes (width 0: variable-size keys, max bytes of them)
 */
CD_NORETURN_DECL(void cd_error_group_too_large(Size max, int width));

/* more distinct values than one array can hold (54000) */
CD_NORETURN_DECL(void cd_error_array_too_large(uint64 count));

/* typid, the declared result type of an array aggregate, is no array */
CD_NORETURN_DECL(void cd_error_not_an_array(Oid typid));

/*
 * an aggregate support function given a state of another kind than its own
 * (42804): kind names the one it takes ("a count_distinct set")
 */
CD_NORETURN_DECL(void cd_error_wrong_state(FunctionCallInfo fcinfo,
										   const char *kind));

/* a key type that should not reach this code (internal error) */
CD_NORETURN_DECL(void cd_error_bad_key(const char *what));

#endif							/* CD_ERRORS_H */
