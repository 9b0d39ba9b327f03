// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* suppress - the built-in leak suppressions and LSAN-format files: see suppress.h. */
#include "suppress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safe_open.h"
#include "site.h"

/*
 * One-time allocations that stay live to the end by design: every C program has some, and
 * they drowned the program's own leaks (for `ls`, 11 of 12 suspects were locale data).
 * heaptrack and Valgrind's default suppressions hide the same kinds.
 * Anchored ("^") where a bare substring would also match a program's own functions. The
 * Rust and CPython entries name initialisation only, never a frame that is on the stack of
 * main's own calls (std::rt::lang_start_internal is, so it is not here).
 */
static const char *const BUILTIN[] = {
	/* glibc: locale data (setlocale, gettext's catalogs), iconv modules, time zones,
	 * stdio buffers, NSS modules */
	"^_nl_",
	"setlocale",
	"^__gconv",
	"^__tzfile_",
	"^tzset_internal",
	"^_IO_file_doallocate",
	"^__nss_",
	"^nss_",
	/* the static buffers of getpwuid(), getgrgid(), gethostbyname() and kin, kept for
	 * the next call */
	"^getpw",
	"^getgr",
	"^gethostby",
	"^getservby",
	/* ld.so: link maps, dlopen, and thread-local storage (the DTV and dynamic TLS) */
	"^_dl_",
	"^allocate_dtv",
	"^__tls_get_addr",
	"^tls_get_addr_tail",
	"^dl_open_worker",
	/* Rust's runtime: std::rt::init, the main thread's handle, stdout's buffer, TLS
	 * destructor lists */
	"^std::rt::init",
	"^std::thread::Thread::new_main",
	"^std::thread::set_current",
	"^std::thread::current::init_current",
	"^std::io::stdio::stdout",
	"^std::sys::thread_local::",
	"^std::sys::pal::unix::init",
	/* CPython's interpreter start-up */
	"^Py_Initialize",
	"^Py_InitializeEx",
	"^Py_InitializeFromConfig",
	"^_Py_InitializeMain",
	"^_PyRuntime_Initialize",
	"^pymain_init",
	"^pyinit_",
	"^pycore_",
	"^init_interp_main",
};

#define BUILTIN_CNT (sizeof(BUILTIN) / sizeof(BUILTIN[0]))

/* A suppressions file is a few lines of patterns: larger is refused, not read. */
#define SUPPRESS_FILE_MAX (1u << 20)

struct suppress {
	char **pat; /* the file's patterns */
	size_t cnt, cap;
};

/* "*"-glob of p[0..pn) against t[0..tn) whole; iterative, with one backtrack point. */
static bool glob_whole(const char *p, size_t pn, const char *t, size_t tn)
{
	size_t pi = 0, ti = 0, star = (size_t)-1, mark = 0;

	while (ti < tn) {
		if (pi < pn && p[pi] == '*') {
			star = pi++;
			mark = ti;
		} else if (pi < pn && p[pi] == t[ti]) {
			pi++;
			ti++;
		} else if (star != (size_t)-1) {
			pi = star + 1;
			ti = ++mark;
		} else {
			return false;
		}
	}
	while (pi < pn && p[pi] == '*')
		pi++;
	return pi == pn;
}

/* Text matched at most: a name longer than this is matched on its first bytes (a frame's
 * text is the target's, up to the reader's 64 KiB; the glob is O(pattern x text)). */
#define SUPPRESS_TEXT_MAX 1024

bool suppress__glob(const char *pattern, const char *text, size_t len)
{
	size_t pn = strlen(pattern);
	bool head = pn && pattern[0] == '^', tail = pn > head && pattern[pn - 1] == '$';
	char small[256], *g = small;
	size_t gn = 0;
	bool m;

	/* The anchors as stars, one glob of the whole text: "foo" is "*foo*", "^foo" is
	 * "foo*", "foo$" is "*foo". */
	pn -= (size_t)head + (size_t)tail;
	if (pn + 2 > sizeof(small) && !(g = malloc(pn + 2)))
		return false;
	if (!head)
		g[gn++] = '*';
	memcpy(g + gn, pattern + head, pn);
	gn += pn;
	if (!tail)
		g[gn++] = '*';
	m = glob_whole(g, gn, text, len < SUPPRESS_TEXT_MAX ? len : SUPPRESS_TEXT_MAX);
	if (g != small)
		free(g);
	return m;
}

/* One pattern against a cleaned frame "fn (file:line)" / "fn (in /lib/x.so)": its function
 * or its location. */
static bool match_frame(const char *pat, const char *frame)
{
	const char *open = strstr(frame, " (");
	size_t fn_len = open ? (size_t)(open - frame) : strlen(frame);

	if (suppress__glob(pat, frame, fn_len))
		return true;
	if (open) {
		const char *loc = open + 2;
		size_t n = strlen(loc);

		if (n && loc[n - 1] == ')')
			n--;
		if (!strncmp(loc, "in ", 3)) {
			loc += 3;
			n -= 3;
		}
		/* a pattern with no location in mind ("^_nl_") must not hit a path */
		if (pat[0] != '^' && suppress__glob(pat, loc, n))
			return true;
	}
	return false;
}

bool suppress__frame(const struct suppress *s, const char *frame, bool *builtin)
{
	const char *f = site__clean_frame(frame);

	for (size_t k = 0; k < BUILTIN_CNT; k++)
		if (match_frame(BUILTIN[k], f)) {
			if (builtin)
				*builtin = true;
			return true;
		}
	for (size_t k = 0; s && k < s->cnt; k++)
		if (match_frame(s->pat[k], f)) {
			if (builtin)
				*builtin = false;
			return true;
		}
	return false;
}

void suppress__free(struct suppress *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cnt; i++)
		free(s->pat[i]);
	free(s->pat);
	free(s);
}

static int add(struct suppress *s, const char *pat, size_t n)
{
	if (s->cnt == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		char **v = realloc(s->pat, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->pat = v;
		s->cap = cap;
	}
	if (!(s->pat[s->cnt] = strndup(pat, n)))
		return -ENOMEM;
	s->cnt++;
	return 0;
}

struct suppress *suppress__load(const char *path, char *err, size_t errsz)
{
	struct suppress *s = calloc(1, sizeof(*s));
	char *line = NULL;
	size_t cap = 0, no = 0;
	ssize_t len;
	FILE *f;
	int fd;

	if (!s || !path)
		goto out_builtin;
	/* named on the command line and read as root: the safe open (a FIFO, a device or a
	 * file the sudo user may not read is refused), and bounded */
	fd = safe_open__read(AT_FDCWD, path, 0, SUPPRESS_FILE_MAX);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		snprintf(err, errsz, "--suppressions %s: %s", path,
			 fd < 0 ? safe_open__strerror(fd) : strerror(errno));
		if (fd >= 0)
			close(fd);
		suppress__free(s);
		return NULL;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *b = line, *e = line + len, *colon;

		no++;
		while (b < e && (*b == ' ' || *b == '\t'))
			b++;
		while (e > b && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (b == e || *b == '#')
			continue;
		colon = memchr(b, ':', (size_t)(e - b));
		if (!colon || colon + 1 == e) {
			snprintf(err, errsz, "%s:%zu: not \"leak:PATTERN\"", path, no);
			goto fail;
		}
		if (colon - b != 4 || strncmp(b, "leak", 4))
			continue; /* another sanitizer's type: not ours */
		if (add(s, colon + 1, (size_t)(e - colon - 1))) {
			snprintf(err, errsz, "%s: %s", path, strerror(ENOMEM));
			goto fail;
		}
	}
	if (ferror(f)) {
		snprintf(err, errsz, "%s: %s", path, strerror(EIO));
		goto fail;
	}
	fclose(f);
	free(line);
	return s;
fail:
	fclose(f);
	free(line);
	suppress__free(s);
	return NULL;
out_builtin:
	if (!s)
		snprintf(err, errsz, "%s", strerror(ENOMEM));
	return s; /* no path: the built-in list alone */
}
