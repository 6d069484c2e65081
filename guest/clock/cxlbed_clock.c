// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cxlbed_clock: the guest's clock and timer interrupts in modeled time.
 *
 * Under cxlbed's timing model each vCPU has a modeled clock (instructions
 * times a cost, plus the memory stalls the model charges). This module
 * makes it the kernel's clock:
 *  - a clocksource whose read asks the plugin for this CPU's modeled time
 *    through the shared page of an ivshmem-doorbell device (see
 *    include/cxlbed-clock.h): write nothing, execute the READ
 *    marker, load the answer;
 *  - a per-CPU clock event device: set_next_event writes the delay into
 *    the page and executes the SET marker; the plugin raises MSI-X vector
 *    N when CPU N's modeled time reaches it.
 * Both outrank the TSC and the local APIC timer, so timekeeping, hrtimers,
 * the tick and everything driven by them follow modeled time.
 *
 * No vDSO mode: clock_gettime() from user space becomes a system call.
 * The module cannot be unloaded (clock event devices stay registered).
 */
#include <linux/clockchips.h>
#include <linux/clocksource.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/apic.h>
#include <asm/fixmap.h>
#include <asm/pgtable.h>

#include "cxlbed-roi.h"
#include "cxlbed-clock.h"

#define CLK_MARK(what) cxlbed_roi_mark(CXLBED_ROI_CLOCK, what)

static bool events = true;
module_param(events, bool, 0444);
MODULE_PARM_DESC(events, "also take over timer interrupts (default on)");

static struct cxlbed_clock_page *page;
static struct pci_dev *clock_pdev;
static DEFINE_PER_CPU(struct clock_event_device, clock_ce);

static u64 notrace clock_read(struct clocksource *cs)
{
	u64 t;

	/* the slot must be this CPU's from the marker to the load */
	preempt_disable_notrace();
	CLK_MARK(CXLBED_CLK_READ);
	t = READ_ONCE(page->cpu[raw_smp_processor_id()].now);
	preempt_enable_notrace();
	return t;
}

/* 1 GHz: a cycle is a modeled nanosecond. */
static struct clocksource clock_cs = {
	.name = "cxlbed",
	.rating = 450,		/* above tsc (300) */
	.read = clock_read,
	.mask = CLOCKSOURCE_MASK(64),
	.flags = CLOCK_SOURCE_IS_CONTINUOUS,
};

/* Called with interrupts off on the CPU the device belongs to. */
static int clock_next_event(unsigned long delta, struct clock_event_device *ce)
{
	WRITE_ONCE(page->cpu[smp_processor_id()].arg, delta);
	CLK_MARK(CXLBED_CLK_SET);
	return 0;
}

static int clock_stop(struct clock_event_device *ce)
{
	CLK_MARK(CXLBED_CLK_STOP);
	return 0;
}

static irqreturn_t clock_interrupt(int irq, void *data)
{
	/* this CPU's device: the event handler works on this CPU's timers */
	struct clock_event_device *ce = this_cpu_ptr(&clock_ce);

	CLK_MARK(CXLBED_CLK_IRQ);
	if (ce->event_handler)
		ce->event_handler(ce);
	return IRQ_HANDLED;
}

/* Runs on @cpu itself (an AP hotplug state): the tick takes a local device. */
static int clock_cpu_online(unsigned int cpu)
{
	struct clock_event_device *ce = per_cpu_ptr(&clock_ce, cpu);
	int irq, err;

	if (cpu >= page->ncpus)
		return 0;	/* no vector for it: keeps the APIC timer */
	irq = pci_irq_vector(clock_pdev, cpu);
	if (irq < 0)
		return irq;
	memset(ce, 0, sizeof(*ce));
	ce->name = "cxlbed";
	ce->features = CLOCK_EVT_FEAT_ONESHOT;
	ce->rating = 450;	/* above lapic-deadline (150) */
	ce->cpumask = cpumask_of(cpu);
	ce->irq = irq;
	ce->set_next_event = clock_next_event;
	ce->set_state_shutdown = clock_stop;
	ce->set_state_oneshot_stopped = clock_stop;
	/*
	 * The CPU before the interrupt starts: its vector is then allocated
	 * there. Moved later, an MSI changes CPU only after one more
	 * interrupt on the old one, and that first clock event would run
	 * on the wrong CPU (seen: a CPU whose tick never came back).
	 */
	err = irq_set_affinity(irq, cpumask_of(cpu));
	if (err)
		return err;
	err = request_irq(irq, clock_interrupt, IRQF_TIMER | IRQF_NOBALANCING,
			  "cxlbed-clock", ce);
	if (err)
		return err;
	if (!cpumask_equal(irq_data_get_effective_affinity_mask(
				   irq_get_irq_data(irq)), cpumask_of(cpu))) {
		pr_err("cxlbed_clock: vector for CPU %u lands elsewhere\n", cpu);
		free_irq(irq, ce);
		return -EIO;
	}
	clockevents_config_and_register(ce, NSEC_PER_SEC, 1000, 1UL << 40);
	return 0;
}

/* Each CPU names itself to the plugin: its number must be the vCPU index. */
static void clock_hello(void *unused)
{
	WRITE_ONCE(page->hello_cpu, smp_processor_id());
	CLK_MARK(CXLBED_CLK_HELLO);
}

static int clock_handshake(struct pci_dev *pdev)
{
	unsigned int cpu;
	int ms;

	WRITE_ONCE(page->io_start, VMALLOC_START);
	WRITE_ONCE(page->io_end, VMALLOC_END);
	WRITE_ONCE(page->fix_start, FIXADDR_START);
	WRITE_ONCE(page->fix_end, FIXADDR_TOP);
	WRITE_ONCE(page->apic_icr, x2apic_enabled() ? 0 : APIC_BASE + APIC_ICR);
	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, clock_hello, NULL, 1);
	/* the first HELLO arms the plugin; counting starts a moment later */
	for (ms = 0; !READ_ONCE(page->armed) && ms < 30000; ms++)
		msleep(1);
	if (!READ_ONCE(page->armed)) {
		dev_err(&pdev->dev, "the timing plugin did not arm\n");
		return -ETIMEDOUT;
	}
	if (READ_ONCE(page->mismatch)) {
		dev_err(&pdev->dev, "vCPU %u is not guest CPU %u\n",
			page->mismatch - 1, page->mismatch - 1);
		return -ENODEV;
	}
	return 0;
}

static int clock_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	resource_size_t len = pci_resource_len(pdev, 2);
	int err, n;

	if (len < sizeof(*page))
		return -ENODEV;
	err = pcim_enable_device(pdev);
	if (err)
		return err;
	page = devm_memremap(&pdev->dev, pci_resource_start(pdev, 2),
			     sizeof(*page), MEMREMAP_WB);
	if (IS_ERR(page))
		return PTR_ERR(page);
	if (READ_ONCE(page->magic) != CXLBED_CLOCK_MAGIC ||
	    READ_ONCE(page->version) != CXLBED_CLOCK_VERSION ||
	    !page->ncpus || page->ncpus > CXLBED_CLOCK_MAX_CPUS)
		return -ENODEV;	/* not cxlbed's clock device */
	err = clock_handshake(pdev);
	if (err)
		return err;
	clocksource_register_hz(&clock_cs, NSEC_PER_SEC);
	if (!events) {
		dev_info(&pdev->dev, "clocksource in modeled time\n");
		return 0;
	}
	/* from here on the clocksource reads the page: probe must not fail */
	pci_set_master(pdev);	/* MSI-X writes are bus-master writes */
	n = pci_alloc_irq_vectors(pdev, page->ncpus, page->ncpus, PCI_IRQ_MSIX);
	if (n < 0) {
		dev_warn(&pdev->dev, "no MSI-X vectors (%d): timers stay\n", n);
		return 0;
	}
	clock_pdev = pdev;
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "cxlbed/clock:online",
				clock_cpu_online, NULL);
	if (err < 0) {
		dev_warn(&pdev->dev, "timers not taken over (%d)\n", err);
		return 0;
	}
	dev_info(&pdev->dev, "clocksource and %u timers in modeled time\n",
		 page->ncpus);
	return 0;
}

static const struct pci_device_id clock_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },	/* ivshmem */
	{ }
};

static struct pci_driver clock_driver = {
	.name = "cxlbed_clock",
	.id_table = clock_ids,
	.probe = clock_probe,
};

static int __init clock_init(void)
{
	return pci_register_driver(&clock_driver);
}
module_init(clock_init);
/* no module_exit: registered clock event devices cannot be taken back */

MODULE_DESCRIPTION("cxlbed: guest clock and timers in modeled time");
MODULE_LICENSE("Dual MIT/GPL");
