/* SPDX-License-Identifier: MIT */
#include "common/proc_ident.h"

#include <string.h>
#include <unistd.h>

static bool read_boot_id(char *buf, size_t len)
{
	g_autofree char *text = NULL;

	if (!g_file_get_contents("/proc/sys/kernel/random/boot_id", &text, NULL, NULL))
		return false;
	g_strlcpy(buf, g_strstrip(text), len);
	return true;
}

bool proc_ident_of(int pid, struct proc_ident *out)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/stat", pid);
	g_autofree char *text = NULL;
	g_auto(GStrv) f = NULL;
	const char *rest;

	memset(out, 0, sizeof(*out));
	if (pid <= 0 || !g_file_get_contents(path, &text, NULL, NULL))
		return false;
	/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses. */
	rest = strrchr(text, ')');
	if (!rest)
		return false;
	f = g_strsplit(g_strstrip((char *)rest + 1), " ", 0);
	/* f[0] is field 3 (state), so field 22 (starttime) is f[19]. */
	if (g_strv_length(f) < 20 || f[0][0] == 'Z' || f[0][0] == 'X')
		return false;
	out->pid = pid;
	out->start = g_ascii_strtoull(f[19], NULL, 10);
	return read_boot_id(out->boot, sizeof(out->boot));
}

bool proc_ident_self(struct proc_ident *out)
{
	return proc_ident_of(getpid(), out);
}

bool proc_ident_alive(const struct proc_ident *id)
{
	struct proc_ident now;

	return proc_ident_of(id->pid, &now) && now.start == id->start &&
	       !strcmp(now.boot, id->boot);
}
