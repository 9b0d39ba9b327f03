// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Symbolizer modules shared between processes: see module_share.h. */
#include "module_share.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolizer_module.h"

/* What a module is loaded from. */
struct module_key {
	dev_t dev;
	ino_t ino;
	off_t size;
	long long mtime_ns;
	dev_t root_dev; /* the target's root; 0 and 0 when there is none */
	ino_t root_ino;
};

struct shared_module {
	struct sym_module *mod;
	char *name;
	struct module_key key;
	struct strvec dirs; /* the module borrows it: kept at a stable address */
	int root_fd;	    /* likewise: a descriptor of our own */
	unsigned long refs;
	unsigned long released; /* when refs last fell to 0 (idle_seq) */
	struct shared_module *next;
};

static struct shared_module *shared;
static unsigned long shared_cnt, idle_cnt, idle_seq;
static unsigned long idle_max; /* module_share__keep_idle() */

static bool same_dirs(const struct strvec *a, const struct strvec *b)
{
	if (a->cnt != b->cnt)
		return false;
	for (size_t i = 0; i < a->cnt; i++)
		if (strcmp(a->items[i], b->items[i]))
			return false;
	return true;
}

static int key_of(int fd, int root_fd, struct module_key *k)
{
	struct stat st, rt;

	if (fstat(fd, &st))
		return -errno;
	memset(k, 0, sizeof(*k));
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->size = st.st_size;
	k->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	if (root_fd >= 0 && !fstat(root_fd, &rt)) {
		k->root_dev = rt.st_dev;
		k->root_ino = rt.st_ino;
	}
	return 0;
}

static void shared_free(struct shared_module *h)
{
	sym_module__free(h->mod);
	strvec__release(&h->dirs);
	if (h->root_fd >= 0)
		close(h->root_fd);
	free(h->name);
	free(h);
}

int module_share__get(const char *name, int fd, int root_fd, const struct strvec *debug_dirs,
		      struct sym_module **out, struct shared_module **handle)
{
	struct module_key k;
	struct shared_module *h;
	int err = key_of(fd, root_fd, &k);

	if (err) {
		close(fd);
		return err;
	}
	for (h = shared; h; h = h->next)
		if (!memcmp(&h->key, &k, sizeof(k)) && !strcmp(h->name, name) &&
		    same_dirs(&h->dirs, debug_dirs)) {
			close(fd);
			idle_cnt -= !h->refs;
			h->refs++;
			*out = h->mod;
			*handle = h;
			return 0;
		}
	h = calloc(1, sizeof(*h));
	if (!h) {
		close(fd);
		return -ENOMEM;
	}
	h->root_fd = root_fd >= 0 ? fcntl(root_fd, F_DUPFD_CLOEXEC, 0) : -1;
	h->name = strdup(name);
	for (size_t i = 0; !err && i < debug_dirs->cnt; i++)
		err = strvec__push(&h->dirs, debug_dirs->items[i]);
	if (err || !h->name) {
		close(fd);
		shared_free(h);
		return -ENOMEM;
	}
	h->mod = sym_module__new(name, fd, NULL, 0, &h->dirs, h->root_fd); /* owns fd now */
	if (!h->mod) {
		err = -errno;
		shared_free(h);
		return err;
	}
	h->key = k;
	h->refs = 1;
	h->next = shared;
	shared = h;
	shared_cnt++;
	*out = h->mod;
	*handle = h;
	return 0;
}

/* Unlink and free the idle module released longest ago. */
static void drop_oldest_idle(void)
{
	struct shared_module **pp, **oldest = NULL, *h;

	for (pp = &shared; *pp; pp = &(*pp)->next)
		if (!(*pp)->refs && (!oldest || (*pp)->released < (*oldest)->released))
			oldest = pp;
	if (!oldest)
		return;
	h = *oldest;
	*oldest = h->next;
	shared_cnt--;
	idle_cnt--;
	shared_free(h);
}

void module_share__put(struct shared_module *h)
{
	if (!h || --h->refs)
		return;
	h->released = ++idle_seq;
	if (++idle_cnt > idle_max)
		drop_oldest_idle();
}

void module_share__keep_idle(unsigned long n)
{
	idle_max = n;
	while (idle_cnt > idle_max)
		drop_oldest_idle();
}

int module_share__add_dir(struct shared_module *h, const char *dir)
{
	for (size_t i = 0; i < h->dirs.cnt; i++)
		if (!strcmp(h->dirs.items[i], dir))
			return 0; /* another holder added it already */
	return strvec__push(&h->dirs, dir);
}

void module_share__flush(void)
{
	while (idle_cnt)
		drop_oldest_idle();
}

unsigned long module_share__count(void)
{
	return shared_cnt;
}
