/* SPDX-License-Identifier: MIT */
/*
 * A topology drawn as a tree in SVG for report.html: per host its bridges,
 * root ports, switches with their downstream ports, and devices; pools in
 * a row below, joined to the devices that map them. Each device carries
 * its path's configured idle read latency and the read bandwidth of the
 * path's narrowest hop (topology/path.h), each link its width and speed.
 */
#ifndef CXLBED_TOPO_TREE_H
#define CXLBED_TOPO_TREE_H

#include "topology/topology.h"

/* The <svg> element (no XML declaration); caller frees. */
char *topo_tree_svg(const struct cb_topology *t);

/* The narrowest read bandwidth along @p (QoS caps included); < 0: none. */
double topo_path_read_gbps(const struct cb_path *p);

#endif
