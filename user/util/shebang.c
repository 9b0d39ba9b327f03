// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A script's interpreter: see shebang.h. */
#include "shebang.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safe_open.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Copy [s, s + n) into out (sz bytes) as a string: 0, or -ENAMETOOLONG. */
static int copy_part(const char *s, size_t n, char *out, size_t sz)
{
	if (n >= sz)
		return -ENAMETOOLONG;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int shebang__parse(const char *buf, size_t n, char *interp, size_t isz, char *arg, size_t asz)
{
	const char *end, *p, *name;
	int err;

	if (n > SHEBANG_LINE_MAX)
		n = SHEBANG_LINE_MAX;
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	end = memchr(buf, '\n', n);
	if (!end)
		end = buf + n; /* the kernel takes a line cut at its buffer as it is */
	for (p = buf + 2; p < end && is_blank(*p); p++)
		;
	name = p;
	while (p < end && !is_blank(*p) && *p != '\0')
		p++;
	if (p == name)
		return 0; /* "#!" alone: the kernel refuses it (ENOEXEC) */
	err = copy_part(name, (size_t)(p - name), interp, isz);
	if (err)
		return err;
	while (p < end && is_blank(*p))
		p++;
	while (end > p && (is_blank(end[-1]) || end[-1] == '\r' || end[-1] == '\0'))
		end--;
	err = copy_part(p, (size_t)(end - p), arg, asz);
	return err ? err : 1;
}

int shebang__search_path(const char *name, const char *dirs, char *path, size_t sz)
{
	if (strchr(name, '/')) {
		snprintf(path, sz, "%s", name);
		return 0;
	}
	for (const char *d = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; *d;) {
		size_t n = strcspn(d, ":");

		if (n)
			snprintf(path, sz, "%.*s/%s", (int)n, d, name);
		else
			snprintf(path, sz, "./%s", name); /* an empty entry is the cwd */
		if (!access(path, X_OK))
			return 0;
		d += n + (d[n] == ':');
	}
	snprintf(path, sz, "%s", name);
	return -ENOENT;
}

/* The interpreter of the script at path into interp (sz bytes), env's NAME resolved: 1; 0 if
 * path is not a script or cannot be read. */
static int interpreter_of(const char *path, char *interp, size_t sz)
{
	char buf[SHEBANG_LINE_MAX], arg[SHEBANG_LINE_MAX], named[SHEBANG_LINE_MAX];
	int fd = safe_open__read(AT_FDCWD, path, 0, SAFE_OPEN_ANY_SZ), found;
	ssize_t n;
	const char *base, *slash;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return 0;
	found = shebang__parse(buf, (size_t)n, named, sizeof(named), arg, sizeof(arg));
	if (found <= 0)
		return 0;
	slash = strrchr(named, '/');
	base = slash ? slash + 1 : named;
	/* "#!/usr/bin/env NAME": env runs NAME from $PATH, as the script's own run will. */
	if (!strcmp(base, "env") && arg[0] && arg[0] != '-' && !strpbrk(arg, " \t=") &&
	    !shebang__search_path(arg, getenv("PATH"), interp, sz))
		return 1;
	snprintf(interp, sz, "%s", named);
	return 1;
}

int shebang__resolve(char *path, size_t sz)
{
	char next[PATH_MAX];

	for (int depth = 0;; depth++) {
		if (!interpreter_of(path, next, sizeof(next)))
			return depth;
		if (depth == SHEBANG_DEPTH_MAX)
			return -ELOOP;
		snprintf(path, sz, "%s", next);
	}
}
