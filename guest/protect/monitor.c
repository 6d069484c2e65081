// SPDX-License-Identifier: MIT
#include "monitor.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <tracefs.h>

#define QUEUE 256
#define INSTANCE "cxlbed-protect"

static const struct {
	const char *system, *name;
	enum mon_kind kind;
} watched[] = {
	{ "cxl", "cxl_general_media", MON_GENERAL_MEDIA },
	{ "cxl", "cxl_dram", MON_DRAM },
	{ "cxl", "cxl_memory_module", MON_MEMORY_MODULE },
	{ "cxl", "cxl_poison", MON_POISON },
	{ "cxl", "cxl_aer_correctable_error", MON_AER_CORRECTABLE },
	{ "cxl", "cxl_aer_uncorrectable_error", MON_AER_UNCORRECTABLE },
	{ "aer", "aer_event", MON_AER },
	{ "ras", "memory_failure_event", MON_MEMORY_FAILURE },
};
#define NWATCHED (sizeof(watched) / sizeof(watched[0]))

static struct tracefs_instance *inst;
static struct tep_handle *tep;
static pthread_t thread;
static atomic_int stop, running;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static struct mon_event queue[QUEUE];
static unsigned int qn, seen, dropped;
static atomic_uint pending;	/* qn, readable without the lock */

const char *mon_kind_name(enum mon_kind k)
{
	static const char *const n[] = {
		[MON_GENERAL_MEDIA] = "general-media", [MON_DRAM] = "dram",
		[MON_MEMORY_MODULE] = "memory-module", [MON_POISON] = "poison",
		[MON_AER_CORRECTABLE] = "cor-error", [MON_AER_UNCORRECTABLE] = "uncor-error",
		[MON_AER] = "aer", [MON_MEMORY_FAILURE] = "memory-failure",
	};
	return k <= MON_MEMORY_FAILURE ? n[k] : "?";
}

static unsigned long long num(struct tep_event *e, struct tep_record *r,
			      const char *field, unsigned long long dflt)
{
	unsigned long long v;

	return tep_get_field_val(NULL, e, field, r, &v, 0) ? dflt : v;
}

static void str(struct tep_event *e, struct tep_record *r, const char *field,
		char *out, size_t len)
{
	int n = 0;
	const char *p = tep_get_field_raw(NULL, e, field, r, &n, 0);

	snprintf(out, len, "%.*s", p ? n : 0, p ? p : "");
}

/* The serial of the memdev below PCI function @bdf, 0 if none. */
static uint64_t serial_of_pci(const char *bdf)
{
	char path[512];
	unsigned long long sn = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "mem", 3) && d->d_name[3] >= '0' && d->d_name[3] <= '9') {
			FILE *f;

			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s/serial", bdf,
				 d->d_name);
			f = fopen(path, "r");
			if (f) {
				if (fscanf(f, "%lli", &sn) != 1)
					sn = 0;
				fclose(f);
			}
		}
	closedir(dir);
	return sn;
}

static int on_record(struct tep_event *e, struct tep_record *r, int cpu, void *ctx)
{
	struct mon_event m;
	char dev[64];
	unsigned int i;

	(void)cpu;
	(void)ctx;
	for (i = 0; i < NWATCHED; i++)
		if (!strcmp(e->name, watched[i].name) && !strcmp(e->system, watched[i].system))
			break;
	if (i == NWATCHED)
		return 0;
	memset(&m, 0, sizeof(m));
	m.kind = watched[i].kind;
	m.serial = num(e, r, "serial", 0);
	m.hpa = num(e, r, "hpa", ~0ull);
	m.dpa = num(e, r, "dpa", 0);
	m.length = m.kind == MON_POISON ? num(e, r, "dpa_length", 64) : 64;
	m.log = (int)num(e, r, "log", 0);
	m.descriptor = (int)num(e, r, "descriptor", 0);
	m.health = (int)num(e, r, "health_status", 0);
	m.media_status = (int)num(e, r, "media_status", 0);
	m.severity = (int)num(e, r, "severity", 0);
	str(e, r, "memdev", m.memdev, sizeof(m.memdev));
	if (m.kind == MON_AER) {
		str(e, r, "dev_name", dev, sizeof(dev));
		m.serial = serial_of_pci(dev);
	}
	if (m.kind == MON_MEMORY_FAILURE) {
		m.hpa = num(e, r, "pfn", 0) << 12;
		m.length = 4096;
	}
	pthread_mutex_lock(&qlock);
	seen++;
	if (qn < QUEUE) {
		queue[qn++] = m;
		atomic_store(&pending, qn);
	} else
		dropped++;
	pthread_mutex_unlock(&qlock);
	return 0;
}

static void *follow(void *arg)
{
	char *pipe = tracefs_instance_get_file(inst, "trace_pipe");
	int fd = pipe ? open(pipe, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;

	(void)arg;
	tracefs_put_tracing_file(pipe);
	while (!atomic_load(&stop)) {
		/* the pipe only wakes us; the raw buffers carry the fields */
		if (fd >= 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, 50);
		} else {
			usleep(20000);
		}
		tracefs_iterate_raw_events(tep, inst, NULL, 0, on_record, NULL);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

int mon_start(void)
{
	const char *systems[] = { "cxl", "aer", "ras", NULL };
	int enabled = 0;

	if (atomic_load(&running))
		return 0;
	if (!tracefs_tracing_dir()) {
		mkdir("/sys/kernel/tracing", 0755);
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	}
	inst = tracefs_instance_create(INSTANCE);
	tep = tracefs_local_events_system(NULL, systems);
	if (!inst || !tep)
		return -1;
	for (unsigned int i = 0; i < NWATCHED; i++)
		enabled += tracefs_event_enable(inst, watched[i].system, watched[i].name) == 0;
	if (!enabled || tracefs_trace_on(inst))
		return -1;
	atomic_store(&stop, 0);
	if (pthread_create(&thread, NULL, follow, NULL))
		return -1;
	atomic_store(&running, 1);
	return 0;
}

int mon_take(struct mon_event *out, int max)
{
	int n;

	/* the caller asks on every operation: answer "none" without a lock */
	if (!atomic_load(&pending))
		return 0;
	pthread_mutex_lock(&qlock);
	n = (int)qn < max ? (int)qn : max;
	memcpy(out, queue, (size_t)n * sizeof(*out));
	memmove(queue, queue + n, (qn - (unsigned int)n) * sizeof(*out));
	qn -= (unsigned int)n;
	atomic_store(&pending, qn);
	pthread_mutex_unlock(&qlock);
	return n;
}

unsigned int mon_seen(void)
{
	unsigned int n;

	pthread_mutex_lock(&qlock);
	n = seen;
	pthread_mutex_unlock(&qlock);
	return n;
}

unsigned int mon_dropped(void)
{
	unsigned int n;

	pthread_mutex_lock(&qlock);
	n = dropped;
	pthread_mutex_unlock(&qlock);
	return n;
}

void mon_stop(void)
{
	if (!atomic_load(&running))
		return;
	atomic_store(&stop, 1);
	tracefs_iterate_stop(inst);
	pthread_join(thread, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	tep_free(tep);
	atomic_store(&running, 0);
}
