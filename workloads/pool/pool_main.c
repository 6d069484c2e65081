/* SPDX-License-Identifier: MIT */
/*
 * cxlbed-pool WORKLOAD [options]: one pooling workload under each tiering
 * policy in turn (docs/pooling.md). Each policy runs in a child process of
 * its own, after the parent has made the policy's system-wide settings,
 * which it undoes afterwards. One JSON line on stdout:
 *
 *   {"workload":"pool","kind":"layers",...,"policies":[{...},...],
 *    "rois":[{"id":3000,"kind":"span","policy":"all-local"},...]}
 *
 * A policy the running kernel lacks (interleave-auto and damon-auto need
 * Linux 6.16) is listed with "available":false and the reason, not run.
 * Exit status 0 when every policy that could run ran and verified its
 * result, 1 when one did not, 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cxlbed-roi.h"
#include "pw.h"

static const struct pw_workload workloads[] = {
	{ "layers", "layer sweep, weights 4x the local limit",
	  "Every layer is read once a sweep, in a known order: a far layer costs "
	  "its transfer, which a prefetch can hide behind the layers before it, so "
	  "the best a policy can do is the overlap bound, max(compute, transfer); "
	  "placing by heat gains nothing, since every layer is as hot as the next.",
	  wl_layers },
	{ "kv", "KV-cache offload, sessions decoding in order",
	  "Each step reads every session's blocks in order and appends to them: "
	  "reading ahead can hide the far tier, and how often a block is read "
	  "within a step decides whether copying it in pays.",
	  wl_kv },
	{ "embed", "embedding gather, Zipf or uniform rows",
	  "With Zipf-skewed rows a few rows take most lookups, so keeping the "
	  "hottest rows local lifts the hit ratio well above the local fraction; "
	  "with uniform rows there is nothing to find.",
	  wl_embed },
	{ "adam", "optimizer-state offload, moments touched once a step",
	  "Each moment is touched once a step: no reuse within a step for heat "
	  "to find, only the next parameters' state to stream in ahead of use.",
	  wl_adam },
	{ "gups", "random updates, no hot set",
	  "Every word is as likely to be updated as any other: there is no hot "
	  "set, so whichever part of the table is local serves that share of the "
	  "updates, and moving pages only costs. Policies that place pages and "
	  "hold the local limit should be within 10% of each other; one that "
	  "promotes what was touched lately finds every page recent, moves pages "
	  "back and forth, and pays for it.",
	  wl_gups },
};

static __attribute__((noreturn)) void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: cxlbed-pool WORKLOAD [--policies LIST|all] [--local-fraction F]\n"
		"                   [--steps N] [--scale N] [--batch N] [--zipf S] [--timeout S]\n"
		"                   [--copy-lanes N] [--knob NAME=VALUE]...\n"
		"WORKLOAD: layers kv embed adam gups\n"
		"LIST: comma-separated of all-local first-touch interleave tpp damon libcxlpool\n"
		"      interleave-auto damon-auto (these two need Linux 6.16)\n");
	exit(rc);
}

static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "cxlbed-pool: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The child's result object. */
static void print_result(FILE *f, struct pw *w)
{
	const struct pw_vmstat *a = &w->vm0, *b = &w->vm1;
	long long migrated = b->migrate_success - a->migrate_success;
	const struct cxlpool_stats *s0 = &w->st0, *s1 = &w->st1;
	uint64_t fast_max = 0;

	fprintf(f, "{\"policy\":\"%s\",\"roi\":%d,\"ok\":%s,\"verify\":",
		pw_policy_name(w->policy), 3000 + (int)w->policy, w->ok ? "true" : "false");
	json_str(f, w->verify);
	fprintf(f, ",\"checksum\":%.17g,\"data_bytes\":%zu,\"local_limit\":%zu,"
		"\"reserved\":%llu,\"guest_ms\":%.3f",
		w->checksum, w->data_bytes, pw_policy_limited(w->policy) ? w->local_limit : 0,
		(unsigned long long)w->reserved, w->t0);
	if (pw_policy_needs_full_node(w->policy))
		fprintf(f, ",\"watermark_boost_factor\":%lld", w->boost_factor);
	fprintf(f, ",\"pages\":{\"migrated\":%lld,\"promoted\":%lld,\"demoted\":%lld,"
		"\"hint_faults\":%lld,\"migrate_failed\":%lld}",
		migrated, b->promote_success - a->promote_success,
		(b->demote_kswapd - a->demote_kswapd) + (b->demote_direct - a->demote_direct),
		b->numa_hint_faults - a->numa_hint_faults, b->migrate_fail - a->migrate_fail);
	if (w->policy == PW_DAMON)
		fprintf(f, ",\"governor\":{\"checks\":%llu,\"commits\":%llu,\"closed\":%llu,"
			"\"failed\":%llu,\"latency_ms\":%.1f,\"lowest_room\":%lld}", w->gov.checks,
			w->gov.commits, w->gov.closed, w->gov.failed, w->gov.latency_ms,
			w->gov.lowest_room);
	if (w->pool) {
		/* copies by streams and caches; move_pages of managed memory
		 * is in the page counters */
		uint64_t copied = (s1->staged_in - s0->staged_in) +
				  (s1->staged_out - s0->staged_out) + (s1->copied - s0->copied);

		fprintf(f, ",\"moved_bytes\":%llu",
			(unsigned long long)(copied + (uint64_t)(migrated > 0 ? migrated : 0) * 4096));
		fprintf(f, ",\"prefetch\":{\"issued\":%llu,\"timely\":%llu,\"late\":%llu,\"useless\":%llu}",
			(unsigned long long)(s1->pf_issued - s0->pf_issued),
			(unsigned long long)(s1->pf_timely - s0->pf_timely),
			(unsigned long long)(s1->pf_late - s0->pf_late),
			(unsigned long long)(s1->pf_useless - s0->pf_useless));
		fprintf(f, ",\"runtime\":{\"helper_ns\":%llu,\"mover_ns\":%llu,\"stall_ns\":%llu,"
			"\"epochs\":%llu,\"staged_in\":%llu,\"staged_out\":%llu,"
			"\"promoted\":%llu,\"demoted\":%llu,\"copied\":%llu}",
			(unsigned long long)(s1->helper_ns - s0->helper_ns),
			(unsigned long long)(s1->mover_ns - s0->mover_ns),
			(unsigned long long)(s1->stall_ns - s0->stall_ns),
			(unsigned long long)(s1->epochs - s0->epochs),
			(unsigned long long)(s1->staged_in - s0->staged_in),
			(unsigned long long)(s1->staged_out - s0->staged_out),
			(unsigned long long)(s1->promoted - s0->promoted),
			(unsigned long long)(s1->demoted - s0->demoted),
			(unsigned long long)(s1->copied - s0->copied));
	} else {
		fprintf(f, ",\"moved_bytes\":%llu",
			(unsigned long long)(migrated > 0 ? migrated : 0) * 4096);
	}
	fprintf(f, ",\"oom_score_adj\":%lld", pw_oom_score_now());
	fprintf(f, ",\"hit_ratio\":%.4f",
		w->acc_all ? (double)w->hit_all / (double)w->acc_all : -1.0);
	fputs(",\"series\":[", f);
	for (int i = 0; i < w->ns; i++) {
		const struct pw_sample *s = &w->s[i];

		if (s->fast_bytes > fast_max)
			fast_max = s->fast_bytes;
		fprintf(f, "%s[%.3f,%.4f,%llu,%llu]", i ? "," : "", s->t_ms, s->hit,
			(unsigned long long)s->fast_bytes, (unsigned long long)s->far_bytes);
	}
	fprintf(f, "],\"fast_bytes_max\":%llu", (unsigned long long)fast_max);
	if (w->out) {
		fclose(w->out);
		fputs(w->outbuf, f);
	}
	fputc('}', f);
}

static int child(const struct pw_workload *wl, enum pw_policy pol,
		 const struct pw_opts *o, int fast, int far, int fd)
{
	static struct pw w;
	FILE *f = fdopen(fd, "w");

	memset(&w, 0, sizeof(w));
	w.workload = wl->name;
	w.policy = pol;
	w.o = *o;
	w.fast_node = fast;
	w.far_node = far;
	w.ok = true;
	if (pw_oom_score(1000))
		fprintf(stderr, "cxlbed-pool: oom_score_adj: %s\n", strerror(errno));
	pw_pin(0);
	if (wl->run(&w) && w.ok)
		pw_fail(&w, "set-up failed");
	print_result(f, &w);
	fclose(f);
	if (w.pool)
		cxlpool_close(w.pool);
	return 0;
}

/*
 * What the kernel said about a child that died, JSON-escaped into @out:
 * from the last OOM report, the lines that explain it (who asked, each
 * node's and zone's free memory, hugetlb, the kill), without the call
 * trace and the task table; else the log's last lines.
 */
static void kernel_log_tail(char *out, size_t len)
{
	static const char *const keep[] = {
		"invoked oom-killer", "Mem-Info", "active_anon", "Node ",
		"free:", "hugepages", "oom-kill:", "Out of memory", "Killed",
	};
	static char buf[1 << 17];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);
	size_t k = 0;
	char *p, *oom;

	out[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	oom = NULL;
	for (p = buf; (p = strstr(p, "invoked oom-killer")); p++)
		oom = p;
	if (oom)
		while (oom > buf && oom[-1] != '\n')
			oom--;
	p = oom ? oom : n > 1500 ? buf + n - 1500 : buf;
	while (*p && k + 3 < len) {
		char *eol = strchr(p, '\n');
		size_t l = eol ? (size_t)(eol - p) : strlen(p);
		bool wanted = !oom;

		for (size_t i = 0; !wanted && i < sizeof(keep) / sizeof(keep[0]); i++)
			wanted = memmem(p, l, keep[i], strlen(keep[i])) != NULL;
		for (size_t i = 0; wanted && i < l && k + 3 < len; i++) {
			if (p[i] == '"' || p[i] == '\\')
				out[k++] = '\\';
			if ((unsigned char)p[i] >= 0x20)
				out[k++] = p[i];
		}
		if (wanted && k + 3 < len)
			out[k++] = '|';
		p += l + (eol != NULL);
	}
	out[k] = '\0';
}

static pid_t running;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	if (running > 0) {
		timed_out = 1;
		kill(running, SIGKILL);
	}
}

/* Run one policy in a child; its result object into @res (malloc'd).
 * A child that runs past @timeout_s (guest seconds) is killed. Returns 1
 * when the kernel's OOM killer took the child, else 0 (-1: no child). */
static int run_policy(const struct pw_workload *wl, enum pw_policy pol,
		      const struct pw_opts *o, int fast, int far, char **res,
		      unsigned timeout_s)
{
	int fds[2], status, oom = 0;
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;
	pid_t pid;

	if (!buf || pipe(fds))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(fds[0]);
		_exit(child(wl, pol, o, fast, far, fds[1]));
	}
	close(fds[1]);
	running = pid;
	timed_out = 0;
	signal(SIGALRM, on_alarm);
	alarm(timeout_s);
	while ((n = read(fds[0], buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				break;
			buf = nb;
		}
	}
	buf[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	alarm(0);
	running = 0;
	if (!len || buf[0] != '{') {
		char klog[4096];

		kernel_log_tail(klog, sizeof(klog));
		oom = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && !timed_out &&
		      strstr(klog, "Out of memory");
		free(buf);
		buf = malloc(8192);
		snprintf(buf, 8192, "{\"policy\":\"%s\",\"roi\":%d,\"ok\":false,\"verify\":"
			 "\"the child %s (status 0x%x)\",\"kernel_log\":\"%s\"}",
			 pw_policy_name(pol), 3000 + (int)pol,
			 WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ?
			 "was killed (timeout or out of memory)" : "died", status, klog);
	}
	*res = buf;
	return oom;
}

/* @obj (a malloc'd JSON object) with "@key":@value added; @obj is freed. */
static char *with_member(char *obj, const char *key, const char *value)
{
	size_t n = strlen(obj);
	char *out;

	while (n && obj[n - 1] != '}')
		n--;
	if (!n || !(out = malloc(n + strlen(key) + strlen(value) + 8)))
		return obj;
	sprintf(out, "%.*s,\"%s\":%s}", (int)(n - 1), obj, key, value);
	free(obj);
	return out;
}

/* "checksum":X of a result object, for comparing policies. */
static double checksum_of(const char *res)
{
	const char *c = strstr(res, "\"checksum\":");

	return c ? strtod(c + 11, NULL) : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policies", required_argument, NULL, 'p' },
		{ "local-fraction", required_argument, NULL, 'f' },
		{ "steps", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "scale", required_argument, NULL, 'n' },
		{ "zipf", required_argument, NULL, 'z' },
		{ "timeout", required_argument, NULL, 't' },
		{ "copy-lanes", required_argument, NULL, 'c' },
		{ "knob", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct pw_opts o = { .local_fraction = 0.25, .zipf = 0.99 };
	struct cxlpool_tier t[CXLPOOL_MAX_TIERS];
	bool want[PW_NPOLICIES] = { 0 }, all_ok = true;
	const struct pw_workload *wl = NULL;
	struct pw_kernel_knobs knobs;
	char *res[PW_NPOLICIES] = { 0 };
	int fast = -1, far = -1, nt, c, first = -1;
	unsigned far_mbps = 0;	/* the far node's read bandwidth (sysfs access0) */
	unsigned timeout_s = 600;

	cxlbed_roi_arm();
	pw_knobs_default(&knobs);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!strcmp(optarg, "all")) {
				for (int i = 0; i < PW_NPOLICIES; i++)
					want[i] = true;
				break;
			}
			for (char *tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				int p = pw_policy_parse(tok);

				if (p < 0)
					bad("unknown policy '%s'", tok);
				want[p] = true;
			}
			break;
		case 'f':
			o.local_fraction = strtod(optarg, NULL);
			if (o.local_fraction <= 0 || o.local_fraction >= 1)
				bad("--local-fraction wants 0 < F < 1, not %s", optarg);
			break;
		case 's': o.steps = atoi(optarg); break;
		case 'b': o.batch = atoi(optarg); break;
		case 'n': o.scale = strtoull(optarg, NULL, 0); break;
		case 'z': o.zipf = strtod(optarg, NULL); break;
		case 't': timeout_s = (unsigned)atoi(optarg); break;
		case 'c':
			o.copy_lanes = atoi(optarg);
			if (o.copy_lanes < 1 || o.copy_lanes > 7)
				bad("--copy-lanes wants 1 to 7, not %s", optarg);
			break;
		case 'k':
			if (pw_knob_set(&knobs, optarg))
				bad("--knob wants NAME=VALUE with a knob of the output's \"knobs\", not %s",
				    optarg);
			break;
		case 'h': usage(0);
		default: usage(2);
		}
	}
	if (optind != argc - 1)
		usage(2);
	for (size_t i = 0; i < sizeof(workloads) / sizeof(*workloads); i++)
		if (!strcmp(argv[optind], workloads[i].name))
			wl = &workloads[i];
	if (!wl)
		bad("unknown workload '%s'", argv[optind]);
	{
		bool any = false;

		for (int i = 0; i < PW_NPOLICIES; i++)
			any |= want[i];
		if (!any)
			for (int i = 0; i < PW_NPOLICIES; i++)
				want[i] = true;
	}
	nt = cxlpool_tiers(t, CXLPOOL_MAX_TIERS);
	for (int i = 0; i < nt; i++) {
		if (fast < 0 && t[i].kind == CXLPOOL_LOCAL)
			fast = t[i].node;
		if (far < 0 && t[i].kind == CXLPOOL_CXL) {
			far = t[i].node;
			far_mbps = t[i].read_mbps;
		}
	}
	if (fast < 0 || far < 0) {
		printf("{\"workload\":\"pool\",\"kind\":\"%s\",\"error\":\"needs a local and a CXL "
		       "NUMA node (found %d tiers)\"}\n", wl->name, nt);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (pw_code_lock())
		fprintf(stderr, "cxlbed-pool: locking own pages: %s\n", strerror(errno));
	if (pw_oom_score(-1000))
		fprintf(stderr, "cxlbed-pool: oom_score_adj: %s\n", strerror(errno));
	/* a reservation that a killed run of this program left behind */
	pw_limit_release(fast);
	pw_limit_save();

	for (int p = 0; p < PW_NPOLICIES; p++) {
		char err[256] = "", why[512];

		if (!want[p])
			continue;
		if (pw_policy_unavailable(p, why, sizeof(why))) {
			size_t n;
			FILE *f = open_memstream(&res[p], &n);

			fprintf(stderr, "cxlbed-pool: %s unavailable: %s\n", pw_policy_name(p), why);
			fprintf(f, "{\"policy\":\"%s\",\"available\":false,\"why\":",
				pw_policy_name(p));
			json_str(f, why);
			fputc('}', f);
			fclose(f);
			continue;
		}
		/*
		 * A policy that runs with the local node filled (tpp, damon)
		 * leaves the kernel a few hundred KiB for its own allocations;
		 * now and then (1 CI run in several) a burst of them OOM-kills
		 * the child (docs/pooling.md, "damon"). Such a child runs once
		 * more, from a fresh set-up; the result says so and keeps the
		 * first attempt.
		 */
		for (int attempt = 0; attempt < 2; attempt++) {
			char *first_try = attempt ? res[p] : NULL;
			char tuned[1024];
			long own_off, own_left;
			char own[64];
			int oom = 0;

			pw_code_home(fast, &own_off, &own_left);
			if (pw_policy_setup(p, &knobs, fast, far, o.local_fraction, err, sizeof(err))) {
				res[p] = malloc(512);
				snprintf(res[p], 512, "{\"policy\":\"%s\",\"roi\":%d,\"ok\":false,"
					 "\"verify\":\"set-up: %s\"}", pw_policy_name(p), 3000 + p, err);
			} else {
				fprintf(stderr, "cxlbed-pool: %s under %s%s\n", wl->name,
					pw_policy_name(p), attempt ? ", again after an OOM kill" : "");
				oom = run_policy(wl, p, &o, fast, far, &res[p], timeout_s) == 1;
				pw_policy_report(p, fast, far, tuned, sizeof(tuned));
				if (strcmp(tuned, "{}"))
					res[p] = with_member(res[p], "tuned", tuned);
			}
			pw_policy_teardown(p);
			pw_limit_release(fast);
			/* before the run: this program's pages off the fast node */
			snprintf(own, sizeof(own), "{\"found\":%ld,\"left\":%ld}",
				 own_off, own_left);
			res[p] = with_member(res[p], "own_pages_off_fast", own);
			if (first_try) {
				res[p] = with_member(res[p], "first_attempt", first_try);
				free(first_try);
			}
			if (!oom)
				break;
		}
	}

	printf("{\"workload\":\"pool\",\"kind\":\"%s\",\"what\":\"%s\",\"reading\":", wl->name,
	       wl->what);
	json_str(stdout, wl->reading);
	printf(",\"fast_node\":%d,\"far_node\":%d,\"local_fraction\":%.3f,\"clock\":\"guest\"",
	       fast, far, o.local_fraction);
	/* the path's configured read bandwidth (cxlbed's HMAT), which the
	 * timing model models: the report's overlap bound needs it */
	if (far_mbps)
		printf(",\"far_read_mbps\":%u", far_mbps);
	printf(",\"oom_score_adj\":%lld", pw_oom_score_now());
	fputs(",\"knobs\":", stdout);
	pw_knobs_json(stdout, &knobs);
	fputs(",\"policies\":[", stdout);
	for (int p = 0, k = 0; p < PW_NPOLICIES; p++) {
		bool ok, same;

		if (!res[p])
			continue;
		if (strstr(res[p], "\"available\":false")) {
			printf("%s%s", k++ ? "," : "", res[p]);
			continue;
		}
		ok = strstr(res[p], "\"ok\":true") != NULL;
		if (ok && first < 0)
			first = p;
		/* every policy computes the same numbers as the first one */
		same = ok && first >= 0 && checksum_of(res[p]) == checksum_of(res[first]);
		all_ok &= ok && same;
		if (k++)
			putchar(',');
		/* splice "same_result" into the object */
		printf("%.*s,\"same_result\":%s}", (int)strlen(res[p]) - 1, res[p],
		       same ? "true" : "false");
	}
	fputs("],\"rois\":[", stdout);
	for (int p = 0, k = 0; p < PW_NPOLICIES; p++)
		if (res[p] && !strstr(res[p], "\"available\":false"))
			printf("%s{\"id\":%d,\"kind\":\"span\",\"policy\":\"%s\"}", k++ ? "," : "",
			       3000 + p, pw_policy_name(p));
	printf("]}\n");
	return all_ok ? 0 : 1;
}
