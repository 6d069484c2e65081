/* SPDX-License-Identifier: MIT */
/*
 * Where a guest's vCPUs are: for a boot that went silent (no agent, QEMU
 * still running), the instruction pointer of every vCPU, named after the
 * guest kernel's symbols, says whether it hung in a spin, a wait or an
 * idle loop. Read through QMP's human-monitor-command ("info registers
 * -a"), symbolized with the kernel's System.map (nokaslr: no offset).
 */
#ifndef CXLBED_VCPU_WHERE_H
#define CXLBED_VCPU_WHERE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "qemu/qmp.h"

struct ksyms;

/* NULL with @error when the map cannot be read or holds no text symbol. */
struct ksyms *ksyms_load(const char *system_map, GError **error);
void ksyms_free(struct ksyms *k);
/* "name+0xOFF", or NULL outside the kernel's text (a module, user space). */
char *ksyms_name(const struct ksyms *k, uint64_t addr);

/*
 * One line for "info registers -a" output: "vCPU0 name+0xOFF (halted),
 * vCPU1 ...". @k may be NULL (bare addresses). Empty when no CPU block
 * is found.
 */
char *vcpu_where_summary(const char *info_registers, const struct ksyms *k);

/* How many of the text's vCPUs are halted; their number in @ncpus. */
int vcpu_halted_count(const char *info_registers, int *ncpus);

/* Ask QEMU: is every vCPU halted (waiting for an interrupt)? False when
 * QEMU did not answer. */
bool vcpus_all_halted(struct qmp *q, gint64 deadline_us);

/*
 * Ask QEMU, write the whole answer to @save_path, and return the summary
 * line; NULL with @error when QEMU did not answer.
 */
char *vcpu_where(struct qmp *q, const char *system_map, const char *save_path,
		 gint64 deadline_us, GError **error);

#endif
