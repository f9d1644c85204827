/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  The one place for differences between PostgreSQL major versions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_COMPAT_H
#define CD_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 140000
#error "count_distinct requires PostgreSQL 14 or later"
#endif

#define CD_ALLOC_CHUNK_LIMIT	8192

#endif							/* CD_COMPAT_H */
