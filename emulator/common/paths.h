/* SPDX-License-Identifier: MIT */
/*
 * Where cxlbed's own files are. The CLI lives at the repository root
 * (./cxlbed), so everything is found relative to the binary; CXLBED_ROOT
 * overrides it (tests, installed copies).
 */
#ifndef CXLBED_PATHS_H
#define CXLBED_PATHS_H

const char *cxlbed_root(void);
/* Paths under the root; returned strings live as long as the process. */
const char *cxlbed_path(const char *relative);

/*
 * Where cxlbed keeps what outlives one process: the register of live runs
 * (STATE/runs/RUN_ID.json, docs/run-state.md). Per user, shared by every
 * checkout, like the /dev/shm segments it accounts for. CXLBED_STATE_DIR
 * overrides it (unit tests); default $XDG_CACHE_HOME/cxlbed (~/.cache/cxlbed).
 */
const char *cxlbed_state_dir(void);

/* Uncompressed kernel: QEMU boots it directly (PVH), ~1 s less per boot
 * than bzImage decompression under TCG. */
#define CXLBED_GUEST_KERNEL "build/guest/vmlinux"
/*
 * Its symbols, to name where a silent guest's vCPUs are; optional (Debian's
 * package holds a placeholder): the real System.map, or /proc/kallsyms
 * from any boot of the guest (nokaslr: the same addresses every boot).
 */
#define CXLBED_GUEST_SYSTEM_MAP "build/guest/System.map"
#define CXLBED_DEFAULT_TOPOLOGY "topologies/default.topo"
#define CXLBED_DEFAULT_SCENARIO "workloads/scenarios/default.scn"
#define CXLBED_RESULTS "results"

#endif
