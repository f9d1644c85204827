/*-------------------------------------------------------------------------
 *
 * dset_agg.c
 *	  Stored sets: the aggregates.
 *
 * distinct_set_agg(anyelement) runs on count_distinct's own transition,
 * combine, serialize and deserialize functions (its state is a
 * count_distinct set); only its final function is here.
 *
 * distinct_set_union_agg(distinct_set) keeps sorted runs of keys on a
 * stack whose sizes decrease from the bottom up: each new set is pushed,
 * and the top two runs are merged while the upper one is at least as large
 * as the one below (as a binary counter carries).  Every key then takes
 * part in O(log k) merges for k sets, never the O(k) of merging each set
 * into one growing run.
 *
 * distinct_set_intersect_agg(distinct_set) keeps one run, which only
 * shrinks: each set costs a merge with it (or a galloping search when one
 * is much shorter).
 *
 * Both serialize their state as a stored set (dset.h) and run in parallel.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/memutils.h"

#include "dset.h"

PG_FUNCTION_INFO_V1(distinct_set_agg_final);
PG_FUNCTION_INFO_V1(distinct_set_agg_moving_final);
PG_FUNCTION_INFO_V1(distinct_set_union_append);
PG_FUNCTION_INFO_V1(distinct_set_union_combine);
PG_FUNCTION_INFO_V1(distinct_set_union_final);
PG_FUNCTION_INFO_V1(distinct_set_intersect_append);
PG_FUNCTION_INFO_V1(distinct_set_intersect_combine);
PG_FUNCTION_INFO_V1(distinct_set_intersect_final);
PG_FUNCTION_INFO_V1(distinct_set_agg_serial);
PG_FUNCTION_INFO_V1(distinct_set_union_deserial);
PG_FUNCTION_INFO_V1(distinct_set_intersect_deserial);

static MemoryContext
aggregate_context(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("distinct_set aggregate support functions can only be called as part of an aggregate")));
	return aggcontext;
}

/*
 * distinct_set_agg_final(internal) -> distinct_set
 *
 * The state is a count_distinct set (set.h); compacting it leaves it
 * equivalent (FINALFUNC_MODIFY = SHAREABLE).
 */
Datum
distinct_set_agg_final(PG_FUNCTION_ARGS)
{
	DSKeys		keys;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	dsk_from_state(&keys, PG_GETARG_POINTER(0));
	PG_RETURN_BYTEA_P(dset_encode(keys.kt, &keys));
}

/*
 * distinct_set_agg_moving_final(internal) -> distinct_set
 *
 * Window frames: count_distinct's moving-aggregate state (moving.h), which
 * counts each value's rows so that rows can leave the frame; only read.
 */
Datum
distinct_set_agg_moving_final(PG_FUNCTION_ARGS)
{
	DSKeys		keys;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0) || !dsk_from_moving(&keys, PG_GETARG_POINTER(0)))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(dset_encode(keys.kt, &keys));
}

/* ------------------------------------------------------------------------
 * union and intersection
 * ------------------------------------------------------------------------
 */
typedef struct DSAggState
{
	const CDKeyType *kt;		/* from the query's registry */
	MemoryContext mcxt;			/* the aggregate context: runs live here */
	int			nruns;
	int			maxruns;
	DSKeys	   *runs;			/* union: a stack; intersection: one run */
} DSAggState;

static DSAggState *
new_state(MemoryContext aggcontext, const CDKeyType *kt)
{
	DSAggState *s = MemoryContextAllocZero(aggcontext, sizeof(DSAggState));

	s->kt = kt;
	s->mcxt = aggcontext;
	s->maxruns = 8;
	s->runs = MemoryContextAlloc(aggcontext, s->maxruns * sizeof(DSKeys));
	return s;
}

/* Decode a stored set into the state's context; returns its key type. */
static const CDKeyType *
decode_into(FunctionCallInfo fcinfo, MemoryContext mcxt, Datum value,
			DSKeys *keys)
{
	MemoryContext old = MemoryContextSwitchTo(mcxt);
	bytea	   *ds = DatumGetDistinctSetP(value);
	const CDKeyType *kt = dset_decode(fcinfo, ds, keys);

	if ((Pointer) ds != DatumGetPointer(value))
		pfree(ds);
	MemoryContextSwitchTo(old);
	return kt;
}

/* Merge the top two runs of the stack. */
static void
merge_top(DSAggState *s)
{
	DSKeys	   *a = &s->runs[s->nruns - 2];
	DSKeys	   *b = &s->runs[s->nruns - 1];
	DSKeys		out;
	MemoryContext old = MemoryContextSwitchTo(s->mcxt);

	dsk_union(&out, a, b);
	/* fixed keys were copied; byte keys still point into the inputs */
	dsk_free(a);
	dsk_free(b);
	MemoryContextSwitchTo(old);
	*a = out;
	s->nruns--;
}

static void
push_run(DSAggState *s, const DSKeys *run)
{
	if (s->nruns == s->maxruns)
	{
		s->maxruns *= 2;
		s->runs = repalloc(s->runs, s->maxruns * sizeof(DSKeys));
	}
	s->runs[s->nruns++] = *run;
	while (s->nruns >= 2 &&
		   s->runs[s->nruns - 1].n >= s->runs[s->nruns - 2].n)
		merge_top(s);
}

/* Merge the whole stack into one run. */
static void
collapse(DSAggState *s)
{
	while (s->nruns >= 2)
		merge_top(s);
}

/*
 * distinct_set_union_append(internal, distinct_set) -> internal
 */
Datum
distinct_set_union_append(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s = PG_ARGISNULL(0) ? NULL : (DSAggState *) PG_GETARG_POINTER(0);
	DSKeys		run;
	const CDKeyType *kt;

	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	kt = decode_into(fcinfo, aggcontext, PG_GETARG_DATUM(1), &run);
	if (s == NULL)
		s = new_state(aggcontext, kt);
	else
		dset_check_same_type(s->kt, kt);
	push_run(s, &run);
	PG_RETURN_POINTER(s);
}

/*
 * distinct_set_union_combine(internal, internal) -> internal
 */
Datum
distinct_set_union_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s1 = PG_ARGISNULL(0) ? NULL : (DSAggState *) PG_GETARG_POINTER(0);
	DSAggState *s2 = PG_ARGISNULL(1) ? NULL : (DSAggState *) PG_GETARG_POINTER(1);
	int			i;

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = new_state(aggcontext, s2->kt);
	else
		dset_check_same_type(s1->kt, s2->kt);
	/* s2's runs live in aggcontext too (its deserial puts them there) */
	for (i = 0; i < s2->nruns; i++)
		push_run(s1, &s2->runs[i]);
	s2->nruns = 0;
	PG_RETURN_POINTER(s1);
}

/*
 * distinct_set_union_final(internal) -> distinct_set
 *
 * Merging the stack leaves the state equivalent, and later rows may still
 * be added (window frames): READ_ONLY as far as the result goes.
 */
Datum
distinct_set_union_final(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (DSAggState *) PG_GETARG_POINTER(0);
	collapse(s);
	PG_RETURN_BYTEA_P(dset_encode(s->kt, &s->runs[0]));
}

/*
 * distinct_set_agg_serial(internal) -> bytea: the state as a stored set
 */
Datum
distinct_set_agg_serial(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	s = (DSAggState *) PG_GETARG_POINTER(0);
	collapse(s);
	PG_RETURN_BYTEA_P(dset_encode(s->kt, &s->runs[0]));
}

static Datum
deserial(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSKeys		run;
	const CDKeyType *kt;
	DSAggState *s;

	kt = decode_into(fcinfo, aggcontext, PG_GETARG_DATUM(0), &run);
	s = new_state(aggcontext, kt);
	s->runs[s->nruns++] = run;
	PG_RETURN_POINTER(s);
}

/*
 * distinct_set_union_deserial(bytea, internal) -> internal
 * distinct_set_intersect_deserial(bytea, internal) -> internal
 */
Datum
distinct_set_union_deserial(PG_FUNCTION_ARGS)
{
	return deserial(fcinfo);
}

Datum
distinct_set_intersect_deserial(PG_FUNCTION_ARGS)
{
	return deserial(fcinfo);
}

/* s's run intersected with run (whose memory the caller frees) */
static void
intersect_into(DSAggState *s, const DSKeys *run)
{
	DSKeys		out;
	MemoryContext old = MemoryContextSwitchTo(s->mcxt);

	/* out's byte keys point into the state's run, never into run */
	dsk_intersect(&out, &s->runs[0], run);
	if (s->runs[0].width > 0)
		dsk_free(&s->runs[0]);
	MemoryContextSwitchTo(old);
	s->runs[0] = out;
}

/*
 * distinct_set_intersect_append(internal, distinct_set) -> internal
 */
Datum
distinct_set_intersect_append(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s = PG_ARGISNULL(0) ? NULL : (DSAggState *) PG_GETARG_POINTER(0);
	DSKeys		run;
	const CDKeyType *kt;
	MemoryContext tmp;

	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	if (s == NULL)
	{
		kt = decode_into(fcinfo, aggcontext, PG_GETARG_DATUM(1), &run);
		s = new_state(aggcontext, kt);
		s->runs[s->nruns++] = run;
		PG_RETURN_POINTER(s);
	}
	tmp = AllocSetContextCreate(CurrentMemoryContext, "distinct_set intersection",
								ALLOCSET_DEFAULT_SIZES);
	kt = decode_into(fcinfo, tmp, PG_GETARG_DATUM(1), &run);
	dset_check_same_type(s->kt, kt);
	intersect_into(s, &run);
	MemoryContextDelete(tmp);
	PG_RETURN_POINTER(s);
}

/*
 * distinct_set_intersect_combine(internal, internal) -> internal
 */
Datum
distinct_set_intersect_combine(PG_FUNCTION_ARGS)
{
	DSAggState *s1 = PG_ARGISNULL(0) ? NULL : (DSAggState *) PG_GETARG_POINTER(0);
	DSAggState *s2 = PG_ARGISNULL(1) ? NULL : (DSAggState *) PG_GETARG_POINTER(1);

	(void) aggregate_context(fcinfo);
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	/* s2 lives in the aggregate context (its deserial or transition's) */
	if (s1 == NULL)
		PG_RETURN_POINTER(s2);
	dset_check_same_type(s1->kt, s2->kt);
	intersect_into(s1, &s2->runs[0]);
	PG_RETURN_POINTER(s1);
}

/*
 * distinct_set_intersect_final(internal) -> distinct_set
 */
Datum
distinct_set_intersect_final(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (DSAggState *) PG_GETARG_POINTER(0);
	PG_RETURN_BYTEA_P(dset_encode(s->kt, &s->runs[0]));
}
