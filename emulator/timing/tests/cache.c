// SPDX-License-Identifier: MIT
/* Cache level, prefetcher, ROI marker decoding and the config parser. */
#include <stdlib.h>

#include "tap.h"
#include "model_cache.h"
#include "roi.h"
#include "tm_config.h"

static const char cfg_text[] =
	"cxlbed-timing 1\n"
	"# comment\n"
	"host name=h1 index=1\n"
	"clock ns_per_insn=0.5 skew_ns=1000\n"
	"cache line=64 l1=32768 l1_ways=8 mlp=24 prefetch=8\n"
	"resource name=link:sw0 read_gbps=32 write_gbps=32\n"
	"resource name=media:mem0 read_gbps=24 write_gbps=12\n"
	"target name=local path=local cxl=0 read_ns=100 write_ns=100\n"
	"target name=mem0 path=hb0/rp0/sw0/mem0 cxl=1 read_ns=150 "
	"write_ns=170 hops_ns=90 via=link:sw0,media:mem0\n"
	"region name=r0 base=0x110000000 size=0x10000000 gran=4096 "
	"targets=mem0\n";

int main(void)
{
	struct mc_level l;
	struct mc_prefetcher p = { .distance = 4 };
	uint64_t victim = 0, first = 0;
	int dir = 0, stream = 0, n, op, id;
	struct tm_config c;
	struct tm_shared *s;
	struct mf_fabric *f;
	char *err = NULL;
	uint8_t insn[8] = { 0x0f, 0x1f, 0x84, 0x00 };
	uint32_t word = CXLBED_ROI_WORD(CXLBED_ROI_END, 42);

	plan(22);
	/* 2 sets x 2 ways of 64-byte lines */
	ok(mc_level_init(&l, 256, 2, 64), "a 256-byte 2-way level");
	mc_insert(&l, 0, MC_DIRTY, 0, NULL);
	mc_insert(&l, 2, 0, 0, NULL);
	mc_lookup(&l, 0, 0, NULL, NULL);	/* 0 is now most recent */
	ok(!mc_insert(&l, 4, 0, 0, &victim) && !mc_contains(&l, 2) &&
	   mc_contains(&l, 0), "LRU evicts the least recently used way");
	ok(mc_insert(&l, 6, 0, 0, &victim) && victim == 0,
	   "evicting a dirty line hands it back for write-back");
	mc_level_free(&l);

	n = mc_prefetch_observe(&p, 100, &first, &dir, &stream);
	n += mc_prefetch_observe(&p, 101, &first, &dir, &stream);
	ok(n == 0, "two lines are not a stream yet");
	n = mc_prefetch_observe(&p, 102, &first, &dir, &stream);
	ok(n == 4 && first == 103 && dir == 1,
	   "third sequential line: prefetch 103..106 (%d from %lu)", n,
	   (unsigned long)first);
	mc_prefetch_issued(&p, stream, 107);
	n = mc_prefetch_observe(&p, 103, &first, &dir, &stream);
	ok(n == 1 && first == 107, "the stream moves on one line at a time");

	memcpy(insn + 4, &word, 4);
	ok(roi_decode(insn, 8, &op, &id) && op == CXLBED_ROI_END && id == 42,
	   "marker bytes decode to END 42");
	word = CXLBED_ROI_WORD(CXLBED_ROI_TOGETHER, 2);
	memcpy(insn + 4, &word, 4);
	ok(roi_decode(insn, 8, &op, &id) && op == CXLBED_ROI_TOGETHER && id == 2,
	   "a start-together marker decodes, with its host count");
	word = CXLBED_ROI_WORD(CXLBED_ROI_COPY, 2);
	memcpy(insn + 4, &word, 4);
	ok(roi_decode(insn, 8, &op, &id) && op == CXLBED_ROI_COPY && id == 2,
	   "a copy engine's marker decodes (cxlbed-copy.h)");
	word = CXLBED_ROI_WORD(CXLBED_ROI_COPY + 1, 2);
	memcpy(insn + 4, &word, 4);
	ok(!roi_decode(insn, 8, &op, &id), "an unknown operation is not a marker");
	insn[7] = 0;
	ok(!roi_decode(insn, 8, &op, &id),
	   "an ordinary 8-byte nop is not a marker");
	{
		struct mf_counters res[2] = { { .bytes = { 0 } } };
		struct roi_point a = { .t_ns = 100, .res = res };
		struct roi_point b = { .t_ns = 350, .res = res };
		struct roi_log log;
		struct roi_record *r;

		roi_log_init(&log, 2);
		roi_begin(&log, 0, 7, &a);
		ok(roi_end(&log, 1, 7, &b) && log.done->len == 1 &&
		   (r = &g_array_index(log.done, struct roi_record, 0)) &&
		   r->end.t_ns - r->begin.t_ns == 250 && r->begin.vcpu == 0 &&
		   r->end.vcpu == 1 && !roi_end(&log, 1, 7, &b),
		   "a region closes on another vCPU, once");
		roi_log_clear(&log);
	}

	ok(tm_config_parse("t.cfg", cfg_text, &c, &err),
	   "config parses (%s)", err ? err : "");
	ok(c.host_index == 1 && c.skew_ns == 1000 && c.mem.mlp == 24 &&
	   c.mem.l2_bytes == 2 << 20, "fields set, others keep defaults");
	s = tm_shared_open(NULL, &err);
	f = tm_fabric_build(&c, s, &err);
	ok(f && f->nregions == 1 && f->regions[0].t[0]->nres == 2 &&
	   mf_target_latency(f->regions[0].t[0], MF_READ) == 240 &&
	   f->local && !f->local->cxl, "fabric built from it");
	tm_fabric_free(f);
	tm_config_clear(&c);
	ok(!tm_config_parse("bad.cfg", "cxlbed-timing 1\nclock speed=3\n", &c,
			    &err) && strstr(err, "bad.cfg:2: unknown key"),
	   "errors name file and line");
	diag("%s", err);
	g_clear_pointer(&err, g_free);

	/* pseudo-LRU: MRU bits, cleared when they would all be set */
	{
		struct mc_level w;
		uint64_t v = 0;
		bool dirty;

		mc_level_init(&w, 4 * 64, 4, 64);	/* one set, four ways */
		for (uint64_t line = 10; line <= 40; line += 10)
			mc_insert(&w, line, MC_DIRTY, 0, &v);	/* bits reset at 40 */
		mc_lookup(&w, 10, 0, NULL, NULL);
		mc_lookup(&w, 20, 0, NULL, NULL);
		dirty = mc_insert(&w, 50, 0, 0, &v);
		ok(dirty && v == 30 && mc_contains(&w, 10) && mc_contains(&w, 20) &&
		   mc_contains(&w, 40),
		   "pseudo-LRU: after 40 then 10 and 20 were used, 30 leaves (%lu)",
		   (unsigned long)v);
		mc_level_free(&w);
		/* a set count that is not a power of two: victims decode */
		mc_level_init(&w, 3 * 64, 1, 64);	/* three sets, 1 way */
		mc_insert(&w, 7, MC_DIRTY, 0, &v);
		dirty = mc_insert(&w, 7 + 3 * 1000, 0, 0, &v);
		ok(dirty && v == 7,
		   "victim line rebuilt from set and tag (%lu)",
		   (unsigned long)v);
		mc_level_free(&w);
	}

	/*
	 * A shared level's locks: one per set, on the host line of the set's
	 * flags and MRU bits (what any fill writes), inside the set's block;
	 * and the level behaves as the same level without them.
	 */
	for (uint32_t ways = 4; ways <= 16; ways += 4) {
		struct mc_level a, b;
		unsigned int seed = ways;
		int differ = 0, misplaced = 0;

		mc_level_init(&a, 64 << 10, ways, 64);
		mc_level_init_locked(&b, 64 << 10, ways, 64);
		for (uint64_t set = 0; set < b.sets; set++) {
			uint8_t *lk = (uint8_t *)mc_set_lock(&b, set);
			uint8_t *blk = b.mem + set * b.block;
			uint8_t *mru = blk + b.ready_off - sizeof(uint32_t);

			misplaced += lk < blk + 5 * ways || lk + sizeof(int) > mru ||
				     (uintptr_t)lk / 64 != (uintptr_t)mru / 64;
		}
		for (int i = 0; i < 20000; i++) {
			uint64_t line = (uint64_t)rand_r(&seed) % 4096, va = 0, vb = 0;
			bool da, db;

			if (mc_lookup(&a, line, 0, NULL, NULL) !=
			    mc_lookup(&b, line, 0, NULL, NULL)) {
				differ++;
				continue;
			}
			da = mc_insert(&a, line + 4096, i & 1 ? MC_DIRTY : 0, 0, &va);
			db = mc_insert(&b, line + 4096, i & 1 ? MC_DIRTY : 0, 0, &vb);
			differ += da != db || (da && va != vb);
		}
		ok(misplaced == 0 && differ == 0 && b.lock_off && !a.lock_off,
		   "%u ways: each set's lock in its block, on its MRU bits' line "
		   "(%d misplaced); the level otherwise the same (%d differences)",
		   ways, misplaced, differ);
		mc_level_free(&a);
		mc_level_free(&b);
	}
	return done_testing();
}
