/* SPDX-License-Identifier: MIT */
/*
 * Bindings into the timing model (fm_timing.h). A host runs with the
 * model when the run wrote RUN/timing-HOST.cfg; its plugin decodes CXL
 * accesses by the regions that file lists. After each bind or unbind the
 * file becomes what the run wrote plus, for every LD the host holds now,
 * its resources, target and region at the base the guest chose; the
 * config generation of that host in the run's shared segment is then
 * bumped, and the plugin reloads at its next check-in.
 */
#include "fm/fm_timing.h"
#include "fm/fm_direct.h"
#include "qemu/timing_config.h"
#include "qemu/timing_config.h"
#include "timing/shm_links.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* "shm name=/cxlbed-RUN" in the config, mapped; NULL if none. */
static struct tm_shared *map_segment(const char *config)
{
	g_auto(GStrv) lines = g_strsplit(config, "\n", -1);
	struct tm_shared *s = NULL;
	struct stat st;

	for (int i = 0; lines[i] && !s; i++) {
		int fd;

		if (!g_str_has_prefix(lines[i], "shm name="))
			continue;
		fd = shm_open(lines[i] + 9, O_RDWR | O_CLOEXEC, 0);
		if (fd < 0)
			return NULL;
		/* the plugins size it when they start: before any bind */
		if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(*s)) {
			s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, 0);
			if (s == MAP_FAILED || s->magic != TM_SHM_MAGIC) {
				if (s != MAP_FAILED)
					munmap(s, sizeof(*s));
				s = NULL;
			}
		}
		close(fd);
	}
	return s;
}

static bool probe(struct fm *fm, struct fm_host *fh)
{
	g_autofree char *path = timing_config_path(fm->dir, fh->h);

	if (!fh->timing_probed) {
		fh->timing_probed = true;
		if (g_file_get_contents(path, &fh->timing_base, NULL, NULL))
			fh->shm = map_segment(fh->timing_base);
	}
	return fh->timing_base && fh->shm;
}

/* The run's config plus every LD @fh's host holds now; then reload. */
static void rewrite(struct fm *fm, struct fm_host *fh)
{
	g_autofree char *path = timing_config_path(fm->dir, fh->h);
	g_autofree char *tmp = g_strdup_printf("%s.fm", path);
	GString *text = g_string_new(fh->timing_base);
	struct fm_ld *e;

	g_mutex_lock(&fm->lock);
	cb_foreach(fm->map->lds, struct fm_ld, e) {
		struct cb_device *d;
		g_autofree char *lines = NULL;

		if (e->state != FM_LD_BOUND || e->b.host != fh->h)
			continue;
		d = topology_ld_device(e->ld, e->b.port);
		lines = timing_config_bound_text(d, e->b.base, e->b.window->granularity);
		g_string_append_printf(text, "# bound by the fabric manager at %.2f s\n%s",
				       e->b.since_s, lines);
		topology_ld_device_free(d);
	}
	g_mutex_unlock(&fm->lock);
	/* the plugin may read it at any moment: replace it whole */
	if (g_file_set_contents(tmp, text->str, text->len, NULL) &&
	    rename(tmp, path) == 0) {
		__atomic_add_fetch(&fh->shm->config_gen[fh->h->index], 1,
				   __ATOMIC_RELEASE);
		fh->reloads++;
	}
	g_string_free(text, TRUE);
}

void fm_timing_bound(struct fm *fm, struct fm_host *fh, const struct fm_ld *e,
		     const struct cb_device *dev)
{
	(void)e;
	(void)dev;
	if (probe(fm, fh))
		rewrite(fm, fh);
}

void fm_timing_unbound(struct fm *fm, struct fm_host *fh, const struct fm_ld *e)
{
	(void)e;
	if (probe(fm, fh))
		rewrite(fm, fh);
}

void fm_timing_close(struct fm_host *fh)
{
	if (fh->shm)
		munmap(fh->shm, sizeof(*fh->shm));
	fh->shm = NULL;
	g_clear_pointer(&fh->timing_base, g_free);
}

struct tm_shared *fm_timing_segment(struct fm *fm)
{
	struct fm_host *fh;

	cb_foreach(fm->hosts, struct fm_host, fh)
		if (probe(fm, fh))
			return fh->shm;
	return NULL;
}
