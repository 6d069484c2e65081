// SPDX-License-Identifier: MIT
/*
 * Reading the host's config again while the guest runs. The runner
 * rewrites it once the guest has placed its regions (read when arming),
 * and the fabric manager rewrites it whenever a pool LD is bound to or
 * released by this host, bumping this host's generation in the shared
 * segment (docs/pooling.md); every check-in compares that generation with
 * the one last loaded. The new fabric replaces the old at once; the old
 * one is kept until exit, since a vCPU in the middle of an access may
 * still be reading it.
 */
#include "timing_plugin.h"

static GMutex reload_lock;
static uint32_t loaded_gen;
static GPtrArray *retired;	/* struct mf_fabric *, freed at exit */

void plugin_reload_config(void)
{
	struct tm_config c;
	struct mf_fabric *f;
	char *err = NULL;

	if (!tm_config_load(tp.config_path, &c, &err)) {
		g_autofree char *msg = g_strdup_printf(
			"cxlbed-timing: keeping the old config: %s\n", err);

		qemu_plugin_outs(msg);
		g_free(err);
		return;
	}
	c.solo = tp.cfg.solo;
	f = tm_fabric_build(&c, tp.shm, &err);
	if (!f) {
		g_autofree char *msg = g_strdup_printf(
			"cxlbed-timing: keeping the old fabric: %s\n", err);

		qemu_plugin_outs(msg);
		g_free(err);
		tm_config_clear(&c);
		return;
	}
	if (!retired)
		retired = g_ptr_array_new_with_free_func(
			(GDestroyNotify)tm_fabric_free);
	g_ptr_array_add(retired, tp.fabric);
	__atomic_store_n(&tp.mem.fabric, f, __ATOMIC_RELEASE);
	__atomic_store_n(&tp.fabric, f, __ATOMIC_RELEASE);
	share_config(&c);
	tm_config_clear(&c);
}

void plugin_reload_check(void)
{
	uint32_t gen = __atomic_load_n(&tp.shm->config_gen[tp.cfg.host_index],
				       __ATOMIC_ACQUIRE);

	if (gen == __atomic_load_n(&loaded_gen, __ATOMIC_RELAXED))
		return;
	g_mutex_lock(&reload_lock);
	if (gen != loaded_gen) {
		plugin_reload_config();
		__atomic_store_n(&loaded_gen, gen, __ATOMIC_RELAXED);
		__atomic_fetch_add(&tp.reloads, 1, __ATOMIC_RELAXED);
	}
	g_mutex_unlock(&reload_lock);
}

void plugin_reload_free(void)
{
	g_clear_pointer(&retired, g_ptr_array_unref);
}
