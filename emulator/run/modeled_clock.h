/* SPDX-License-Identifier: MIT */
/*
 * The guest's modeled clock, as the runner reads it while a workload runs
 * (its heartbeat, runner.c). Every vCPU of every host publishes its
 * modeled time in the run's timing segment (emulator/timing/shm_links.h:
 * slot host index * TM_MAX_VCPUS + vCPU, holding modeled ns + 1, 0 when
 * the vCPU is not running; a halted vCPU publishes its next clock event
 * and is marked halted).
 */
#ifndef CXLBED_MODELED_CLOCK_H
#define CXLBED_MODELED_CLOCK_H

#include <stdint.h>

/*
 * The modeled ns a host's @n vCPUs (their slots and halted marks) have
 * reached: the latest running vCPU's clock; when none runs, the earliest
 * deadline of a halted one (the guest's time is not past it); -1 when
 * no slot holds a time.
 */
double modeled_slots_now(const uint64_t *slot, const uint32_t *halted, int n);

/* The same, read from the run's segment @shm ("/cxlbed-RUN_ID") for the
 * host of index @host_index with @vcpus vCPUs; -1 when it cannot be read. */
double modeled_clock_host_ns(const char *shm, int host_index, int vcpus);

#endif
