// SPDX-License-Identifier: MIT
/*
 * Two cores of one host (tm_host_mem_add_core): what one core wrote and
 * still holds in its L2, the other reads from there, not from memory, as
 * a core's snoop does. The case that needs it: libcxlpool's copy lanes
 * fill a slot and the application thread reads it soon after; fetched
 * from DRAM, those lines cost the reader a memory latency and bandwidth
 * each (the kv workload's compute thread: 445k such prefetches in one
 * run). The writer keeps its dirty copy, so memory still sees its write
 * once, when the writer evicts it. Such a transfer costs snoop_ns: hidden
 * behind a stream's prefetches, paid in full by a dependent chain.
 */
#include <string.h>

#include "tap.h"
#include "model_mem.h"
#include "shm_links.h"

#define LINES 1024	/* 64 KiB: fits either core's L2 */
#define SNOOP_NS 40.0
#define CHASE 256	/* lines of the dependent chain */

int main(void)
{
	struct tm_mem_cfg cfg = {
		.line_bytes = 64, .l1_bytes = 32 << 10, .l1_ways = 8,
		.l2_bytes = 256 << 10, .l2_ways = 16, .llc_bytes = 1 << 20,
		.llc_ways = 16, .mlp = 16, .prefetch_distance = 16,
		.snoop_ns = SNOOP_NS,
	};
	struct mf_target dram = { .name = "local", .path = "local",
				  .media_ns = { 90, 90 } };
	struct mf_fabric fab = { .ntargets = 1, .targets = &dram,
				 .local = &dram };
	struct tm_host_mem h;
	struct tm_cpu_mem writer, reader, alone;
	struct tm_shared *shm;
	char *err = NULL;
	double now = 0, t0, own, fresh, chase;
	uint64_t reads0, writes0, order[CHASE];

	plan(12);
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
	writes0 = writer.st.mem_writes[0] + reader.st.mem_writes[0] +
		  alone.st.mem_writes[0];
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
	/*
	 * The prefetcher's 16 lines past the buffer's end are nobody's; the
	 * stream waits only for its first lines, before the prefetcher has
	 * confirmed it (three at most, each a snoop).
	 */
	ok(reader.st.mem_reads[0] - reads0 <= 16 &&
	   own <= LINES * 8 * 0.5 + 3 * SNOOP_NS,
	   "the reader fetched none of the writer's lines from memory and "
	   "waited only for the stream's first lines (%llu reads past the "
	   "end, %.0f ns over its instructions)",
	   (unsigned long long)(reader.st.mem_reads[0] - reads0),
	   own - LINES * 8 * 0.5);
	ok(reader.st.snoop_hits >= LINES - 16,
	   "its misses went to the writer's L2 (%llu of %d lines)",
	   (unsigned long long)reader.st.snoop_hits, LINES);
	ok(writer.st.mem_writes[0] + reader.st.mem_writes[0] +
	   alone.st.mem_writes[0] == writes0,
	   "serving them wrote nothing to memory (the data went into the "
	   "last level, dirty)");

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

	/*
	 * A dependent chain over lines the writer holds (written in one
	 * order, read in another, about a page apart (spread over the sets) so that no stream forms):
	 * each one waits for its transfer, snoop_ns, not a memory latency.
	 */
	for (uint64_t i = 0; i < CHASE; i++)
		order[i] = (0x9000ull << 6) + i * 65;
	for (uint64_t i = 0; i < CHASE; i++)
		now = tm_mem_access(&h, &writer, order[i] << 6, true, now + 1);
	for (uint64_t l = 0; l < 65536; l++)
		now = tm_mem_access(&h, &alone, ((0x40000ull << 6) + l) << 6,
				    false, now + 0.1);
	t0 = now;
	for (uint64_t i = 0; i < CHASE; i++)
		now = tm_mem_access(&h, &reader,
				    order[(i * 97) % CHASE] << 6, false, now + 1);
	chase = (now - t0) / CHASE - 1;
	ok(chase > SNOOP_NS * 0.99 && chase < SNOOP_NS * 1.01,
	   "a dependent chain over the writer's lines waits %.2f ns a line "
	   "(snoop_ns %.0f; memory is 90)", chase, SNOOP_NS);

	/*
	 * A write takes the line from the other cores: the reader held these
	 * (it just chased them); the writer rewrites them, and the reader's
	 * next read of each is a miss served by the writer, not a hit on its
	 * old copy.
	 */
	{
		uint64_t inv0 = writer.st.invalidations, sn0 = reader.st.snoop_hits;
		uint64_t l2m0 = reader.st.l2_miss;

		for (uint64_t i = 0; i < CHASE; i++)
			now = tm_mem_access(&h, &writer, order[i] << 6, true, now + 1);
		ok(writer.st.invalidations - inv0 == CHASE,
		   "the writer's stores took the %d lines the reader held (%llu)",
		   CHASE, (unsigned long long)(writer.st.invalidations - inv0));
		for (uint64_t i = 0; i < CHASE; i++)
			now = tm_mem_access(&h, &reader,
					    order[(i * 97) % CHASE] << 6, false, now + 1);
		ok(reader.st.l2_miss - l2m0 == CHASE &&
		   reader.st.snoop_hits - sn0 == CHASE,
		   "the reader's old copies are gone: %llu misses, %llu served "
		   "by the writer", (unsigned long long)(reader.st.l2_miss - l2m0),
		   (unsigned long long)(reader.st.snoop_hits - sn0));
	}

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

	/*
	 * The writer streams 4 MiB more: what it wrote leaves every cache and
	 * reaches memory (from the last level, where the snoops put it, or
	 * from its own caches): its slot and the chain, written twice.
	 */
	for (uint64_t l = 0; l < 65536; l += 1)
		now = tm_mem_access(&h, &writer, ((0x10000ull << 6) + l) << 6,
				    false, now + 1);
	{
		uint64_t w = writer.st.mem_writes[0] + reader.st.mem_writes[0] +
			     alone.st.mem_writes[0] - writes0;

		ok(w >= LINES + CHASE && w <= LINES + 2 * CHASE,
		   "evicted later, what the writer wrote reaches memory (%llu "
		   "writes for %d lines written, %d of them twice)",
		   (unsigned long long)w, LINES + CHASE, CHASE);
	}
	/*
	 * Non-temporal stores (a copy lane's movnt*): the lines the reader
	 * held go, nothing is read for ownership, each line is one write to
	 * memory, and the reader's next read comes from memory, not from the
	 * writer's L2, which holds nothing of them.
	 */
	{
		uint64_t inv0 = writer.st.invalidations, sn0 = reader.st.snoop_hits;
		uint64_t wr0 = writer.st.mem_writes[0], rd0 = writer.st.mem_reads[0];
		uint64_t rr0, n = 4096;
		double bw;

		for (uint64_t l = 0; l < 64; l++)
			now = tm_mem_access(&h, &reader, ((0x6000ull << 6) + l) << 6,
					    false, now + 1);
		/* a copy loop: each store after a load of the source line */
		for (uint64_t l = 0; l < 64; l++)
			for (int w = 0; w < 8; w++) {
				now = tm_mem_access(&h, &writer,
						    (((0x7000ull << 6) + l) << 6) + w * 8,
						    false, now + 0.5);
				now = tm_mem_store_nt(&h, &writer,
						      (((0x6000ull << 6) + l) << 6) + w * 8,
						      now + 0.5);
			}
		/* reads: the 64 source lines and the prefetcher's run past them */
		ok(writer.st.invalidations - inv0 == 64 &&
		   writer.st.nt_stores == 64 &&
		   writer.st.mem_writes[0] - wr0 == 64 &&
		   writer.st.mem_reads[0] - rd0 <= 64 + 16,
		   "non-temporal stores in a copy loop: 64 lines taken from the "
		   "reader, 64 writes (a line's stores combine), no read for "
		   "ownership (%llu, %llu, %llu, %llu reads)",
		   (unsigned long long)(writer.st.invalidations - inv0),
		   (unsigned long long)writer.st.nt_stores,
		   (unsigned long long)(writer.st.mem_writes[0] - wr0),
		   (unsigned long long)(writer.st.mem_reads[0] - rd0));
		rr0 = reader.st.mem_reads[0];
		for (uint64_t l = 0; l < 64; l++)
			now = tm_mem_access(&h, &reader, ((0x6000ull << 6) + l) << 6,
					    false, now + 1);
		ok(reader.st.snoop_hits == sn0 && reader.st.mem_reads[0] > rr0,
		   "the reader finds them in memory, not in the writer's L2 "
		   "(%llu snoops, %llu memory reads)",
		   (unsigned long long)(reader.st.snoop_hits - sn0),
		   (unsigned long long)(reader.st.mem_reads[0] - rr0));
		/* a stream of them runs no faster than DRAM takes writes */
		t0 = now;
		for (uint64_t l = 0; l < n; l++)
			now = tm_mem_store_nt(&h, &writer,
					      ((0x80000ull << 6) + l) << 6, now + 0.1);
		bw = n * 64 / (now - t0);
		diag("non-temporal stream: %.2f GB/s (DRAM writes at 30)", bw);
		ok(bw <= 30 * 1.01, "a non-temporal stream is held to the "
		   "write bandwidth (%.2f GB/s, 30 configured)", bw);
	}
	tm_cpu_mem_free(&writer);
	tm_cpu_mem_free(&reader);
	tm_cpu_mem_free(&alone);
	tm_host_mem_free(&h);
	tm_shared_close(shm);
	return done_testing();
}
