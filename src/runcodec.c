/*-------------------------------------------------------------------------
 *
 * runcodec.c
 *	  Runs of consecutive fixed-width keys: writing and reading the runs
 *	  layout (see runcodec.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "blockcodec.h"
#include "errors.h"
#include "runcodec.h"
#include "varint.h"

Size
cd_run_put(StringInfo buf, int width, bool first, uint64 start, uint64 len,
		   uint64 prevend)
{
	Size		size;

	if (first)
	{
		size = width;
		if (buf != NULL)
		{
			int			j;

			for (j = width - 1; j >= 0; j--)
				appendStringInfoCharMacro(buf, (char) (start >> (8 * j)));
		}
	}
	else
	{
		size = cd_varint_size(start - prevend - 2);
		if (buf != NULL)
			cd_send_varint(buf, start - prevend - 2);
	}
	if (buf != NULL)
		cd_send_varint(buf, len - 1);
	return size + cd_varint_size(len - 1);
}

Size
cd_runs_put_count(StringInfo buf, uint64 nruns)
{
	if (buf != NULL)
		cd_send_varint(buf, nruns);
	return cd_varint_size(nruns);
}

/* a number of the layout */
static uint64
read_number(CDRunsReader *r)
{
	uint64		v;

	if (!cd_varint_read(r->data, &r->pos, r->len, 64, &v))
		cd_invalid(r->what, "A number is malformed.");
	return v;
}

void
cd_runs_reader_init(CDRunsReader *r, const char *data, Size len, int width,
					uint64 n, const char *what)
{
	r->data = data;
	r->pos = 0;
	r->len = len;
	r->width = width;
	r->what = what;
	r->left = n;
	r->started = false;
	r->prev = 0;
	r->calls = 0;
	r->nruns = read_number(r);
	/* every run takes at least 1 byte and holds at least 1 key */
	if (r->nruns > n || r->nruns > (uint64) (len - r->pos) ||
		(n > 0 && r->nruns == 0))
		cd_invalid(what, "The number of runs does not match the number of keys.");
}

bool
cd_runs_next(CDRunsReader *r, uint64 *first, uint64 *last)
{
	int			width = r->width;
	uint64		limit = cd_width_max_key(width);
	uint64		start;
	uint64		len;

	if (r->nruns == 0)
	{
		if (r->left != 0)
			cd_invalid(r->what, "The runs hold fewer keys than the value.");
		return false;
	}
	if (!r->started)
	{
		if (r->len - r->pos < (Size) width)
			cd_invalid(r->what, "The keys run past the end of the value.");
		start = cd_key_read_be((const uint8 *) r->data + r->pos, width);
		r->pos += width;
	}
	else
	{
		uint64		gap = read_number(r);

		/* start = prev + gap + 2 <= limit */
		if (r->prev >= limit - 1 || gap > limit - r->prev - 2)
			cd_invalid(r->what, "A key is out of range.");
		start = r->prev + gap + 2;
	}
	len = read_number(r);
	if (len >= r->left)
		cd_invalid(r->what, "The runs hold more keys than the value.");
	if (len > limit - start)
		cd_invalid(r->what, "A key is out of range.");
	r->left -= len + 1;
	r->prev = start + len;
	r->started = true;
	r->nruns--;
	*first = start;
	*last = start + len;
	if ((++r->calls & 0xFFFF) == 0)
		CHECK_FOR_INTERRUPTS();
	return true;
}
