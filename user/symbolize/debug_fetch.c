// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Debug files from --debug-dir and debuginfod: see debug_fetch.h. */
#include "debug_fetch.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "safe_text.h"
#include "sudo_user.h"

static struct strvec dirs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static debuginfod_client *client;

/*
 * libdebuginfod is opened only when a server is configured, as libdwfl itself does: it
 * brings libcurl and its TLS stack along, which a run without DEBUGINFOD_URLS should
 * neither load nor need installed.
 */
static struct {
	void *handle;
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
} lib;

static int load_lib(void)
{
	if (lib.handle)
		return 0;
	lib.handle = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib.handle) {
		elog("DEBUGINFOD_URLS is set, but libdebuginfod.so.1 cannot be loaded: %s\n",
		     dlerror());
		return -ENOENT;
	}
	lib.begin = (debuginfod_client * (*)(void)) dlsym(lib.handle, "debuginfod_begin");
	lib.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int, char **))
		dlsym(lib.handle, "debuginfod_find_debuginfo");
	lib.end = (void (*)(debuginfod_client *))dlsym(lib.handle, "debuginfod_end");
	if (lib.begin && lib.find_debuginfo && lib.end)
		return 0;
	dlclose(lib.handle);
	lib.handle = NULL;
	return -ENOENT;
}
static struct strvec asked; /* hex build-ids the servers did not have: not asked again */

int debug_fetch__add_dir(const char *dir)
{
	return strvec__push(&dirs, dir);
}

const struct strvec *debug_fetch__dirs(void)
{
	return &dirs;
}

bool debug_fetch__debuginfod_on(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && *urls;
}

/* Under sudo, with no DEBUGINFOD_CACHE_PATH of the user's own: the user's default cache
 * (~user/.cache/debuginfod_client), not the one $HOME or $XDG_CACHE_HOME would give, which
 * sudo may have left pointing at root's. The client reads the variable on every query. */
static void use_user_cache(const struct sudo_user *u)
{
	struct passwd *pw;
	char path[4096];

	if (!u->active || getenv("DEBUGINFOD_CACHE_PATH"))
		return;
	pw = getpwuid(u->uid);
	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
		return;
	snprintf(path, sizeof(path), "%s/.cache/debuginfod_client", pw->pw_dir);
	setenv("DEBUGINFOD_CACHE_PATH", path, 1);
}

static int fetch_locked(const void *id, ssize_t id_sz, char *path, size_t sz)
{
	const unsigned char *b = id;
	struct sudo_saved saved;
	char hex[2 * 64 + 1], *got = NULL;
	int fd, err;

	if (!debug_fetch__debuginfod_on() || !id || id_sz < 2 || id_sz > 64)
		return -ENOENT;
	for (ssize_t i = 0; i < id_sz; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	for (size_t i = 0; i < asked.cnt; i++)
		if (!strcmp(asked.items[i], hex))
			return -ENOENT;
	if (!client) {
		/* Once: a missing library is said once, not asked again. */
		if (!lib.handle && (asked.cnt || load_lib())) {
			strvec__push(&asked, hex);
			return -ENOENT;
		}
		use_user_cache(sudo_user__get());
		client = lib.begin();
		if (!client)
			return -ENOMEM;
	}
	/* The cache is written as the invoking user (see debug_fetch.h). */
	err = sudo_user__enter(&saved);
	if (err)
		return err;
	fd = lib.find_debuginfo(client, b, (int)id_sz, &got);
	sudo_user__leave(&saved);
	if (fd < 0) {
		vlog("debuginfod: no debug file for build-id %s: %s\n", hex, strerror(-fd));
		strvec__push(&asked, hex);
		free(got);
		return fd;
	}
	close(fd); /* opened again, checked, by the caller */
	err = got && strlen(got) < sz ? 0 : -ENAMETOOLONG;
	if (!err) {
		snprintf(path, sz, "%s", got);
		vlog("debuginfod: build-id %s: %s\n", hex, safe_text__term(got));
	}
	free(got);
	return err;
}

int debug_fetch__debuginfod(const void *id, ssize_t id_sz, char *path, size_t sz)
{
	int err;

	pthread_mutex_lock(&lock);
	err = fetch_locked(id, id_sz, path, sz);
	pthread_mutex_unlock(&lock);
	return err;
}

void debug_fetch__release(void)
{
	pthread_mutex_lock(&lock);
	if (client)
		lib.end(client);
	client = NULL;
	strvec__release(&asked);
	pthread_mutex_unlock(&lock);
}
