/*-------------------------------------------------------------------------
 *
 * moving.c
 *	  The moving-aggregate state: distinct values with their multiplicity
 *	  in a red-black tree.
 *
 * Every node is one chunk of the aggregate context; a variable-size key is
 * a second chunk.  rbt_delete() may remove a node other than the one asked
 * for (the successor, whose data it copies into the asked-for node), so a
 * node's key is freed before the node is deleted, and the free function
 * frees the node chunk only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "compat.h"
#include "key_moving.h"
#include "moving.h"
#include "sort.h"

typedef struct CDMovNode
{
	RBTNode		rbtnode;		/* first: the tree's part */
	CDMKey		key;
	uint64		count;			/* rows holding the value */
} CDMovNode;

static int
cdmov_node_compare(const RBTNode *a, const RBTNode *b, void *arg)
{
	const CDMoving *m = (const CDMoving *) arg;

	return cd_mkey_compare(m->kt, &((const CDMovNode *) a)->key,
						   &((const CDMovNode *) b)->key);
}

static void
cdmov_node_combine(RBTNode *existing, const RBTNode *newdata, void *arg)
{
	((CDMovNode *) existing)->count++;
}

static RBTNode *
cdmov_node_alloc(void *arg)
{
	CDMoving   *m = (CDMoving *) arg;

	return (RBTNode *) MemoryContextAlloc(m->mcxt, sizeof(CDMovNode));
}

static void
cdmov_node_free(RBTNode *x, void *arg)
{
	pfree(x);
}

CDMoving *
cdmov_create(const CDKeyType *kt, MemoryContext mcxt)
{
	MemoryContext old = MemoryContextSwitchTo(mcxt);
	CDMoving   *m = palloc(sizeof(CDMoving));

	m->kt = kt;
	m->mcxt = mcxt;
	m->ndistinct = 0;
	m->tree = rbt_create(sizeof(CDMovNode), cdmov_node_compare,
						 cdmov_node_combine, cdmov_node_alloc,
						 cdmov_node_free, m);
	MemoryContextSwitchTo(old);
	return m;
}

void
cdmov_add(CDMoving *m, Datum value)
{
	CDMovNode	probe;
	CDMovNode  *node;
	bool		isnew;

	cd_mkey_from_value(m->kt, value, &probe.key);
	probe.count = 1;
	node = (CDMovNode *) rbt_insert(m->tree, &probe.rbtnode, &isnew);
	if (isnew)
	{
		/* the node holds the lookup key: give it its own copy */
		cd_mkey_keep(m->kt, &node->key, m->mcxt);
		m->ndistinct++;
	}
}

bool
cdmov_remove(CDMoving *m, Datum value)
{
	CDMovNode	probe;
	CDMovNode  *node;

	cd_mkey_from_value(m->kt, value, &probe.key);
	node = (CDMovNode *) rbt_find(m->tree, &probe.rbtnode);
	if (node == NULL)
		return false;
	Assert(node->count > 0);
	if (--node->count == 0)
	{
		cd_mkey_free(m->kt, &node->key);
		rbt_delete(m->tree, &node->rbtnode);
		m->ndistinct--;
	}
	return true;
}

Datum *
cdmov_output_datums(CDMoving *m, uint32 *n)
{
	RBTreeIterator iter;
	CDMovNode  *node;
	Datum	   *values;
	uint32		i = 0;

	if (m->ndistinct > (uint64) (MaxAllocHugeSize / sizeof(Datum)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("count_distinct: too many distinct values for an array")));
	values = palloc_extended(Max(m->ndistinct, 1) * sizeof(Datum),
							 MCXT_ALLOC_HUGE);
	rbt_begin_iterate(m->tree, LeftRightWalk, &iter);
	while ((node = (CDMovNode *) rbt_iterate(&iter)) != NULL)
	{
		values[i++] = cd_mkey_output_datum(m->kt, &node->key);
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	Assert(i == m->ndistinct);
	/* distinct by bytes, ordered by the collation */
	if (m->kt->sort_on_output)
		cd_sort_datums(values, i, (SortSupport) &m->kt->ssup);
	*n = i;
	return values;
}
