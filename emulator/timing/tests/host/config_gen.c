// SPDX-License-Identifier: MIT
/*
 * The host-side generator (emulator/qemu/timing_config.c) against the
 * plugin's parser: what the runner writes, the plugin must read, with the
 * window and region bases QEMU 10 and the guest kernel use.
 */
#include <math.h>

#include "tap.h"
#include "qemu/timing_config.h"
#include "tm_config.h"

#define TOPO(switch_keys) \
	"[topology]\nname = t\n" \
	"[host h0]\ncpus = 2\nmemory = 2G\n" \
	"[bridge hb0]\nhost = h0\n" \
	"[rootport rp0]\nbridge = hb0\n" \
	"[switch sw0]\nport = rp0\nports = 4\nlatency-ns = 50\n" switch_keys \
	"[device mem0]\nport = sw0\nsize = 256M\n" \
	"[device mem1]\nport = sw0\nsize = 256M\n" \
	"[device mem2]\nport = sw0\nsize = 256M\n" \
	"[device mem3]\nport = sw0\nsize = 256M\n" \
	"[window w0]\nhost = h0\nsize = 4G\ntargets = hb0\ngranularity = 4K\n" \
	"[region r0]\nwindow = w0\ndevices = mem0 mem1 mem2 mem3\nmode = ram\n"

static const char topo[] = TOPO("");
/* the same with h0's traffic on the switch's upstream link capped at 5 GB/s */
static const char topo_capped[] = TOPO("qos-gbps = 5\n");

int main(void)
{
	g_autoptr(GError) e = NULL;
	struct cb_topology *t = topology_parse("t.topo", topo, &e);
	struct timing_config_opts o = { .shm = "/cxlbed-test", .skew_ns = 1000 };
	struct cb_host *h;
	struct tm_config c;
	struct tm_shared *s;
	struct mf_fabric *f = NULL;
	struct mf_target *m;
	char *text, *err = NULL;
	double want;
	int n;

	plan(12);
	/* a skip after the plan is one line per test, never a second plan */
	if (!ok(t != NULL, "the generator's test topology loads")) {
		diag("%s", e->message);
		for (int i = 1; i < 12; i++)
			skip("the test topology did not load");
		return done_testing();
	}
	h = g_ptr_array_index(t->hosts, 0);
	is_int(timing_window_base(h, g_ptr_array_index(h->windows, 0)),
	       0x110000000ull, "2 GiB RAM: window 0 at 0x110000000 (seen in QEMU 10)");
	h->memory = 4ull << 30;
	is_int(timing_window_base(h, g_ptr_array_index(h->windows, 0)),
	       0x190000000ull, "4 GiB RAM: 2 GiB above 4G, window at 0x190000000");
	h->memory = 2ull << 30;
	/* seen in the guest: region0 at the window base, 4-way or not */
	is_int(timing_region_base(h, g_ptr_array_index(h->regions, 0)),
	       0x110000000ull, "the first region starts at the window base");

	text = timing_config_text(t, h, &o);
	ok(tm_config_parse("gen", text, &c, &err), "the plugin parses what "
	   "the generator writes");
	if (err)
		diag("%s\n%s", err, text);
	s = tm_shared_open(NULL, &err);
	if (c.res)
		f = tm_fabric_build(&c, s, &err);
	ok(f && f->nregions == 1 && f->regions[0].ways == 4 &&
	   f->regions[0].gran == 4096, "region: 4 ways at 4 KiB");
	m = f ? mf_decode(f, 0x110000000ull + 0x2000, true) : NULL;
	ok(m && !strcmp(m->name, "mem2"), "third granule decodes to mem2");
	/* by hand: 150 media + 5 device link + 50 switch + 5 its link + 10 bridge */
	want = 220;
	ok(m && fabs(mf_target_latency(m, MF_READ) - want) < 1e-9,
	   "path latency = media + device link + switch + its link + bridge "
	   "(%.1f ns)", want);
	n = m ? m->nres : 0;
	ok(n == 4 && !strcmp(m->res[0]->name, "bridge:hb0") &&
	   !strcmp(m->res[3]->name, "media:mem2"),
	   "resources top-down: bridge, switch link, device link, media");
	/* the queueing term (model_lane.h): media a share of its latency */
	ok(n == 4 && fabs(m->res[3]->queue_ns - MF_MEDIA_QUEUE_SHARE * 150) < 1e-9 &&
	   fabs(m->res[1]->queue_ns - 64 / m->res[1]->gbps[MF_READ]) < 1e-9,
	   "queueing service time: media %.2f ns (%.2f of 150), switch link "
	   "%.2f ns (one line)", n == 4 ? m->res[3]->queue_ns : 0,
	   MF_MEDIA_QUEUE_SHARE, n == 4 ? m->res[1]->queue_ns : 0);
	g_free(text);
	/* QoS: a host's cap on the switch's link is a private resource above it */
	{
		struct cb_topology *t2 = topology_parse("t2.topo", topo_capped, NULL);
		struct tm_config c2;
		struct mf_fabric *f2 = NULL;

		text = t2 ? timing_config_text(t2, g_ptr_array_index(t2->hosts, 0), &o) : NULL;
		if (text && tm_config_parse("gen-cap", text, &c2, &err))
			f2 = tm_fabric_build(&c2, s, &err);
		m = f2 ? mf_decode(f2, 0x110000000ull, true) : NULL;
		ok(m && m->nres == 5 && strstr(text, ",cap:link:sw0:h0,link:sw0,") &&
		   !strcmp(m->res[4]->name, "cap:link:sw0:h0") &&
		   m->res[4]->gbps[MF_READ] == 5 && m->res[4]->queue_ns == 0 &&
		   !strcmp(m->res[1]->name, "link:sw0"),
		   "a host cap on link:sw0 becomes cap:link:sw0:h0 (5 GB/s) "
		   "just above it, taken after the shared resources");
		if (!m)
			diag("%s\n%s", err ? err : "", text ? text : "");
		g_free(text);
		tm_fabric_free(f2);
		if (text)
			tm_config_clear(&c2);
		topology_free(t2);
	}
	/* copy engines and a shared pool (docs/kv-share.md) */
	{
		g_autofree char *path = g_build_filename(SRCDIR, "topologies",
							 "kv-share.topo", NULL);
		struct cb_topology *t3 = topology_load(path, NULL);
		struct tm_config c3;
		bool parsed = false;

		text = t3 ? timing_config_text(t3, g_ptr_array_index(t3->hosts, 1), &o) : NULL;
		if (text)
			parsed = tm_config_parse("gen-kv", text, &c3, &err);
		ok(parsed && c3.engines->len == 3 && c3.copyres->len == 6 &&
		   strstr(text, "engine name=rdma-200g latency_ns=2500 "
			  "via=nic:rdma-200g:h1,nic:rdma-200g:h0\n") &&
		   strstr(text, "copyres name=nic:rdma-100g:h0 gbps=11.5 depth=16\n") &&
		   strstr(text, "copyres name=pool-path:h1 gbps=48 depth=32\n") &&
		   strstr(text, "engine name=dma latency_ns=1500 via=dma:h1,pool-path:h1\n") &&
		   g_array_index(c3.regions, struct tm_cfg_region, 0).share == 0,
		   "kv-share.topo: h1's NICs cross h0's too, its DMA engine's "
		   "transfers share the pool's path, its pool region is watched at 0");
		if (!parsed)
			diag("%s\n%s", err ? err : "", text ? text : "");
		g_free(text);
		if (parsed)
			tm_config_clear(&c3);
		topology_free(t3);
	}
	tm_fabric_free(f);
	tm_config_clear(&c);
	tm_shared_close(s);
	g_free(err);
	topology_free(t);
	return done_testing();
}
