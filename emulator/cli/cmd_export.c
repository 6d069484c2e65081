/* SPDX-License-Identifier: MIT */
/* cxlbed export --libvirt TOPOLOGY [--host NAME] [--out DIR] */
#include "cli/commands.h"
#include "qemu/argv.h"
#include "common/error.h"
#include "export/libvirt.h"
#include "common/paths.h"
#include "qemu/pci_numbers.h"
#include "topology/topology.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/*
 * libvirt runs QEMU as its own user (libvirt-qemu on Debian): it must be
 * able to reach @path. Warn, do not fail: qemu.conf may say user = root.
 */
static void warn_unreadable(const char *path)
{
	g_autofree char *p = g_canonicalize_filename(path, NULL);
	struct stat st;

	/* The file itself, then every folder above it up to /. */
	for (char *at = g_strdup(p), *up; at; g_free(at), at = up) {
		bool dir = stat(at, &st) == 0 && S_ISDIR(st.st_mode);

		if (stat(at, &st) == 0 && !(st.st_mode & (dir ? S_IXOTH : S_IROTH)))
			fprintf(stderr, "cxlbed export: warning: %s is not %s by other users, so "
				"libvirt's QEMU user cannot read %s (docs/libvirt.md)\n", at,
				dir ? "searchable" : "readable", p);
		up = strcmp(at, "/") ? g_path_get_dirname(at) : NULL;
	}
}

static int export_host(const struct cb_topology *t, const struct cb_host *h, const char *dir)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *xml = NULL;
	g_autofree char *name = libvirt_domain_name(t, h);
	g_autofree char *base = g_strdup_printf("%s.xml", name);
	g_autofree char *path = g_build_filename(dir, base, NULL);

	if (!libvirt_write_files(t, h, dir, &err) ||
	    !(xml = libvirt_domain_xml(t, h, dir, &err)) ||
	    !g_file_set_contents(path, xml, -1, &err)) {
		fprintf(stderr, "cxlbed export: host %s: %s\n", h->id, err->message);
		return err->domain == CXLBED_ERROR ? err->code : 1;
	}
	printf("%s\n", path);
	fprintf(stderr, "  host %s: virsh define %s && virsh start %s && virsh console %s\n",
		h->id, path, name, name);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	gboolean libvirt = FALSE;
	g_autofree char *host = NULL, *out = NULL, *dir = NULL, *qemu = NULL;
	GOptionEntry entries[] = {
		{ "libvirt", 0, 0, G_OPTION_ARG_NONE, &libvirt,
		  "write libvirt domain XML (the only format so far)", NULL },
		{ "host", 0, 0, G_OPTION_ARG_STRING, &host,
		  "only this host of the topology (default: every host)", "NAME" },
		{ "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		  "write to DIR (default results/libvirt-TOPOLOGY)", "DIR" },
		{ "qemu", 0, 0, G_OPTION_ARG_FILENAME, &qemu,
		  "the QEMU the domain runs (default: qemu-system-x86_64 on PATH, "
		  "Debian's: libvirt's QEMU user cannot reach cxlbed's build in "
		  "the cache under your home; docs/libvirt.md)", "PATH" },
		{ NULL }
	};
	g_autoptr(GError) err = NULL;
	g_autoptr(cb_topology) t = NULL;
	const struct cb_host *h;
	int rc = 0;

	if (!verb_options(&argc, &argv, "--libvirt TOPOLOGY",
			  "Write one libvirt domain XML per host of TOPOLOGY that boots the machine\n"
			  "`cxlbed run` boots (without the timing model): libvirt holds memory, vCPUs,\n"
			  "the guest image, the console and the agent's channel; the CXL fabric goes\n"
			  "through <qemu:commandline> with the arguments `cxlbed plan` prints. The\n"
			  "guest brings its regions online at boot. Beside the XML: the CDAT tables\n"
			  "and pool files the command line names; QEMU (libvirt's user) must be able\n"
			  "to read them and the guest image (docs/libvirt.md).\n"
			  "Prints each XML file written. Exit status: 0 written, 1 a file could not\n"
			  "be written, 2 bad input.", entries))
		return 2;
	if (!libvirt || argc != 2)
		return verb_usage("export", "give --libvirt and one TOPOLOGY, e.g. "
			"cxlbed export --libvirt topologies/default.topo");
	if (!choose_qemu("export", qemu))
		return 2;
	t = topology_load(argv[1], &err);
	if (t && !qemu_check_topology(t, &err))
		g_clear_pointer(&t, topology_free);
	if (!t) {
		fprintf(stderr, "%s\n", err->message);
		return err->domain == CXLBED_ERROR ? err->code : 2;
	}
	if (host && !topology_find_host(t, host)) {
		GString *ids = g_string_new(NULL);

		cb_foreach(t->hosts, const struct cb_host, h)
			g_string_append_printf(ids, " %s", h->id);
		fprintf(stderr, "cxlbed export: --host %s: %s has no such host; its hosts:%s\n",
			host, argv[1], ids->str);
		g_string_free(ids, TRUE);
		return 2;
	}
	if (!out) {
		g_autofree char *leaf = g_strdup_printf("libvirt-%s", t->name);

		out = g_build_filename(cxlbed_path(CXLBED_RESULTS), leaf, NULL);
	}
	/* Absolute: libvirt starts QEMU in its own working directory. */
	dir = g_canonicalize_filename(out, NULL);
	if (qemu)
		warn_unreadable(g_getenv("CXLBED_QEMU"));
	warn_unreadable(cxlbed_path(CXLBED_GUEST_KERNEL));
	warn_unreadable(cxlbed_path(CXLBED_DEFAULT_INITRD));
	warn_unreadable(dir);
	cb_foreach(t->hosts, const struct cb_host, h) {
		int one = !host || !strcmp(host, h->id) ? export_host(t, h, dir) : 0;

		rc = MAX(rc, one);
	}
	return rc;
}
