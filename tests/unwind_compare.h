/* Helpers shared by the tests that compare `--unwind kernel` with `--unwind dwarf`
 * (unwind_modes_e2e, kernel_unwind_e2e): the same program points with the same stacks. */
#ifndef TESTS_UNWIND_COMPARE_H
#define TESTS_UNWIND_COMPARE_H

#include <stddef.h>

#include "dhat_reader.h"

/* The number after name in a tracer's closing counters line (log: its -v stderr). Fails the
 * test when name is not there. */
unsigned long long uc_counter(const char *log, const char *name);

/*
 * The kernel run really unwound in the kernel: some stacks, and at most max_fallbacks of
 * them sent as snapshots, or (max_fallbacks 0) at most 2 or 0.1% (clean runs: ld.so's code
 * before its FDEs). Returns the fallbacks.
 */
unsigned long long uc_expect_kernel_did_the_work(const char *what, const char *klog,
						 unsigned long long max_fallbacks);

/*
 * After symbolization, every program point (its frames without addresses) has the same bytes
 * and blocks in both profiles, the same totals too. The one difference allowed: a stack
 * --unwind dwarf cut short (its copy ended) that is a strict prefix of a stack the kernel
 * unwound, their excesses balancing; never a kernel stack shorter than dwarf mode's. Returns
 * the stacks dwarf mode cut short.
 */
size_t uc_expect_same_stacks(const char *what, const struct dhat_profile *dwarf,
			     const struct dhat_profile *kernel);

/* Does some program point of p hold frames naming each of the n functions in names? */
bool uc_has_stack_with(const struct dhat_profile *p, const char *const *names, size_t n);

#endif
