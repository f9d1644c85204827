/*-------------------------------------------------------------------------
 *
 * set.c
 *	  The set interface (set.h): the table of representations and what
 *	  works the same on all of them, through their operations.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "errors.h"
#include "frontset.h"
#include "serialkeys.h"
#include "serialize.h"
#include "set.h"
#include "packedset.h"
#include "policy.h"
#include "sort.h"
#include "varset.h"

const CDSetOps *const cd_set_kinds[CD_SET_NKINDS] = {
	[CD_SET_FIXED] = &cd_fixed_set_ops,
	[CD_SET_VAR] = &cd_var_set_ops,
	[CD_SET_PACKED] = &cd_packed_set_ops,
	[CD_SET_FRONT] = &cd_front_set_ops,
};

/* The representation for keys of kt. */
static const CDSetOps *
kind_for(const CDKeyType *kt)
{
	return kt->width > 0 ? &cd_fixed_set_ops : &cd_var_set_ops;
}

CDSet *
cd_set_create(const CDKeyType *kt, CDAlloc *alloc)
{
	return kind_for(kt)->create(kt, alloc);
}

CDSet *
cd_set_merge(CDSet *dst, CDSet *src, CDAlloc *alloc)
{
	cd_keytype_check_same(dst->kt, src->kt);
	/* fixed-width sets of both kinds: the packed one's merge takes either */
	if (dst->kind == CD_SET_FIXED && src->kind == CD_SET_PACKED)
	{
		cd_set_compact(dst);
		dst = cd_packed_from_set(dst, alloc->aggcontext);
	}
	/* byte keys of both kinds: the front-coded one's merge takes either */
	if (dst->kind == CD_SET_VAR && src->kind == CD_SET_FRONT)
	{
		cd_set_compact(dst);
		dst = cd_front_from_set(dst, alloc);
	}
	Assert(dst->kind == src->kind || dst->kind == CD_SET_PACKED ||
		   dst->kind == CD_SET_FRONT);
	return cd_set_ops(dst)->merge(dst, src, alloc);
}

Datum *
cd_set_output_datums(CDSet *set, uint32 *n)
{
	const CDKeyType *kt = set->kt;
	CDKeyReader r;
	Datum	   *values;
	uint32		count;
	uint32		i = 0;

	cd_set_compact(set);
	count = set->nsorted;
	/* refuse before decoding anything what no array can hold */
	if (count > MaxArraySize ||
		(kt->width > 0 && (Size) count * kt->typlen > MaxAllocSize) ||
		(kt->width == 0 && cd_set_ops(set)->used_bytes(set) > MaxAllocSize))
		cd_error_array_too_large(count);
	values = palloc_extended(Max(count, 1) * sizeof(Datum), MCXT_ALLOC_HUGE);
	cd_set_ops(set)->reader(set, &r);
	if (kt->width > 0)
	{
		uint64		batch[CD_KEY_BATCH];
		uint32		m;
		uint32		j;

		while ((m = r.next_fixed(&r, batch, CD_KEY_BATCH)) > 0)
		{
			for (j = 0; j < m; j++)
				values[i++] = cd_key_decode(kt, batch[j]);
		}
	}
	else
	{
		Size		len;
		const char *key;

		while ((key = r.next_bytes(&r, &len)) != NULL)
			values[i++] = cd_varkey_output_datum(kt, key, len);
		/* distinct by bytes, ordered by the collation */
		if (kt->sort_on_output)
			cd_sort_datums(values, count, (SortSupport) &kt->ssup);
	}
	Assert(i == count);
	*n = count;
	return values;
}

bool
cd_state_image_init(CDStateImage *img, CDSet *set)
{
	CDKeyReader r;
	bool		known = true;

	cd_set_compact(set);
	img->set = set;
	cd_set_ops(set)->reader(set, &r);
	/* keys their reader offers in the serialized form are copied */
	img->serial = r.write_serial != NULL;
	if (img->serial)
		img->keybytes = r.serial_size(&r);
	else if (set->kt->encoding == CD_KEY_BYTES)
		img->keybytes = cd_serial_bytes_size(&r);
	else
		known = false;
	cd_key_reader_release(&r);
	if (!known)
		return false;
	cd_state_header(&img->head, set->kt, set->nsorted, img->keybytes);
	if (!img->serial)
		elog(DEBUG2, "count_distinct: %u keys of %d bytes serialized into %zu bytes",
			 set->nsorted, set->kt->width, cd_state_image_size(img));
	return true;
}

void
cd_state_image_write(const CDStateImage *img, char *dst)
{
	Size		size = cd_state_image_size(img);
	CDKeyReader r;

	memcpy(dst, img->head.data, img->head.len);
	SET_VARSIZE(dst, size);
	dst += img->head.len;
	cd_set_ops(img->set)->reader(img->set, &r);
	Assert(img->serial == (r.write_serial != NULL));
	if (img->serial)
		r.write_serial(&r, dst);
	else if (cd_front_encode(dst, img->keybytes, &r) != img->keybytes)
		elog(ERROR, "count_distinct: a state's keys took other than the %zu bytes counted",
			 img->keybytes);
	cd_key_reader_release(&r);
}

bytea *
cd_set_serialize(CDSet *set, CDValueIO *vio)
{
	CDStateImage img;
	CDKeyReader r;

	if (cd_state_image_init(&img, set))
	{
		bytea	   *state = palloc(cd_state_image_size(&img));

		cd_state_image_write(&img, (char *) state);
		pfree(img.head.data);
		return state;
	}
	cd_set_ops(set)->reader(set, &r);
	return cd_state_write(set->kt, vio, &r);
}

CDSet *
cd_set_from_local_state(const CDStateImage *img, const CDKeyType *kt)
{
	const CDSet *src = img->set;

	Assert(cd_keytype_equal(kt, src->kt));
	/* as cd_set_deserialize keeps the state it reads (below) */
	if (kt->encoding == CD_KEY_BYTES && img->keybytes > CD_FRONT_MIN_BYTES &&
		(CD_FRONT_ALWAYS ||
		 cd_front_state_stays(img->keybytes, cd_set_ops(src)->sorted_bytes(src))))
		return cd_front_from_local_state(src, kt, img->keybytes,
										 CurrentMemoryContext);
	return NULL;
}

CDSet *
cd_set_deserialize(StringInfo buf, const CDStateHeader *h,
				   const CDKeyType *kt, CDValueIO *vio)
{
	CDKeyWriter w;
	Size		bytes = cd_state_check_keys(buf, h, kt);
	const CDSetOps *ops = kind_for(kt);

	/*
	 * as large as a fixed-width set would grow before it is packed: the
	 * packed keys kept as they are, checked when read
	 */
	if (kt->width > 0 && bytes > CD_PACKED_MIN_BYTES)
		return cd_packed_from_state(buf, kt, h->n, CurrentMemoryContext);
	/* large states of byte keys: kept front-coded unless that is larger */
	if (kt->encoding == CD_KEY_BYTES && bytes > CD_FRONT_MIN_BYTES &&
		(CD_FRONT_ALWAYS ||
		 cd_front_state_stays_front(buf->data + buf->cursor,
									buf->len - buf->cursor, h->n)))
		return cd_front_from_state(buf, kt, h->n, CurrentMemoryContext);
	(void) ops->build(kt, CurrentMemoryContext, h->n, bytes, &w);
	if (vio != NULL)
		cd_value_io_set_encoding(vio, h->text_encoding);
	cd_state_read_keys(buf, kt, vio, h->n, &w);
	return cd_set_written(&w);
}
