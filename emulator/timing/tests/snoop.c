// SPDX-License-Identifier: MIT
/*
 * Two cores of one host (tm_host_mem_add_core): what one core wrote and
 * still holds in its L2, the other reads from there, not from memory, as
 * a core's snoop does. The case that needs it: libcxlpool's copy lanes
 * fill a slot and the application thread reads it soon after; fetched
 * from DRAM, those lines cost the reader a memory latency and bandwidth
 * each (the kv workload's compute thread: 445k such prefetches in one
 * run). The writer keeps its dirty copy, so memory still sees its write
 * once, when the writer evicts it.
 */
#include <string.h>

#include "tap.h"
#include "model_mem.h"
#include "shm_links.h"

#define LINES 1024	/* 64 KiB: fits either core's L2 */

int main(void)
{
	struct tm_mem_cfg cfg = {
		.line_bytes = 64, .l1_bytes = 32 << 10, .l1_ways = 8,
		.l2_bytes = 256 << 10, .l2_ways = 16, .llc_bytes = 1 << 20,
		.llc_ways = 16, .mlp = 16, .prefetch_distance = 16,
	};
	struct mf_target dram = { .name = "local", .path = "local",
				  .media_ns = { 90, 90 } };
	struct mf_fabric fab = { .ntargets = 1, .targets = &dram,
				 .local = &dram };
	struct tm_host_mem h;
	struct tm_cpu_mem writer, reader, alone;
	struct tm_shared *shm;
	char *err = NULL;
	double now = 0, t0, own, fresh;
	uint64_t reads0, writes0;

	plan(6);
	shm = tm_shared_open(NULL, &err);
	dram.res[dram.nres++] = tm_shared_res(shm, "dram", 40, 30, 0);
	tm_host_mem_init(&h, &cfg, &fab);
	tm_cpu_mem_init(&writer, &h);
	tm_cpu_mem_init(&reader, &h);
	tm_cpu_mem_init(&alone, &h);
	writer.who = 0, reader.who = 1, alone.who = 2;
	tm_host_mem_add_core(&h, &writer);
	tm_host_mem_add_core(&h, &reader);

	/* the writer fills 64 KiB at page 0x1000 (a copy lane's slot) */
	for (uint64_t l = 0; l < LINES; l++) {
		if (!(l % 64))
			tm_mem_page_claim(&h, &writer, (0x1000ull << 6) + l);
		now = tm_mem_access(&h, &writer, ((0x1000ull << 6) + l) << 6,
				    true, now + 1);
	}
	/* another core's stream pushes them out of the LLC (the model's LLC
	 * does not hold what the L2s hold: kv's copy traffic did the same) */
	for (uint64_t l = 0; l < 65536; l++)
		now = tm_mem_access(&h, &alone, ((0x20000ull << 6) + l) << 6,
				    false, now + 0.1);
	writes0 = writer.st.mem_writes[0];
	reads0 = reader.st.mem_reads[0];
	t0 = now;
	for (uint64_t l = 0; l < LINES; l++) {
		if (!(l % 64))
			tm_mem_page_claim(&h, &reader, (0x1000ull << 6) + l);
		for (int w = 0; w < 8; w++)
			now = tm_mem_access(&h, &reader,
					    (((0x1000ull << 6) + l) << 6) + w * 8,
					    false, now + 0.5);
	}
	own = now - t0;
	diag("reader: %llu snoop hits, %llu memory reads, %.0f ns",
	     (unsigned long long)reader.st.snoop_hits,
	     (unsigned long long)(reader.st.mem_reads[0] - reads0), own);
	/* the prefetcher's 16 lines past the buffer's end are nobody's */
	ok(reader.st.mem_reads[0] - reads0 <= 16 && own == LINES * 8 * 0.5,
	   "the reader fetched none of the writer's lines from memory and "
	   "never waited (%llu reads past the end)",
	   (unsigned long long)(reader.st.mem_reads[0] - reads0));
	ok(reader.st.snoop_hits >= LINES - 16,
	   "its misses went to the writer's L2 (%llu of %d lines)",
	   (unsigned long long)reader.st.snoop_hits, LINES);
	ok(writer.st.mem_writes[0] == writes0,
	   "the writer's lines are still its own to write back (no write yet)");

	/* the same read of lines nobody holds: from memory */
	t0 = now;
	for (uint64_t l = 0; l < LINES; l++) {
		if (!(l % 64))
			tm_mem_page_claim(&h, &reader, (0x3000ull << 6) + l);
		for (int w = 0; w < 8; w++)
			now = tm_mem_access(&h, &reader,
					    (((0x3000ull << 6) + l) << 6) + w * 8,
					    false, now + 0.5);
	}
	fresh = now - t0;
	ok(fresh > own && reader.st.mem_reads[0] - reads0 >= LINES,
	   "lines nobody holds come from memory and cost more (%.0f ns against %.0f)",
	   fresh, own);

	/* a core the host does not know of is never snooped */
	for (uint64_t l = 0; l < 64; l++)
		now = tm_mem_access(&h, &alone, ((0x5000ull << 6) + l) << 6,
				    true, now + 1);
	reads0 = reader.st.mem_reads[0];
	for (uint64_t l = 0; l < 64; l++)
		now = tm_mem_access(&h, &reader, ((0x5000ull << 6) + l) << 6,
				    false, now + 1);
	ok(reader.st.mem_reads[0] > reads0,
	   "lines of a core outside the host's list come from memory");

	/* the writer streams 4 MiB more: its dirty slot lines leave, written back */
	for (uint64_t l = 0; l < 65536; l += 1)
		now = tm_mem_access(&h, &writer, ((0x10000ull << 6) + l) << 6,
				    false, now + 1);
	ok(writer.st.mem_writes[0] >= writes0 + LINES / 2,
	   "evicted later, the writer's lines reach memory (%llu writes)",
	   (unsigned long long)(writer.st.mem_writes[0] - writes0));
	tm_cpu_mem_free(&writer);
	tm_cpu_mem_free(&reader);
	tm_cpu_mem_free(&alone);
	tm_host_mem_free(&h);
	tm_shared_close(shm);
	return done_testing();
}
