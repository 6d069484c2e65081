/* SPDX-License-Identifier: MIT */
/*
 * One host of a topology as a libvirt domain: the machine `cxlbed run`
 * boots, for `virsh define` / `virsh start`. libvirt has no CXL elements,
 * so the domain XML holds what libvirt does express (memory, vCPUs, the
 * CPU model and its NUMA node 0, the guest image and kernel command line,
 * the serial console, the agent's virtio-serial channel) and passes the
 * rest of `cxlbed plan`'s QEMU command line through <qemu:commandline>
 * unchanged: host bridges, ports, switches, Type-3 devices, their memory
 * backends and CDAT files, fixed memory windows, HMAT. The guest's
 * regions are named on its kernel command line (cxlbed.region=), so the
 * agent brings them online at boot (docs/libvirt.md).
 */
#ifndef CXLBED_EXPORT_LIBVIRT_H
#define CXLBED_EXPORT_LIBVIRT_H

#include "topology/topology.h"

#include <glib.h>

/* The domain's name: "cxlbed-TOPOLOGY-HOST". Caller frees. */
char *libvirt_domain_name(const struct cb_topology *t, const struct cb_host *h);

/*
 * The domain XML of host @h. @dir (absolute) is where the CDAT and pool
 * files the command line names live (libvirt_write_files puts them there).
 */
char *libvirt_domain_xml(const struct cb_topology *t, const struct cb_host *h,
			 const char *dir, GError **error);

/* CDAT tables and pool files of host @h into @dir. */
bool libvirt_write_files(const struct cb_topology *t, const struct cb_host *h,
			 const char *dir, GError **error);

/* "cxlbed.region=r0,window=0,granularity=4096,mode=ram,serials=4097+4098". */
char *libvirt_region_param(const struct cb_region *reg);

#endif
