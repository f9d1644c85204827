/*-------------------------------------------------------------------------
 *
 * runcodec.h
 *	  The one codec of runs: a sorted set of fixed-width keys as its
 *	  maximal runs of consecutive keys (a stored set's runs layout,
 *	  dset.h).
 *
 * The layout: the number of runs (a varint, varint.h); the first run as
 * its first key in full (big-endian) and its length minus one (a varint);
 * every other run as the gap to the run before (its first key minus the
 * last key before, minus 2: runs are maximal, so the gap is at least 2)
 * and its length minus one.
 *
 * Reading validates: every number against the bytes left and its form,
 * every run inside the key width, the runs' keys against the count the
 * container gives (no more, no fewer).  Errors name what is read
 * (errors.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_RUNCODEC_H
#define CD_RUNCODEC_H

#include "postgres.h"

#include "lib/stringinfo.h"

/*
 * One run of the layout, first (the first run) or after the run ending at
 * prevend: its size, and its bytes appended to buf if not NULL.
 */
extern Size cd_run_put(StringInfo buf, int width, bool first, uint64 start,
					   uint64 len, uint64 prevend);

/* the number of runs: its size, and its bytes appended to buf if not NULL */
extern Size cd_runs_put_count(StringInfo buf, uint64 nruns);

/* Reading the runs of the len bytes at data, of n keys in all. */
typedef struct CDRunsReader
{
	const char *data;
	Size		pos;			/* the next run's bytes */
	Size		len;
	int			width;
	const char *what;			/* what is read, for errors */
	uint64		nruns;			/* runs not read yet */
	uint64		left;			/* keys not read yet */
	bool		started;		/* a run was read */
	uint64		prev;			/* the last key of the run read last */
	uint64		calls;
} CDRunsReader;

/* Start reading (again); reads and checks the number of runs. */
extern void cd_runs_reader_init(CDRunsReader *r, const char *data, Size len,
								int width, uint64 n, const char *what);

/* The next run as its first and last key; false after the last. */
extern bool cd_runs_next(CDRunsReader *r, uint64 *first, uint64 *last);

#endif							/* CD_RUNCODEC_H */
