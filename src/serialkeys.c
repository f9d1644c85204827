/*-------------------------------------------------------------------------
 *
 * serialkeys.c
 *	  Key streams in their serialized form (see serialkeys.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "serialkeys.h"

Size
cd_serial_fixed_size(CDKeyReader *r, int width, Size limit)
{
	uint64		block[CD_BLOCK_KEYS];
	Size		size = 0;
	uint32		m;
	uint32		nblocks = 0;

	while (size <= limit && (m = r->next_fixed(r, block, CD_BLOCK_KEYS)) > 0)
	{
		size += cd_block_size(block, m, width);
		if ((++nblocks & 0x1FFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return size;
}

void
cd_serial_write_fixed(StringInfo buf, CDKeyReader *r, int width)
{
	uint64		block[CD_BLOCK_KEYS];
	uint32		m;
	uint32		nblocks = 0;

	while ((m = r->next_fixed(r, block, CD_BLOCK_KEYS)) > 0)
	{
		cd_block_write(buf, block, m, width);
		if ((++nblocks & 0x1FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

void
cd_serial_write_bytes(StringInfo buf, CDKeyReader *r)
{
	buf->len += (int) cd_front_encode(buf->data + buf->len,
									  (Size) (buf->maxlen - buf->len - 1), r);
	buf->data[buf->len] = '\0';
}

void
cd_serial_read_fixed(StringInfo buf, const CDKeyType *kt, uint32 n,
					 CDKeyWriter *w, const char *what)
{
	uint64		block[CD_BLOCK_KEYS];
	CDBlockDecoder d;
	uint32		m;

	cd_block_decoder_init(&d, buf->data + buf->cursor, buf->len - buf->cursor,
						  kt, n, what);
	while ((m = cd_block_decoder_next(&d, block)) > 0)
		w->put_fixed(w, block, m);
	buf->cursor = (const char *) d.p - buf->data;
}
