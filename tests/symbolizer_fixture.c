// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Test helpers: fixture processes and addr2line as the reference symbolizer. */
#include "symbolizer_fixture.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Parse "NAME 0xADDR 0xBIAS". 0 or -EINVAL. */
static int symfix__parse(const char *line, struct symfix_addr *a)
{
	unsigned long long addr, bias;

	if (sscanf(line, "%63s %llx %llx", a->name, &addr, &bias) != 3)
		return -EINVAL;
	a->addr = addr;
	a->bias = bias;
	return 0;
}

int symfix__start(struct symfix *f, const char *exe)
{
	char *const argv[] = {(char *)exe, NULL};

	return symfix__start_argv(f, argv);
}

int symfix__start_argv(struct symfix *f, char *const argv[])
{
	int to_child[2] = {-1, -1}, from_child[2] = {-1, -1}, err = 0;
	char line[512];

	memset(f, 0, sizeof(*f));
	if (pipe2(to_child, O_CLOEXEC) || pipe2(from_child, O_CLOEXEC)) {
		err = -errno;
		goto cleanup;
	}
	f->pid = fork();
	if (f->pid < 0) {
		err = -errno;
		goto cleanup;
	}
	if (!f->pid) {
		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	to_child[0] = from_child[1] = -1;
	f->in = fdopen(to_child[1], "w");
	f->out = fdopen(from_child[0], "r");
	if (!f->in || !f->out) {
		err = -ENOMEM;
		goto cleanup;
	}
	to_child[1] = from_child[0] = -1;
	while (fgets(line, sizeof(line), f->out)) {
		if (!strncmp(line, "ready", 5))
			return 0;
		if (f->cnt < SYMFIX_MAX_ADDRS && !symfix__parse(line, &f->addrs[f->cnt]))
			f->cnt++;
	}
	err = -EIO;
cleanup:
	for (int i = 0; i < 2; i++) {
		if (to_child[i] >= 0)
			close(to_child[i]);
		if (from_child[i] >= 0)
			close(from_child[i]);
	}
	if (err && f->pid > 0)
		symfix__stop(f);
	return err;
}

const struct symfix_addr *symfix__get(const struct symfix *f, const char *name)
{
	for (int i = 0; i < f->cnt; i++) {
		if (!strcmp(f->addrs[i].name, name))
			return &f->addrs[i];
	}
	cr_assert_fail("fixture did not report %s", name);
	return NULL;
}

int symfix__command(struct symfix *f, const char *cmd, struct symfix_addr *reply)
{
	char line[512];

	if (fprintf(f->in, "%s\n", cmd) < 0 || fflush(f->in))
		return -EIO;
	if (!reply)
		return 0;
	if (!fgets(line, sizeof(line), f->out))
		return -EIO;
	return symfix__parse(line, reply);
}

int symfix__module_path(const struct symfix *f, __u64 addr, char *buf, size_t sz)
{
	char path[64], line[4608], file[4096];
	unsigned long long start, end;
	int err = -ENOENT;
	FILE *m;

	snprintf(path, sizeof(path), "/proc/%d/maps", f->pid);
	m = fopen(path, "r");
	if (!m)
		return -errno;
	while (fgets(line, sizeof(line), m)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %4095s", &start, &end, file) < 2)
			continue;
		if (addr >= start && addr < end && file[0] == '/') {
			snprintf(buf, sz, "%s", file);
			err = 0;
			break;
		}
	}
	fclose(m);
	return err;
}

int symfix__stop(struct symfix *f)
{
	int status = 0;

	if (f->in) {
		fprintf(f->in, "exit\n");
		fclose(f->in);
		f->in = NULL;
	}
	if (f->out) {
		fclose(f->out);
		f->out = NULL;
	}
	if (f->pid > 0) {
		if (waitpid(f->pid, &status, 0) < 0)
			return -errno;
		f->pid = 0;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -ECHILD;
}

int addr2line__frames(const char *file, __u64 vaddr, __u64 print_addr, struct strvec *out)
{
	char cmd[4200], func[4096], loc[4096];
	int cnt = 0, err = 0;
	FILE *p;

	/* -C: demangled, as the symbolizer shows names (C names are left alone). */
	snprintf(cmd, sizeof(cmd), "addr2line -C -f -i -e '%s' 0x%llx", file,
		 (unsigned long long)vaddr);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(func, sizeof(func), p) && fgets(loc, sizeof(loc), p)) {
		char *colon, *disc, *base;
		const char *name;
		long line;

		func[strcspn(func, "\n")] = '\0';
		loc[strcspn(loc, "\n")] = '\0';
		disc = strstr(loc, " (discriminator");
		if (disc)
			*disc = '\0';
		name = strcmp(func, "??") ? func : "???";
		colon = strrchr(loc, ':');
		line = colon ? strtol(colon + 1, NULL, 10) : 0;
		if (colon)
			*colon = '\0';
		base = strrchr(loc, '/');
		base = base ? base + 1 : loc;
		if (line > 0 && strcmp(base, "??"))
			err = strvec__pushf(out, "0x%llX: %s (%s:%ld)",
					    (unsigned long long)print_addr, name, base, line);
		else
			err = strvec__pushf(out, "0x%llX: %s (in %s)",
					    (unsigned long long)print_addr, name, file);
		if (err)
			break;
		cnt++;
	}
	pclose(p);
	return err ? err : cnt;
}
