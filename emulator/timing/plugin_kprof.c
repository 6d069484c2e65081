// SPDX-License-Identifier: MIT
/*
 * kprof=FILE: which guest kernel code a region's kernel instructions went
 * to. Every kernel block a vCPU runs between a region's BEGIN and END
 * markers adds its instruction count to that vCPU's table (the same count
 * kernel_insns takes); at END the busiest blocks are appended to FILE as
 * one JSON line. The guest boots with nokaslr, so the addresses map onto
 * the guest's /proc/kallsyms (docs/timing-model.md, "What the kernel did
 * in a region"). A diagnostic: it adds a callback to every kernel block.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "timing_plugin.h"

#define KPROF_TOP 32	/* blocks per region line; the rest are summed */

struct kprof_block {
	uint64_t vaddr;
	uint64_t insns;
};

static struct {
	char *path;
	GMutex lock;		/* the file and @blocks */
	GPtrArray *blocks;	/* every struct kprof_block, freed at exit */
	GHashTable *counts[TM_MAX_VCPUS];	/* block -> instructions */
	bool in_region[TM_MAX_VCPUS];
} kp;

void kprof_init(const char *path)
{
	kp.path = g_strdup(path);
	g_mutex_init(&kp.lock);
	kp.blocks = g_ptr_array_new_with_free_func(g_free);
}

static void on_kernel_block(unsigned int vi, void *udata)
{
	struct kprof_block *b = udata;
	gpointer sum;

	if (vi >= TM_MAX_VCPUS || !kp.in_region[vi])
		return;
	sum = g_hash_table_lookup(kp.counts[vi], b);
	g_hash_table_insert(kp.counts[vi], b,
			    GSIZE_TO_POINTER(GPOINTER_TO_SIZE(sum) + b->insns));
}

void kprof_instrument(struct qemu_plugin_tb *tb, size_t n)
{
	struct kprof_block *b;

	if (!kp.path)
		return;
	b = g_new(struct kprof_block, 1);
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	g_mutex_lock(&kp.lock);	/* translation runs on every vCPU thread */
	g_ptr_array_add(kp.blocks, b);
	g_mutex_unlock(&kp.lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_kernel_block,
					     QEMU_PLUGIN_CB_NO_REGS, b);
}

void kprof_begin(unsigned int vi)
{
	if (!kp.path || vi >= TM_MAX_VCPUS)
		return;
	if (!kp.counts[vi])
		kp.counts[vi] = g_hash_table_new(NULL, NULL);
	g_hash_table_remove_all(kp.counts[vi]);
	kp.in_region[vi] = true;
}

static gint by_insns(gconstpointer a, gconstpointer b, gpointer counts)
{
	gsize x = GPOINTER_TO_SIZE(g_hash_table_lookup(counts, *(gpointer *)a));
	gsize y = GPOINTER_TO_SIZE(g_hash_table_lookup(counts, *(gpointer *)b));

	return x < y ? 1 : x > y ? -1 : 0;
}

void kprof_end(unsigned int vi, int id)
{
	g_autoptr(GPtrArray) order = g_ptr_array_new();
	g_autoptr(GString) line = g_string_new(NULL);
	GHashTable *counts;
	GHashTableIter it;
	gpointer block, sum;
	uint64_t total = 0, rest = 0;
	FILE *f;

	if (!kp.path || vi >= TM_MAX_VCPUS || !kp.in_region[vi])
		return;
	kp.in_region[vi] = false;
	counts = kp.counts[vi];
	g_hash_table_iter_init(&it, counts);
	while (g_hash_table_iter_next(&it, &block, &sum)) {
		g_ptr_array_add(order, block);
		total += GPOINTER_TO_SIZE(sum);
	}
	g_ptr_array_sort_with_data(order, by_insns, counts);
	g_string_printf(line, "{\"host\": \"%s\", \"roi\": %d, \"vcpu\": %u, "
			"\"kernel_insns\": %" PRIu64 ", \"blocks\": [",
			tp.cfg.host, id, vi, total);
	for (guint i = 0; i < order->len; i++) {
		struct kprof_block *b = order->pdata[i];
		gsize n = GPOINTER_TO_SIZE(g_hash_table_lookup(counts, b));

		if (i >= KPROF_TOP) {
			rest += n;
			continue;
		}
		g_string_append_printf(line, "%s[\"%" PRIx64 "\", %zu]",
				       i ? ", " : "", b->vaddr, (size_t)n);
	}
	g_string_append_printf(line, "], \"rest\": %" PRIu64 "}\n", rest);
	g_mutex_lock(&kp.lock);
	f = fopen(kp.path, "a");
	if (f) {
		fputs(line->str, f);
		fclose(f);
	}
	g_mutex_unlock(&kp.lock);
}

void kprof_free(void)
{
	if (!kp.path)
		return;
	for (int i = 0; i < TM_MAX_VCPUS; i++)
		if (kp.counts[i])
			g_hash_table_destroy(kp.counts[i]);
	g_ptr_array_free(kp.blocks, TRUE);
	g_free(kp.path);
}
