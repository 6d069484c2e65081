/* SPDX-License-Identifier: MIT */
/*
 * The operations on one set of a cache level (model_cache.h), inline: a
 * stream calls them several times for every line, and as calls into
 * model_cache.c (the reference passed through memory) they cost 3-7% more
 * of the model's instructions and 13% more of a warm stream's host time
 * in QEMU. Only model_cache.h includes this file.
 */
#ifndef CXLBED_MODEL_CACHE_SET_H
#define CXLBED_MODEL_CACHE_SET_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline uint32_t *tags_of(const uint8_t *set)
{
	return (uint32_t *)set;
}

static inline uint8_t *flags_of(const struct mc_level *l, uint8_t *set)
{
	return set + 4 * l->ways;
}

static inline uint32_t *mru_of(const struct mc_level *l, uint8_t *set)
{
	return (uint32_t *)(set + l->ready_off - sizeof(uint32_t));
}

static inline double *ready_of(const struct mc_level *l, uint8_t *set)
{
	return (double *)(set + l->ready_off);
}

/*
 * Bit w set where way w holds @tag. Four tags at a time (SSE2, every
 * x86-64 host) when the ways come in fours: no branch per way, which the
 * host mispredicted on every miss.
 */
#if defined(__SSE2__)

/* Bit i set where tags[i] == @want, for four tags (16-byte aligned). */
static inline uint32_t four(const uint32_t *t, __m128i want)
{
	return (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(
		_mm_load_si128((const __m128i *)t), want)));
}

static inline uint32_t tag_mask(const struct mc_level *l, const uint8_t *set,
				uint32_t tag)
{
	const uint32_t *t = tags_of(set);
	__m128i want = _mm_set1_epi32((int)tag);
	uint32_t m = 0;

	/* the model's usual geometries, unrolled */
	if (l->ways == 16)
		return four(t, want) | four(t + 4, want) << 4 |
		       four(t + 8, want) << 8 | four(t + 12, want) << 12;
	if (l->ways == 12)
		return four(t, want) | four(t + 4, want) << 4 |
		       four(t + 8, want) << 8;
	if (!(l->ways & 3)) {
		for (uint32_t w = 0; w < l->ways; w += 4)
			m |= four(t + w, want) << w;
		return m;
	}
	for (uint32_t w = 0; w < l->ways; w++)
		m |= (uint32_t)(t[w] == tag) << w;
	return m;
}
#else
static inline uint32_t tag_mask(const struct mc_level *l, const uint8_t *set,
				uint32_t tag)
{
	const uint32_t *t = tags_of(set);
	uint32_t m = 0;

	for (uint32_t w = 0; w < l->ways; w++)
		m |= (uint32_t)(t[w] == tag) << w;
	return m;
}
#endif

/* Way @w was used: its MRU bit; all set would say nothing, so restart. */
static inline void touch(const struct mc_level *l, uint8_t *set, int w)
{
	uint32_t *mru = mru_of(l, set), m = *mru | 1u << w;

	*mru = m == l->full ? 1u << w : m;
}

/* The set @line maps to in @l, and its tag there (line / sets + 1). */
static inline uint64_t set_index(const struct mc_level *l, uint64_t line,
				 uint32_t *tag)
{
	if (l->set_mask) {
		*tag = (uint32_t)((line >> l->set_shift) + 1);
		return line & l->set_mask;
	}
	*tag = (uint32_t)(line / l->sets + 1);
	return line % l->sets;
}

/* The lock of @line's set (mc_level_init_locked only). */
static inline int *mc_set_lock(const struct mc_level *l, uint64_t line)
{
	uint32_t tag;

	return (int *)(l->mem + set_index(l, line, &tag) * l->block + l->lock_off);
}

/* Find @line in @l (touches nothing). */
static inline __attribute__((always_inline)) void
mc_find(const struct mc_level *l, uint64_t line, struct mc_ref *r)
{
	uint32_t m;

	r->index = set_index(l, line, &r->tag);
	r->set = l->mem + r->index * l->block;
	m = tag_mask(l, r->set, r->tag);
	r->way = m ? __builtin_ctz(m) : -1;
}

/* The flags of the way @r found (MC_PENDING left out); it is not touched. */
static inline uint8_t mc_flags(const struct mc_level *l,
			       const struct mc_ref *r)
{
	return flags_of(l, r->set)[r->way] & ~MC_PENDING;
}

/* When the data of the way @r found is there (0: long ago); not touched. */
static inline double mc_ready(const struct mc_level *l,
			      const struct mc_ref *r)
{
	return flags_of(l, r->set)[r->way] & MC_PENDING ?
	       ready_of(l, r->set)[r->way] : 0;
}

/* Empty the way @r found: the next fill of the set takes it. */
static inline void mc_drop(struct mc_level *l, const struct mc_ref *r)
{
	tags_of(r->set)[r->way] = 0;
	flags_of(l, r->set)[r->way] = 0;
}

/*
 * Use the way @r found: mark it recently used, set @set_flags and clear
 * @clear_flags, give back its ready time as mc_lookup_at does (@settled);
 * returns its flags before the change.
 */
static inline uint8_t mc_use(struct mc_level *l, const struct mc_ref *r,
			     uint8_t set_flags, uint8_t clear_flags,
			     double settled, double *ready)
{
	uint8_t *f = &flags_of(l, r->set)[r->way];
	uint8_t old = *f;

	touch(l, r->set, r->way);
	if (ready) {
		*ready = 0;
		if (old & MC_PENDING) {
			*ready = ready_of(l, r->set)[r->way];
			if (*ready <= settled)
				*f &= ~MC_PENDING;
		}
	}
	*f = (*f | set_flags) & ~(clear_flags & ~MC_PENDING);
	return old & ~MC_PENDING;
}

/* The line @r stands for (found or not). */
static inline uint64_t mc_ref_line(const struct mc_level *l,
				   const struct mc_ref *r)
{
	return (uint64_t)(r->tag - 1) * l->sets + r->index;
}

/*
 * Put the line @r did not find into @r's set, evicting the pseudo-LRU way
 * (an empty one first). Returns true when a dirty line left, its number in
 * *victim. Whatever line left, dirty or clean, in *gone plus 1 (0: the way
 * was empty), unless @gone is NULL.
 */
static inline __attribute__((always_inline)) bool
mc_put(struct mc_level *l, const struct mc_ref *r, uint8_t flags, double ready,
       uint64_t *victim, uint64_t *gone)
{
	uint32_t *t = tags_of(r->set);
	uint8_t *f = flags_of(l, r->set);
	uint32_t empty = tag_mask(l, r->set, 0) & l->full;
	uint32_t old = ~*mru_of(l, r->set) & l->full;
	int w = empty ? __builtin_ctz(empty) : old ? __builtin_ctz(old) : 0;
	uint32_t was = t[w];	/* once: another core may empty the way */
	bool dirty = was && (f[w] & MC_DIRTY);

	if (dirty && victim)
		*victim = (uint64_t)(was - 1) * l->sets + r->index;
	if (gone)
		*gone = was ? (uint64_t)(was - 1) * l->sets + r->index + 1 : 0;
	flags &= ~MC_PENDING;
	if (ready > 0) {	/* 0: arrived long ago, nothing to keep */
		flags |= MC_PENDING;
		ready_of(l, r->set)[w] = ready;
	}
	t[w] = r->tag;
	f[w] = flags;
	touch(l, r->set, w);
	return dirty;
}

/*
 * A hint to the host to cache the line at @p. An instruction of its own on
 * x86: GCC 12 drops __builtin_prefetch calls whose address comes from
 * either arm of a conditional (mc_warm's set index) once there are two.
 */
static inline void mc_host_prefetch(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

/*
 * Bring @line's set into the host's caches ahead of a find or a fill
 * (touches nothing in the model). A stream's sets follow one another in
 * memory but a level's set blocks are 256 bytes apart, a stride the
 * host's own prefetcher does not follow, and QEMU's own traffic pushes
 * them out of its caches: a stream's finds waited for host memory
 * (model_mem.c's prefetch() warms the sets of the lines it asks for next).
 */
static inline void mc_warm(const struct mc_level *l, uint64_t line)
{
	uint32_t tag;
	const uint8_t *set = l->mem + set_index(l, line, &tag) * l->block;

	/* a block of 16 ways: tags, flags, ready times (a hint past a
	 * smaller block's end does no harm) */
	mc_host_prefetch(set);
	mc_host_prefetch(set + 64);
	mc_host_prefetch(set + 128);
	mc_host_prefetch(set + 192);
}

#endif
