/* SPDX-License-Identifier: MIT */
/*
 * Which cxlbed this is: its version (the VERSION file) and the commit it
 * was built from (`git describe --always --dirty` of the checkout, or
 * VERSION's commit line in a tree that `git archive` exported; "unknown"
 * otherwise). The Makefile embeds both at build time (emulator/emulator.mk).
 */
#ifndef CXLBED_VERSION_H
#define CXLBED_VERSION_H

const char *cxlbed_version(void);
const char *cxlbed_commit(void);

#endif
