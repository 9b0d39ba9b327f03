/* SPDX-License-Identifier: MIT */
/*
 * bi_fs.c - filesystem builtins: ls, mkdir, rm, touch, pwd, cd. All go through vfs_, so
 * every path is confined to the sandbox root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "exec.h"
#include "kernel.h"
#include "scope.h"
#include "util.h"
#include "vfs.h"

const char bi_ls_usage[] =
	"Usage: ls [-a] [-l] [-1] [PATH]...\n"
	"List directory entries (sorted by name), one per line. Hidden entries need -a.\n"
	"  -l  long format: mode, size, name\n";
const char bi_mkdir_usage[] =
	"Usage: mkdir [-p] DIR...\n"
	"Create directories. -p creates parents and accepts existing directories.\n";
const char bi_rm_usage[] =
	"Usage: rm [-r] [-f] PATH...\n"
	"Remove files (-r: directories). With `set -o trash` they are moved to .Trash/ at the\n"
	"sandbox root instead. Symlinks are removed, never followed.\n"
	"  -f  ignore missing files\n";
const char bi_touch_usage[] =
	"Usage: touch FILE...\n"
	"Create empty files or update their modification time.\n";
const char bi_pwd_usage[] = "Usage: pwd\nPrint the working directory (a VFS path).\n";
const char bi_cd_usage[] =
	"Usage: cd [DIR]\n"
	"Change the working directory (default: $HOME if set, else the sandbox root).\n";

/* ls -l mode column: type letter plus rwx triplets. */
static void mode_str(mode_t m, char *s)
{
	s[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : '-';
	const char *rwx = "rwxrwxrwx";
	for (int i = 0; i < 9; i++)
		s[i + 1] = (m & (1 << (8 - i))) ? rwx[i] : '-';
	s[10] = '\0';
}

static void ls_entry(struct bi_ctx *c, const char *path, const char *name, bool lng)
{
	if (lng) {
		struct stat st;
		char m[11];
		if (vfs_stat(c->k, path, &st, false) < 0)
			return;
		mode_str(st.st_mode, m);
		sb_printf(c->io->out, "%s %8lld %s\n", m, (long long)st.st_size, name);
	} else {
		sb_printf(c->io->out, "%s\n", name);
	}
}

/* One entry per line (kaish output is never a terminal); several operands get headers. */
int bi_ls(struct bi_ctx *c, int argc, char **argv)
{
	bool f[3] = { false }; /* a l 1 */
	struct strv ops;
	int rc = 0;
	strv_init(&ops);
	if (bi_flags(c, argc, argv, "al1", f, &ops) < 0) {
		strv_free(&ops);
		return KAISH_EXIT_USAGE;
	}
	if (!ops.n)
		strv_pushdup(&ops, ".");
	for (int i = 0; i < ops.n; i++) {
		struct stat st;
		int e = vfs_stat(c->k, ops.v[i], &st, true);
		if (e < 0) { /* an explicit operand that fails is loud, as POSIX ls and kaish */
			bi_err(c, "cannot access '%s': %s", ops.v[i], vfs_strerror(e));
			rc = vfs_exit_code(e) > rc ? vfs_exit_code(e) : rc;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			ls_entry(c, ops.v[i], ops.v[i], f[1]);
			continue;
		}
		struct strv names;
		strv_init(&names);
		e = vfs_list(c->k, ops.v[i], &names);
		if (e < 0) {
			bi_err(c, "%s: %s", ops.v[i], vfs_strerror(e));
			rc = vfs_exit_code(e) > rc ? vfs_exit_code(e) : rc;
		}
		if (ops.n > 1)
			sb_printf(c->io->out, "%s%s:\n", i ? "\n" : "", ops.v[i]);
		for (int j = 0; j < names.n; j++) {
			if (names.v[j][0] == '.' && !f[0])
				continue;
			struct sbuf p;
			sb_init(&p);
			sb_printf(&p, "%s/%s", ops.v[i], names.v[j]);
			ls_entry(c, sb_str(&p), names.v[j], f[1]);
			sb_free(&p);
		}
		strv_free(&names);
	}
	strv_free(&ops);
	return rc;
}

int bi_mkdir(struct bi_ctx *c, int argc, char **argv)
{
	bool f[1] = { false };
	struct strv ops;
	int rc = 0;
	strv_init(&ops);
	if (bi_flags(c, argc, argv, "p", f, &ops) < 0 || !ops.n) {
		if (!ops.n)
			bi_err(c, "missing operand");
		strv_free(&ops);
		return KAISH_EXIT_USAGE;
	}
	for (int i = 0; i < ops.n; i++) {
		int e = vfs_mkdir(c->k, ops.v[i], f[0]);
		if (e < 0) {
			bi_err(c, "%s: %s", ops.v[i], vfs_strerror(e));
			rc = vfs_exit_code(e) > rc ? vfs_exit_code(e) : rc;
		}
	}
	strv_free(&ops);
	return rc;
}

/* `set -o trash` (k->trash) moves instead of deleting; see vfs_remove(). */
int bi_rm(struct bi_ctx *c, int argc, char **argv)
{
	bool f[3] = { false }; /* r R f */
	struct strv ops;
	int rc = 0;
	strv_init(&ops);
	if (bi_flags(c, argc, argv, "rRf", f, &ops) < 0) {
		strv_free(&ops);
		return KAISH_EXIT_USAGE;
	}
	if (!ops.n && !f[2]) {
		bi_err(c, "missing operand");
		strv_free(&ops);
		return KAISH_EXIT_USAGE;
	}
	for (int i = 0; i < ops.n; i++) {
		int e = vfs_remove(c->k, ops.v[i], f[0] || f[1], c->k->trash);
		if (e == -ENOENT && f[2])
			continue;
		if (e < 0) {
			bi_err(c, "%s: %s", ops.v[i], vfs_strerror(e));
			rc = vfs_exit_code(e) > rc ? vfs_exit_code(e) : rc;
		}
	}
	strv_free(&ops);
	return rc;
}

int bi_touch(struct bi_ctx *c, int argc, char **argv)
{
	int rc = 0;
	if (argc < 2) {
		bi_err(c, "missing file operand");
		return KAISH_EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		int e = vfs_touch(c->k, argv[i]);
		if (e < 0) {
			bi_err(c, "%s: %s", argv[i], vfs_strerror(e));
			rc = vfs_exit_code(e) > rc ? vfs_exit_code(e) : rc;
		}
	}
	return rc;
}

int bi_pwd(struct bi_ctx *c, int argc, char **argv)
{
	sb_printf(c->io->out, "%s\n", c->k->cwd);
	return 0;
}

/* The cwd is kernel state (a VFS path); PWD follows it. */
int bi_cd(struct bi_ctx *c, int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : scope_get(&c->k->scope, "HOME");
	bool dash = argc > 1 && !strcmp(argv[1], "-"); /* cd -: back to OLDPWD, and say where */
	if (dash)
		dir = scope_get(&c->k->scope, "OLDPWD");
	if (dash && !dir) {
		bi_err(c, "OLDPWD not set");
		return 1;
	}
	if (!dir)
		dir = c->k->sh->root ? c->k->sh->root : "/";
	if (argc > 2) {
		bi_err(c, "too many arguments");
		return KAISH_EXIT_USAGE;
	}
	const char *pwd = scope_get(&c->k->scope, "PWD");
	char *old = strdup(pwd ? pwd : c->k->cwd);
	char *target = strdup(dir); /* dir may be OLDPWD's value, replaced below */
	int e = old && target ? vfs_chdir(c->k, target) : -ENOMEM;
	if (e < 0) {
		bi_err(c, "%s: %s", dir, vfs_strerror(e));
		free(old);
		free(target);
		return vfs_exit_code(e);
	}
	scope_set(&c->k->scope, "OLDPWD", old);
	if (dash) {
		pwd = scope_get(&c->k->scope, "PWD");
		sb_printf(c->io->out, "%s\n", pwd ? pwd : c->k->cwd);
	}
	free(old);
	free(target);
	return 0;
}
