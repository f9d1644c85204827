/*-------------------------------------------------------------------------
 *
 * policy.c
 *	  Growth and compaction of full sets (see policy.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "errors.h"
#include "policy.h"

/* May the full set grow before it compacts? */
static bool
cd_may_defer(const CDSet *set, const CDSetOps *ops, const CDGrowth *growth)
{
	Size		sorted;

	if (set->nsorted == 0 || (set->flags & CD_SET_TAIL_DUPS) ||
		set->nall >= CD_SET_MAX_KEYS ||
		growth->room_bytes(set) >= growth->defer.defer_below)
		return false;
	sorted = ops->sorted_bytes(set);
	if ((ops->used_bytes(set) - sorted) * growth->defer.defer_tail >= sorted)
		return false;
	return growth->tail_is_new == NULL || growth->tail_is_new(set);
}

CDSet *
cd_set_make_room(CDSet *set, const CDGrowth *growth, Size need,
				 CDAlloc *alloc)
{
	const CDSetOps *ops = cd_set_ops(set);
	Size		room;
	Size		target;

	if (!cd_may_defer(set, ops, growth))
		ops->compact(set);
	room = growth->room_bytes(set);
	target = cd_grow_target(ops->used_bytes(set), room, need,
							cd_pow2_chunks(set, growth->header, room));
	if (target > 0)
		set = growth->resize(set, target, alloc);
	if (set->nall >= CD_SET_MAX_KEYS)
		cd_error_group_too_large(CD_SET_MAX_KEYS, set->kt->width);
	return set;
}
