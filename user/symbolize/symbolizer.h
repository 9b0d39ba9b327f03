/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * symbolizer - turns user addresses of a traced process into DHAT frame strings, the way
 * Valgrind's VG_(describe_IP) writes them:
 *	"0x%lX: func (file:line)"	symbol and DWARF line info
 *	"0x%lX: func (in /path/module)"	symbol, no line info
 *	"0x%lX: ??? (in /path/module)"	no symbol
 * Addresses map to module + file offset through /proc/PID/maps (captured at creation and
 * again when an unknown address appears); modules are opened through /proc/PID/root.
 * ELF .symtab/.dynsym, build-id debug files under /usr/lib/debug, and libdw line tables;
 * inlined calls expand to several frames sharing one address. Cached per module.
 * Rust (legacy and v0) and C++ names are shown demangled (demangle.h).
 */
#ifndef TRACER_SYMBOLIZER_H
#define TRACER_SYMBOLIZER_H

#include <stdbool.h>
#include <sys/types.h>

#include "alloc_events.h"
#include "strvec.h"

/* Symbolizer for process pid; reads its maps now. NULL + errno on failure. */
struct symbolizer *symbolizer__new(pid_t pid);
/* One more holder of s (freed with the last symbolizer__free()): a forked child that ended
 * before its maps could be read is symbolized with its parent's, the image it ran. Accepts
 * NULL. */
struct symbolizer *symbolizer__ref(struct symbolizer *s);
/* One holder fewer; freed with the last. Accepts NULL. */
void symbolizer__free(struct symbolizer *s);

/* Does s know no mapping at all (its process was a zombie, or gone, when the maps were
 * read)? True for NULL. */
bool symbolizer__empty(const struct symbolizer *s);
/* Re-read /proc/PID/maps (keeps what was known if the process is gone). 0 or -errno. */
int symbolizer__refresh_maps(struct symbolizer *s);

/*
 * Append the frame string(s) of ip to out, innermost first (several when inlined).
 * is_return: ip is a return address, so ip-1 is looked up and printed (the call's line).
 * Returns the number of frames appended (>= 1) or -errno.
 */
int symbolizer__frames(struct symbolizer *s, __u64 ip, bool is_return, struct strvec *out);

/*
 * Also look for separate debug files under dir (as <dir>/.build-id/xx/yyyy.debug and
 * <dir><module dir>/<debuglink>), after /usr/lib/debug (and the target's own
 * /usr/lib/debug, read inside its root).
 * Affects modules not yet symbolized. 0 or -errno.
 */
int symbolizer__add_debug_dir(struct symbolizer *s, const char *dir);

/* True if a frame string names the function `main` (the stack is cut below it). */
bool symbolizer__is_main_frame(const char *frame);

#endif
