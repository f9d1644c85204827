/*-------------------------------------------------------------------------
 *
 * keymerge.h
 *	  The merge engine's kernels (merge_template.h) for each key width:
 *	  branch-free steps of a union, forward or backward, of a merge that
 *	  keeps some classes of keys (intersection, difference, containment,
 *	  overlap), and of a two- or three-way count, over sorted, strictly
 *	  increasing integer keys.
 *
 * Every sorted merge of fixed-width keys, and of byte keys by their 8-byte
 * prefixes, runs its inner loop through these: the fixed-width set's
 * in-place merge (set_keys_template.h), the packed set's merge of blocks
 * and the union of its held states (packedset.c, keyunion.c), the
 * front-coded set's count of keys of one length (frontset.c), and the
 * stored sets' merges of decoded arrays (dset_ops.c merge_keys: union,
 * intersection, difference, containment, overlap).  Names are
 * cd_merge_<kernel>_u8 .. _u64.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEYMERGE_H
#define CD_KEYMERGE_H

#include "postgres.h"

#define CDM_KEY uint8
#define CDM_NAME(x) cd_merge_##x##_u8
#include "merge_template.h"

#define CDM_KEY uint16
#define CDM_NAME(x) cd_merge_##x##_u16
#include "merge_template.h"

#define CDM_KEY uint32
#define CDM_NAME(x) cd_merge_##x##_u32
#include "merge_template.h"

#define CDM_KEY uint64
#define CDM_NAME(x) cd_merge_##x##_u64
#include "merge_template.h"

#endif							/* CD_KEYMERGE_H */
