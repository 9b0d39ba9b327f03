/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Test helpers for the symbolizer suite: run a fixture program from
 * tests/data/symbolizer/fixture.c, read the addresses it reports, and ask binutils'
 * addr2line what the same ELF addresses are, formatted like the symbolizer's frames.
 */
#ifndef TESTS_SYMBOLIZER_FIXTURE_H
#define TESTS_SYMBOLIZER_FIXTURE_H

#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include "strvec.h"

#define SYMFIX_MAX_ADDRS 32

/* One "NAME ADDR BIAS" line of the fixture. */
struct symfix_addr {
	char name[64]; /* entry name, e.g. "host_ra" */
	__u64 addr;    /* runtime address */
	__u64 bias;    /* load bias of its object: ELF vaddr = addr - bias */
};

/* A running fixture process. */
struct symfix {
	pid_t pid;				    /* child, 0 once reaped */
	FILE *in;				    /* its stdin (commands) */
	FILE *out;				    /* its stdout (reports) */
	struct symfix_addr addrs[SYMFIX_MAX_ADDRS]; /* reports up to "ready" */
	int cnt;				    /* entries in addrs */
};

/* Start exe and read its reports up to "ready". 0 or -errno. */
int symfix__start(struct symfix *f, const char *exe);
/* Same with a command line (argv[0] is the program, found in PATH); argv ends with NULL. */
int symfix__start_argv(struct symfix *f, char *const argv[]);
/* The report called name; aborts the test when missing. */
const struct symfix_addr *symfix__get(const struct symfix *f, const char *name);
/* Send a command line; if reply, read one report line into it. 0 or -errno. */
int symfix__command(struct symfix *f, const char *cmd, struct symfix_addr *reply);
/* Path of the file mapped at addr in the fixture (from /proc/PID/maps) into buf. 0 or -errno. */
int symfix__module_path(const struct symfix *f, __u64 addr, char *buf, size_t sz);
/* Ask the fixture to exit and reap it. Returns its exit status or -errno. */
int symfix__stop(struct symfix *f);

/*
 * Run `addr2line -C -f -i -e file vaddr` and append its answer as frame strings printed at
 * print_addr ("0x%llX: func (file:line)", "(in file)" when no line, "???" for "??").
 * Names are demangled; binutils names inlined C++ frames by their linkage names too.
 * Returns frames appended or -errno.
 */
int addr2line__frames(const char *file, __u64 vaddr, __u64 print_addr, struct strvec *out);

#endif
