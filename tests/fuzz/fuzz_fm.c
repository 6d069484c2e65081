/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as one line on RUN/fm.sock, answered by the
 * fabric manager's command handler (fm_control_answer) of a fabric
 * manager of pool-lending.topo started without QEMU (its worker and
 * socket up, no host connected: a bind gets as far as "no channel").
 * Every line gets one reply object with a boolean "ok", a printable
 * error when it is false, and it is JSON that reads back.
 */
#define SCENARIO_TEST_OWN_BAD	/* its scratch folder only */
#include "../unit/scenario_test.h"
#include "fm/fm_priv.h"
#include "common/json_read.h"
#include "qemu/jsonline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TOPO SRCDIR "/topologies/pool-lending.topo"

static struct fm *fm;
static struct cb_topology *topo;
static struct scenario *scn;
static struct run_clock run_clock;

/* At exit, before the scratch folder goes: the fabric manager stopped. */
static void stop_fm(void)
{
	g_autoptr(run_result) res = result_new();

	fm_stop(fm);
	json_object_unref(fm_finish(fm, res));
	fm_free(fm);
	scenario_free(scn);
	topology_free(topo);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	scratch_dir("cxlbed-fuzz-fm.XXXXXX");
	topo = topology_load(TOPO, NULL);
	scn = scenario_default_for(TOPO);
	run_clock_start(&run_clock);
	fm = topo && scn ? fm_new(topo, dir, &(struct fm_config){
			.sample_s = scn->fm_sample_s, .clock = &run_clock }) : NULL;
	if (!fm || !fm_start(fm, NULL))
		abort();
	atexit(stop_fm);	/* runs before scratch_dir's removal */
	return 0;
}

/* The log and checks of failed binds grow with every input: start afresh. */
static void forget_history(void)
{
	g_mutex_lock(&fm->lock);
	if (json_array_get_length(fm->log) > 256) {
		json_array_unref(fm->log);
		fm->log = json_array_new();
	}
	if (fm->checks->len > 256) {
		for (guint i = 0; i < fm->checks->len; i++) {
			struct res_check *c = g_ptr_array_index(fm->checks, i);

			g_free(c->name);
			g_free(c->detail);
			g_free(c);
		}
		g_ptr_array_set_size(fm->checks, 0);
	}
	g_mutex_unlock(&fm->lock);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(JsonObject) reply = fm_control_answer(fm, (const char *)data, size);
	JsonNode *okn = reply ? json_object_get_member(reply, "ok") : NULL;
	g_autofree char *line = NULL;
	g_autoptr(JsonNode) back = NULL;

	if (!okn || !JSON_NODE_HOLDS_VALUE(okn) || json_node_get_value_type(okn) != G_TYPE_BOOLEAN)
		abort();
	if (!json_node_get_boolean(okn)) {
		const char *e = json_object_get_string_member_with_default(reply, "error", NULL);

		if (!e || !g_utf8_validate(e, -1, NULL))
			abort();
		for (const char *p = e; *p; p = g_utf8_next_char(p))
			if (g_unichar_iscntrl(g_utf8_get_char(p)))
				abort();
	}
	line = json_object_to_line(reply);
	back = json_read_text("reply", line, -1, NULL);
	if (!back || strchr(line, '\n'))
		abort();
	forget_history();
	return 0;
}
