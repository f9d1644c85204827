/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  Key types per query and allocators per aggregate context (see
 *	  registry.h).
 *
 * Both registries are short lists in backend memory whose entries live in
 * the memory context they belong to; a reset callback on that context
 * unlinks them.  Entries are looked up only when a state is created or has
 * to grow, never per row; checking that a state is a set
 * (cd_registry_is_set_keytype) compares with the last entry found first.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "compat.h"
#include "key_record.h"
#include "registry.h"

typedef struct KeyTypeEntry
{
	struct KeyTypeEntry *next;
	MemoryContext querycxt;
	Oid			typid;
	int32		typmod;			/* anonymous records: canonical, or -1 */
	Oid			collation;		/* the input collation, as passed */
	bool		for_sets;		/* cd_registry_set_keytype's */
	CDKeyType	kt;
	CDValueIO  *vio;			/* created at the first need */
} KeyTypeEntry;

typedef struct AllocEntry
{
	struct AllocEntry *next;
	CDAlloc		alloc;
} AllocEntry;

/* the registries' heads and the contexts whose reset empties them */
static KeyTypeEntry *keytypes = NULL;
static AllocEntry *allocs = NULL;

/* cd_registry_is_set_keytype's last answer: a live entry's kt, or NULL */
const void *cd_registry_last_set_keytype = NULL;

static void
forget_keytypes(void *arg)
{
	MemoryContext querycxt = (MemoryContext) arg;
	KeyTypeEntry **p = &keytypes;

	cd_registry_last_set_keytype = NULL;
	while (*p != NULL)
	{
		if ((*p)->querycxt == querycxt)
			*p = (*p)->next;
		else
			p = &(*p)->next;
	}
}

static void
forget_alloc(void *arg)
{
	AllocEntry **p = &allocs;

	while (*p != NULL)
	{
		if (*p == (AllocEntry *) arg)
		{
			*p = (*p)->next;
			break;
		}
		p = &(*p)->next;
	}
}

/* The executor's per-query context of the aggregate being run. */
static MemoryContext
query_context(FunctionCallInfo fcinfo)
{
	MemoryContext querycxt = cd_query_context(fcinfo);

	if (querycxt == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("count_distinct support functions can only be called as part of an aggregate")));
	return querycxt;
}

static const CDKeyType *
lookup_keytype(FunctionCallInfo fcinfo, Oid typid, int32 typmod,
			   Oid collation, bool for_sets)
{
	MemoryContext querycxt = query_context(fcinfo);
	KeyTypeEntry *e;
	bool		first = true;

	for (e = keytypes; e != NULL; e = e->next)
	{
		if (e->querycxt != querycxt)
			continue;
		first = false;
		if (e->typid == typid && e->typmod == typmod &&
			e->collation == collation && e->for_sets == for_sets)
			return &e->kt;
	}

	e = MemoryContextAllocZero(querycxt, sizeof(KeyTypeEntry));
	cd_keytype_init_typmod(&e->kt, typid, typmod, collation, querycxt);
	e->querycxt = querycxt;
	e->typid = typid;
	e->typmod = typmod;
	e->collation = collation;
	e->for_sets = for_sets;
	if (first)
	{
		MemoryContextCallback *cb = MemoryContextAlloc(querycxt,
													   sizeof(MemoryContextCallback));

		cb->func = forget_keytypes;
		cb->arg = querycxt;
		MemoryContextRegisterResetCallback(querycxt, cb);
	}
	e->next = keytypes;
	keytypes = e;
	return &e->kt;
}

const CDKeyType *
cd_registry_keytype(FunctionCallInfo fcinfo, Oid typid, Oid collation)
{
	return lookup_keytype(fcinfo, typid, -1, collation, false);
}

const CDKeyType *
cd_registry_set_keytype(FunctionCallInfo fcinfo, Oid typid, Oid collation)
{
	return lookup_keytype(fcinfo, typid, -1, collation, true);
}

const CDKeyType *
cd_registry_keytype_typmod(FunctionCallInfo fcinfo, Oid typid, int32 typmod,
						   Oid collation, bool for_sets)
{
	return lookup_keytype(fcinfo, typid, typmod, collation, for_sets);
}

bool
cd_registry_find_set_keytype(const void *ptr)
{
	KeyTypeEntry *e;

	if (ptr == NULL)
		return false;
	for (e = keytypes; e != NULL; e = e->next)
	{
		if (e->for_sets && (const void *) &e->kt == ptr)
		{
			cd_registry_last_set_keytype = ptr;
			return true;
		}
	}
	return false;
}

CDAlloc *
cd_registry_alloc(FunctionCallInfo fcinfo, MemoryContext aggcontext,
				  CDAlloc *local)
{
	AllocEntry *e;
	MemoryContextCallback *cb;

	for (e = allocs; e != NULL; e = e->next)
	{
		if (e->alloc.aggcontext == aggcontext)
			return &e->alloc;
	}
	if (!cd_agg_is_hash_context(fcinfo, aggcontext))
	{
		cd_alloc_init(local, aggcontext, false);
		return local;
	}

	e = MemoryContextAlloc(aggcontext, sizeof(AllocEntry));
	cd_alloc_init(&e->alloc, aggcontext, true);
	cb = MemoryContextAlloc(aggcontext, sizeof(MemoryContextCallback));
	cb->func = forget_alloc;
	cb->arg = e;
	MemoryContextRegisterResetCallback(aggcontext, cb);
	e->next = allocs;
	allocs = e;
	return &e->alloc;
}

CDValueIO *
cd_registry_value_io(const CDKeyType *kt)
{
	KeyTypeEntry *e;

	if (kt->encoding != CD_KEY_COMPARATOR)
		return NULL;
	for (e = keytypes; e != NULL; e = e->next)
	{
		if (&e->kt == kt)
		{
			if (e->vio == NULL)
				e->vio = cd_value_io_create(e->querycxt);
			return e->vio;
		}
	}
	elog(ERROR, "key type of type %s is not registered", format_type_be(kt->typid));
	pg_unreachable();
}
