/*-------------------------------------------------------------------------
 *
 * bytemerge.h
 *	  The merge engine for byte keys and variable-size keys: a source of
 *	  sorted, distinct keys with one head (CDByteSource) over an index of
 *	  entries, an array of entries (varentry.h), a front-coded stream
 *	  (frontcode.h's trusting decoder) or a key reader (keystream.h), and
 *	  the in-place merge of a source into a sorted part (cd_byte_merge_into),
 *	  the count of the union of a sorted part read in place and a source
 *	  (cd_byte_count_two) and of several sources (cd_byte_union_count).
 *
 * The in-place merge is the one loop of both sets that keep variable-size
 * keys sorted in one array: the variable-size set (varset.c, merge_sorted:
 * entries, compared as their type's equality needs) and the front-coded set
 * (frontset.c, merge_into: front coding, byte keys only).  The sorted part
 * has been moved to the end of its array, [from, end), with room before it
 * for src's keys; the union is written from the front, in the same form.
 * A key of the sorted part that follows another of its keys in the output
 * is copied as it is (consecutive ones in one memmove); with front coding,
 * one that follows a key of src is encoded again, and shares at least as
 * much with it as with its old predecessor (the new key lies between them),
 * so its encoding does not grow: in either form the write position never
 * passes what the merge has read.  Equal keys are kept once (the sorted
 * part's).
 *
 * Front-coded keys are compared with what the coding says: a key that
 * shares more with its predecessor than that predecessor shared with src's
 * head is below the head as well, one that shares less is above it; only
 * when they share as much are the bytes compared, from there on.
 *
 * The merge and the two-way count are inlined into their callers once for
 * each form of source they read, with the form of the sorted part a
 * constant: each set's loop keeps only its own comparisons and reads its
 * keys without a branch on their form.  Both compare as
 * cd_byte_heads_compare does: the one comparison of a sorted part's head
 * with another source's.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_BYTEMERGE_H
#define CD_BYTEMERGE_H

#include "postgres.h"

#include "miscadmin.h"

#include "errors.h"
#include "frontcode.h"
#include "keystream.h"
#include "set_header.h"
#include "varentry.h"

/* What a CDByteSource reads. */
typedef enum CDByteForm
{
	CD_BYTES_ITEMS,				/* an index of sorted, distinct items */
	CD_BYTES_ENTRIES,			/* sorted entries (varentry.h) */
	CD_BYTES_FRONT,				/* front-coded keys (frontcode.h) */
	CD_BYTES_READER				/* a key reader of byte keys */
} CDByteForm;

/*
 * Sorted, distinct keys and their current one, head (NULL past the last).
 * A key stays valid while the source advances once more, not longer (a
 * front-coded source keeps two keys; entries and items stay in place).
 */
typedef struct CDByteSource
{
	CDByteForm	form;
	const CDVarItem *head;		/* the current key, or NULL */
	/*
	 * entries: the key type, to index each key for cd_compare_items (its
	 * prefix, or its image and abbreviated key); NULL: only its bytes and
	 * length (byte keys compared whole)
	 */
	const CDKeyType *kt;
	CDVarItem	cur;			/* head, unless form is CD_BYTES_ITEMS */
	/* CD_BYTES_ITEMS */
	const CDVarItem *items;
	Size		nitems;
	Size		next;			/* the item after head */
	/* CD_BYTES_ENTRIES: data[start, pos) is head's entry, up to end */
	const char *data;
	Size		start;
	Size		pos;
	Size		end;
	CDImageBuf	img;			/* head's aligned image (comparator) */
	/* CD_BYTES_FRONT: d.start and d.pos bound head's encoding */
	CDFrontDecoder d;
	/* CD_BYTES_READER */
	CDKeyReader *reader;
} CDByteSource;

/*
 * The next key: its bytes (NULL past the last), its length in *len; with
 * head, it becomes s->head too (else s->head is left behind: a caller that
 * needs only the bytes, as of front-coded keys).  form: s->form, and form
 * and head constants where the caller knows them (no branch on them then).
 */
static pg_attribute_always_inline const char *
cd_byte_next_as(CDByteSource *s, CDByteForm form, bool head, Size *len)
{
	const CDVarItem *item;
	const char *key;

	Assert(form == s->form);
	*len = 0;
	switch (form)
	{
		case CD_BYTES_ITEMS:
			if (s->next >= s->nitems)
				break;
			cd_prefetch_item_key(s->items, s->next, s->nitems);
			item = &s->items[s->next++];
			if (head)
				s->head = item;
			*len = item->len;
			return item->key;
		case CD_BYTES_ENTRIES:
			if (s->pos >= s->end)
				break;
			s->start = s->pos;
			key = cd_read_entry(s->data, &s->pos, len);
			if (s->kt != NULL)
				cd_index_sorted_entry(s->kt, &s->cur, key, *len, &s->img);
			else
			{
				s->cur.key = key;
				s->cur.len = *len;
			}
			if (head)
				s->head = &s->cur;
			return key;
		case CD_BYTES_FRONT:
		case CD_BYTES_READER:
			key = form == CD_BYTES_FRONT ?
				cd_front_decoder_next(&s->d, len) :
				s->reader->next_bytes(s->reader, len);
			if (key == NULL)
				break;
			if (head)
			{
				s->cur.key = key;
				s->cur.len = *len;
				s->head = &s->cur;
			}
			return key;
	}
	if (head)
		s->head = NULL;
	return NULL;
}

/* Make the next key the head (NULL past the last). */
static pg_attribute_always_inline void
cd_byte_advance_as(CDByteSource *s, CDByteForm form)
{
	Size		len;

	(void) cd_byte_next_as(s, form, true, &len);
}

static pg_attribute_always_inline void
cd_byte_advance(CDByteSource *s)
{
	cd_byte_advance_as(s, s->form);
}

/* The n items as a source. */
static inline void
cd_byte_source_items(CDByteSource *s, const CDVarItem *items, Size n)
{
	memset(s, 0, sizeof(CDByteSource));
	s->form = CD_BYTES_ITEMS;
	s->items = items;
	s->nitems = n;
	cd_byte_advance(s);
}

/*
 * The entries of data[from, end) as a source; kt: see CDByteSource (its
 * scratch lives in CurrentMemoryContext until cd_byte_source_free).
 */
static inline void
cd_byte_source_entries(CDByteSource *s, const CDKeyType *kt, const char *data,
					   Size from, Size end)
{
	memset(s, 0, sizeof(CDByteSource));
	s->form = CD_BYTES_ENTRIES;
	s->kt = kt;
	s->data = data;
	s->pos = from;
	s->end = end;
	cd_byte_advance(s);
}

/* The front-coded keys of data[from, end) as a source (until ..._free). */
static inline void
cd_byte_source_front(CDByteSource *s, const char *data, Size from, Size end)
{
	memset(s, 0, sizeof(CDByteSource));
	s->form = CD_BYTES_FRONT;
	cd_front_decoder_init(&s->d, data, from, end);
	cd_byte_advance(s);
}

/* A reader's byte keys as a source (the reader stays the caller's). */
static inline void
cd_byte_source_reader(CDByteSource *s, CDKeyReader *r)
{
	memset(s, 0, sizeof(CDByteSource));
	s->form = CD_BYTES_READER;
	s->reader = r;
	cd_byte_advance(s);
}

static inline void
cd_byte_source_free(CDByteSource *s)
{
	if (s->form == CD_BYTES_FRONT)
		cd_front_decoder_free(&s->d);
	if (s->img.buf)
		pfree(s->img.buf);
	s->img.buf = NULL;
}

/*
 * A front-coded sorted part's head k (just decoded by d) against t, when
 * k's predecessor was below t and shared *lcp bytes with it: k shares
 * d->shared bytes with that key, so unless that is *lcp, the order is known
 * without reading the keys.  Sets *lcp to what k and t share.
 */
static inline int
cd_byte_compare_next(const CDFrontDecoder *d, const char *k, Size klen,
					 const char *t, Size tlen, Size *lcp)
{
	if (d->shared > *lcp)
		return -1;				/* like the key before: below t */
	if (d->shared < *lcp)
	{
		/* k is past the key before where that one still matched t */
		*lcp = d->shared;
		return 1;
	}
	return cd_bytes_compare_from(k, klen, t, tlen, *lcp, lcp);
}

/*
 * The heads of a sorted part (k) and of another source (t) as the two-way
 * loops read them: bytes and length, NULL past the last key; a front-coded
 * part's key shares lcp bytes with t while below (k's predecessor was below
 * t).
 */
typedef struct CDByteHeads
{
	const char *k;
	Size		klen;
	const char *t;
	Size		tlen;
	bool		below;
	Size		lcp;
} CDByteHeads;

static pg_attribute_always_inline void
cd_byte_heads_init(CDByteHeads *h, const CDByteSource *part,
				   const CDByteSource *src)
{
	h->k = part->head ? part->head->key : NULL;
	h->klen = part->head ? part->head->len : 0;
	h->t = src->head ? src->head->key : NULL;
	h->tlen = src->head ? src->head->len : 0;
	h->below = false;
	h->lcp = 0;
}

/*
 * k against t (1 past part's last key, -1 past src's): entries (not front)
 * as kt's keys (cd_compare_items over the heads, which the sources index),
 * front-coded keys as bytes, with what the coding says while below (see the
 * top of the file).
 */
static pg_attribute_always_inline int
cd_byte_heads_compare(const CDKeyType *kt, const CDByteSource *part,
					  const CDByteSource *src, bool front, CDByteHeads *h)
{
	int			c;

	if (h->k == NULL)
		c = 1;
	else if (h->t == NULL)
		c = -1;
	else if (!front)
		c = cd_compare_items(kt, part->head, src->head, false);
	else if (h->below)
		c = cd_byte_compare_next(&part->d, h->k, h->klen, h->t, h->tlen,
								 &h->lcp);
	else
		c = cd_bytes_compare_from(h->k, h->klen, h->t, h->tlen, 0, &h->lcp);
	if (front)
		h->below = (c < 0);
	return c;
}

/* What cd_byte_merge_into found: the union's size. */
typedef struct CDByteMerged
{
	Size		bytes;			/* the union's bytes, from data[0] */
	Size		count;			/* its keys */
	Size		nnew;			/* src's keys that were not in the part */
	Size		newraw;			/* their entries' bytes */
} CDByteMerged;

/*
 * Merge src (of the form sform, a constant: the caller calls this once for
 * each form of source it merges) into the sorted part part (a source over
 * data[from, end), of the form front says: front coding, else entries),
 * writing the union to
 * data from 0 in the same form (see the top of the file).  Entries are
 * compared as kt's keys (cd_compare_items: the part's source indexes
 * them), front-coded keys as bytes.  The room before from must hold src's
 * keys in the part's form.  ERROR past CD_SET_MAX_KEYS keys.
 */
static pg_attribute_always_inline void
cd_byte_merge_into(const CDKeyType *kt, char *data, CDByteSource *part,
				   CDByteSource *src, bool front, CDByteForm sform,
				   CDByteMerged *out)
{
	const CDByteForm pform = front ? CD_BYTES_FRONT : CD_BYTES_ENTRIES;
	Size		w = 0;
	Size		span = 0;		/* part's keys copied as they are: */
	Size		spanend = 0;	/* [span, spanend) */
	bool		in_span = false;
	bool		as_is = true;	/* the last key written is k's predecessor */
	const char *last = NULL;	/* the last key written (front coding) */
	Size		lastlen = 0;
	Size		count = 0;
	Size		nnew = 0;
	Size		raw = 0;
	CDByteHeads h;

	Assert(part->form == pform && src->form == sform);
	cd_byte_heads_init(&h, part, src);
	while (h.k != NULL || h.t != NULL)
	{
		int			c = cd_byte_heads_compare(kt, part, src, front, &h);

		if (c <= 0)
		{
			/* k goes out; src's equal key is dropped */
			if (!front || as_is)
			{
				if (!in_span)
					span = front ? part->d.start : part->start;
				in_span = true;
				spanend = front ? part->d.pos : part->pos;
			}
			else
				cd_front_put_key(data, &w, h.k, h.klen,
								 cd_common_prefix(last, lastlen, h.k, h.klen));
			if (front)
			{
				last = h.k;
				lastlen = h.klen;
				as_is = true;
			}
			h.k = cd_byte_next_as(part, pform, !front, &h.klen);
			if (c == 0)
				h.t = cd_byte_next_as(src, sform, !front, &h.tlen);
		}
		else
		{
			/* t goes out, after the part's keys before it */
			if (in_span)
			{
				memmove(data + w, data + span, spanend - span);
				w += spanend - span;
				in_span = false;
			}
			if (front)
			{
				cd_front_put_key(data, &w, h.t, h.tlen,
								 last ? cd_common_prefix(last, lastlen,
														 h.t, h.tlen) : 0);
				last = h.t;
				lastlen = h.tlen;
				as_is = false;
			}
			else
				cd_emit_entry(data, &w, h.t, h.tlen);
			raw += cd_entry_header_size(h.tlen) + h.tlen;
			nnew++;
			h.t = cd_byte_next_as(src, sform, !front, &h.tlen);
		}
		if (unlikely(++count > CD_SET_MAX_KEYS))
			cd_error_group_too_large(CD_SET_MAX_KEYS, 0);
		if ((count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (in_span)
	{
		memmove(data + w, data + span, spanend - span);
		w += spanend - span;
	}
	out->bytes = w;
	out->count = count;
	out->nnew = nnew;
	out->newraw = raw;
}

/*
 * Count what the union of the sorted part part (front coding if front, else
 * entries compared as kt's keys) and src (of the form sform, a constant)
 * holds, with the comparisons of cd_byte_merge_into, writing nothing.
 * whole (a constant): the keys of the union, both sources read to their
 * ends; else only src's keys that part does not hold, part read only as far
 * as src's last key (a set's count: its sorted part's size is known).  The
 * sources stay the caller's to free.
 */
static pg_attribute_always_inline Size
cd_byte_count_two(const CDKeyType *kt, CDByteSource *part, CDByteSource *src,
				  bool front, CDByteForm sform, bool whole)
{
	const CDByteForm pform = front ? CD_BYTES_FRONT : CD_BYTES_ENTRIES;
	Size		count = 0;
	Size		steps = 0;
	CDByteHeads h;

	Assert(part->form == pform && src->form == sform);
	cd_byte_heads_init(&h, part, src);
	while (h.t != NULL || (whole && h.k != NULL))
	{
		int			c = cd_byte_heads_compare(kt, part, src, front, &h);

		if (c <= 0)
		{
			/* k is counted (whole), src's equal key with it */
			count += whole;
			h.k = cd_byte_next_as(part, pform, !front, &h.klen);
		}
		if (c >= 0)
		{
			count += (c > 0);
			h.t = cd_byte_next_as(src, sform, !front, &h.tlen);
		}
		if ((++steps & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return count;
}

/*
 * cd_byte_union_count's last two sources, if one is front-coded and the
 * other front-coded or an index: their union's keys added to *count, both
 * freed; false (nothing read) for other forms.
 */
static inline bool
cd_byte_union_count_two(CDByteSource *a, CDByteSource *b, Size *count)
{
	CDByteSource *part = a->form == CD_BYTES_FRONT ? a : b;
	CDByteSource *src = part == a ? b : a;

	if (part->form != CD_BYTES_FRONT)
		return false;
	if (src->form == CD_BYTES_ITEMS)
		*count += cd_byte_count_two(NULL, part, src, true, CD_BYTES_ITEMS,
									true);
	else if (src->form == CD_BYTES_FRONT)
		*count += cd_byte_count_two(NULL, part, src, true, CD_BYTES_FRONT,
									true);
	else
		return false;
	cd_byte_source_free(a);
	cd_byte_source_free(b);
	return true;
}

/* The most sources cd_byte_union_count reads at once. */
#define CD_BYTE_UNION_MAX	32

/*
 * The number of distinct keys of the nsrc sources src[] (byte keys, each
 * source sorted and distinct), read to their ends and freed: one k-way
 * merge, writing nothing.
 *
 * Each head is above the last key counted, L, and shares lcp bytes with
 * it; a head that shares more with L than another is the smaller (at the
 * first byte where the other differs from L, it has L's byte and the other
 * a greater one).  So only the heads that share the most with L are
 * compared, from there on.  A head that is the smallest is counted as L and
 * its source advances; the next key of a front-coded source shares with it
 * what its front coding says; heads not compared keep what they share with
 * L (L and the new one agree past it).  Two sources left, one of them
 * front-coded, are counted by cd_byte_count_two.
 */
static inline Size
cd_byte_union_count(CDByteSource *src, int nsrc)
{
	CDByteSource *s[CD_BYTE_UNION_MAX];
	Size		lcp[CD_BYTE_UNION_MAX];	/* what s[i]'s head shares with L */
	int			k = 0;
	int			i;
	Size		count = 0;

	Assert(nsrc <= CD_BYTE_UNION_MAX);
	for (i = 0; i < nsrc; i++)
	{
		if (src[i].head == NULL)
			cd_byte_source_free(&src[i]);
		else
		{
			s[k] = &src[i];
			lcp[k++] = 0;
		}
	}
	while (k > 1)
	{
		Size		most = 0;
		int			m = -1;
		uint32		eq = 0;		/* the heads equal to s[m]'s */
		const char *last;
		Size		lastlen;
		Size		shared;

		if (k == 2 && cd_byte_union_count_two(s[0], s[1], &count))
			return count;
		for (i = 0; i < k; i++)
			most = Max(most, lcp[i]);
		for (i = 0; i < k; i++)
		{
			int			c;

			if (lcp[i] != most)
				continue;		/* above the heads that share the most */
			c = m < 0 ? -1 :
				cd_bytes_compare_from(s[i]->head->key, s[i]->head->len,
									  s[m]->head->key, s[m]->head->len,
									  most, &shared);
			if (c < 0)
			{
				m = i;
				eq = 0;
			}
			if (c <= 0)
				eq |= (uint32) 1 << i;
		}

		/* s[m]'s head is the next key counted: L (valid past one advance) */
		last = s[m]->head->key;
		lastlen = s[m]->head->len;
		for (i = 0; i < k; i++)
		{
			if ((eq & ((uint32) 1 << i)) == 0)
			{
				if (lcp[i] == most)
					lcp[i] = cd_bytes_common_prefix(s[i]->head->key,
													s[i]->head->len, last,
													lastlen, most);
				continue;
			}
			cd_byte_advance(s[i]);
			if (s[i]->head == NULL)
				continue;
			if (s[i]->form == CD_BYTES_FRONT)
				lcp[i] = s[i]->d.shared;	/* what it shares with L */
			else
				lcp[i] = cd_bytes_common_prefix(s[i]->head->key,
												s[i]->head->len, last,
												lastlen, 0);
		}
		/* the sources at their end: the last one takes their place */
		for (i = k - 1; i >= 0; i--)
		{
			if (s[i]->head == NULL)
			{
				cd_byte_source_free(s[i]);
				k--;
				s[i] = s[k];
				lcp[i] = lcp[k];
			}
		}
		if ((++count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (k == 1)
	{
		do
		{
			count++;
			cd_byte_advance(s[0]);
		} while (s[0]->head != NULL);
		cd_byte_source_free(s[0]);
	}
	return count;
}

#endif							/* CD_BYTEMERGE_H */
