/* SPDX-License-Identifier: MIT */
/*
 * The guest clock device's shared page: what the timing plugin and the
 * guest's clock module (guest/clock/cxlbed_clock.c) exchange. The page is
 * BAR 2 of an ivshmem-doorbell PCI device whose memory the plugin serves;
 * the device's MSI-X vector N interrupts guest CPU N (its clock event).
 *
 * The guest never computes time. It writes what it asks for into its
 * CPU's slot and executes a CLOCK marker (cxlbed-roi.h, op 5, id = one of
 * CXLBED_CLK_*); the plugin acts on the marker before the instruction
 * after it runs, so a load right after the marker sees the answer.
 * Included by the kernel module and the plugin: fixed-width types only.
 */
#ifndef CXLBED_CLOCK_H
#define CXLBED_CLOCK_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define CXLBED_CLOCK_MAGIC	0x314b4c43u	/* "CLK1" */
#define CXLBED_CLOCK_VERSION	1
#define CXLBED_CLOCK_MAX_CPUS	32
#define CXLBED_CLOCK_PAGE	4096	/* BAR size: a power of two */

/* Marker ids under CXLBED_ROI_CLOCK. */
#define CXLBED_CLK_READ		0	/* plugin: slot.now = this vCPU's modeled ns */
#define CXLBED_CLK_HELLO	1	/* guest: page.hello_cpu = its CPU; arms */
#define CXLBED_CLK_SET		2	/* guest: interrupt me slot.arg ns from now */
#define CXLBED_CLK_STOP		3	/* guest: no interrupt wanted */
#define CXLBED_CLK_IRQ		4	/* guest: the clock interrupt is being handled */

/* One guest CPU (= QEMU vCPU index), one cache line. */
struct cxlbed_clock_cpu {
	uint64_t now;		/* plugin: modeled ns, monotonic over all CPUs */
	uint64_t arg;		/* guest: ns until the next clock event */
	uint64_t deadline;	/* plugin: the armed deadline (information) */
	uint64_t irqs;		/* plugin: clock interrupts raised */
	uint64_t pad[4];
};

struct cxlbed_clock_page {
	uint32_t magic;		/* plugin */
	uint32_t version;	/* plugin */
	uint32_t ncpus;		/* plugin: vCPUs = MSI-X vectors */
	uint32_t armed;		/* plugin: counting; READ answers are valid */
	uint32_t hello_cpu;	/* guest: its CPU number, before HELLO */
	uint32_t mismatch;	/* plugin: 1 + the vCPU index whose HELLO named another CPU */
	/*
	 * guest: kernel virtual ranges where stores may be device registers
	 * (ioremap, fixmap). The plugin does not look up their physical
	 * address: doing so for a store that remapped memory aborts QEMU.
	 */
	uint64_t io_start, io_end;
	uint64_t fix_start, fix_end;
	/*
	 * guest: the local APIC's interrupt command register (xAPIC MMIO),
	 * 0 in x2APIC mode. A store there sends an IPI: the plugin then knows
	 * the modeled time a halted vCPU is woken at.
	 */
	uint64_t apic_icr;
	struct cxlbed_clock_cpu cpu[CXLBED_CLOCK_MAX_CPUS];
};

#endif
