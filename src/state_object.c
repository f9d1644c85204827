/*-------------------------------------------------------------------------
 *
 * state_object.c
 *	  A large serialized state as an expanded object (see state_object.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "state_object.h"

typedef struct CDStateObject
{
	ExpandedObjectHeader hdr;
	CDStateImage img;
} CDStateObject;

static Size
state_flat_size(ExpandedObjectHeader *eohptr)
{
	return cd_state_image_size(&((CDStateObject *) eohptr)->img);
}

static void
state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	const CDStateImage *img = &((CDStateObject *) eohptr)->img;

	if (allocated_size != cd_state_image_size(img))
		elog(ERROR, "count_distinct: a state of %zu bytes flattened into %zu",
			 cd_state_image_size(img), allocated_size);
	cd_state_image_write(img, (char *) result);
}

static const ExpandedObjectMethods state_methods = {
	state_flat_size,
	state_flatten
};

/*
 * The object's context is the caller's itself, not one of its own: up to
 * PostgreSQL 15, nodeAgg copies (here: flattens) a serialization function's
 * result unless MemoryContextContains(its context, the pointer), which
 * reads the word before the pointer, and before an object's read-write
 * pointer comes its eoh_context.  Nothing deletes the object through that
 * context: only code that owns a read-write object of its own type (PL/pgSQL
 * variables, arrays) does that, and this datum goes from a partial
 * aggregate to a combine function only.
 */
Datum
cd_state_object_make(CDSet *set)
{
	CDStateObject *obj;
	CDStateImage img;

	if (cd_set_memory_size(set) < CD_STATE_OBJECT_MIN ||
		!cd_state_image_init(&img, set))
		return (Datum) 0;
	obj = palloc(sizeof(CDStateObject));
	EOH_init_header(&obj->hdr, &state_methods, CurrentMemoryContext);
	obj->img = img;
	return EOHPGetRWDatum(&obj->hdr);
}

const CDStateImage *
cd_state_object_image(Datum value)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(value)))
		return NULL;
	eoh = DatumGetEOHP(value);
	if (eoh->eoh_methods != &state_methods)
		return NULL;
	return &((CDStateObject *) eoh)->img;
}
