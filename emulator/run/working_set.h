/* SPDX-License-Identifier: MIT */
/*
 * How much memory a command workload works on, when its command line says
 * so: a program whose options fix the size it touches (sysbench memory).
 * The runner compares it with the host's modeled last-level cache
 * (command_workload.h): a working set that fits there is measured in the
 * cache, whatever node its memory is on.
 */
#ifndef CXLBED_WORKING_SET_H
#define CXLBED_WORKING_SET_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The bytes @command touches over and over, and in words how that was
 * read from it ("sysbench memory: --memory-block-size=1M, global scope");
 * false when no program it knows is in the command line, or the line
 * cannot be read (a shell construct, a size it cannot parse).
 */
bool working_set_of_command(const char *command, uint64_t *bytes, char **how);

#endif
