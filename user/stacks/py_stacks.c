// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "py_stacks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "grow.h"
#include "hash.h"
#include "py_runtime.h"

#define PROBE_EVERY_NS (50ull * 1000 * 1000)   /* retries of py_runtime__open */
#define PROBE_FOR_NS   (5000ull * 1000 * 1000) /* an image not Python by then is not */
#define NAME_MAX_LEN   512

/* One named Python stack. */
struct named {
	__u32 id;     /* BPF's py_stacks key (never 0) */
	__u32 n;      /* frames */
	char **names; /* n names */
	__u32 *flags; /* n PY_FRAME_F_* */
};

struct py_stacks {
	pid_t pid;
	struct py_stacks_opts o;
	struct py_runtime *rt; /* NULL until found */
	bool layout_set;       /* BPF has our layout */
	bool gave_up;	       /* not Python (or unsupported): no more probing */
	const char *why;       /* the last reason a CPython could not be read, or NULL */
	__u64 born_ns, last_probe_ns;
	struct named *v; /* open-addressed by id: cap slots, id 0 empty */
	size_t cnt, cap;
	struct py_stacks_stats st;
};

static bool open_runtime(struct py_stacks *ps)
{
	const char *reason = NULL;

	ps->last_probe_ns = clock__mono_ns();
	ps->rt = py_runtime__open(ps->pid, &reason);
	if (!ps->rt) {
		/* Kept for when probing ends: a just exec'd interpreter has not mapped
		 * libpython yet, which may be all this says. */
		ps->why = reason;
		return false;
	}
	if (ps->o.layout && !ps->o.layout(ps->o.ctx, ps->pid, py_runtime__layout(ps->rt)))
		ps->layout_set = true;
	return true;
}

struct py_stacks *py_stacks__new(pid_t pid, const struct py_stacks_opts *o)
{
	struct py_stacks *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->pid = pid;
	ps->o = *o;
	ps->born_ns = clock__mono_ns();
	open_runtime(ps);
	return ps;
}

bool py_stacks__probe(struct py_stacks *ps, const char **why)
{
	__u64 now;

	*why = NULL;
	if (!ps || ps->rt)
		return ps && ps->rt;
	if (ps->gave_up)
		return false;
	now = clock__mono_ns();
	if (now - ps->born_ns > PROBE_FOR_NS) {
		ps->gave_up = true;
		*why = ps->why; /* a CPython we could not read (NULL: not one at all) */
		return false;
	}
	if (ps->last_probe_ns && now - ps->last_probe_ns < PROBE_EVERY_NS)
		return false;
	return open_runtime(ps);
}

const char *py_stacks__why(const struct py_stacks *ps)
{
	return ps && !ps->rt ? ps->why : NULL;
}

const char *py_stacks__image(const struct py_stacks *ps)
{
	return ps && ps->rt ? py_runtime__image(ps->rt) : NULL;
}

const char *py_stacks__version(const struct py_stacks *ps)
{
	return ps && ps->rt ? py_runtime__version(ps->rt) : NULL;
}

static void named_release(struct named *nm)
{
	for (__u32 i = 0; i < nm->n; i++)
		free(nm->names[i]);
	free(nm->names);
	free(nm->flags);
}

void py_stacks__free(struct py_stacks *ps)
{
	if (!ps)
		return;
	if (ps->layout_set && ps->o.layout)
		ps->o.layout(ps->o.ctx, ps->pid, NULL);
	for (size_t i = 0; i < ps->cap; i++)
		if (ps->v[i].id)
			named_release(&ps->v[i]);
	free(ps->v);
	py_runtime__free(ps->rt);
	free(ps);
}

static struct named *slot(const struct py_stacks *ps, __u32 id)
{
	size_t i;

	if (!ps->cap)
		return NULL;
	for (i = (size_t)hash__mix64(id) & (ps->cap - 1);; i = (i + 1) & (ps->cap - 1))
		if (ps->v[i].id == id || !ps->v[i].id)
			return &ps->v[i];
}

static int grow_table(struct py_stacks *ps)
{
	size_t cap = ps->cap ? ps->cap * 2 : 64;
	struct named *old = ps->v, *nv = calloc(cap, sizeof(*nv));
	size_t old_cap = ps->cap;

	if (!nv)
		return -ENOMEM;
	ps->v = nv;
	ps->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].id)
			*slot(ps, old[i].id) = old[i];
	free(old);
	return 0;
}

/* Frame f named into buf: by the runtime, else by its code address (counted). */
static void name_frame(struct py_stacks *ps, const struct py_frame *f, char *buf, size_t sz)
{
	if (ps->rt && py_runtime__frame_name(ps->rt, f, buf, sz))
		return;
	ps->st.unnamed++;
	snprintf(buf, sz, "py: ??? (code 0x%llx)", (unsigned long long)f->code);
}

int py_stacks__see(struct py_stacks *ps, __u32 id)
{
	struct py_stack_val v;
	struct named *nm;
	char buf[NAME_MAX_LEN];
	int err;

	if (!ps || !id)
		return 0;
	nm = slot(ps, id);
	if (nm && nm->id)
		return 0;
	if ((ps->cnt + 1) * 2 > ps->cap && (err = grow_table(ps)))
		return err;
	if (!ps->o.read || ps->o.read(ps->o.ctx, id, &v) || v.depth > PY_FRAMES_MAX) {
		ps->st.unread++;
		return -ENOENT;
	}
	nm = slot(ps, id);
	nm->names = calloc(v.depth ? v.depth : 1, sizeof(*nm->names));
	nm->flags = calloc(v.depth ? v.depth : 1, sizeof(*nm->flags));
	if (!nm->names || !nm->flags) {
		free(nm->names);
		free(nm->flags);
		nm->names = NULL;
		nm->flags = NULL;
		return -ENOMEM;
	}
	for (__u32 i = 0; i < v.depth; i++) {
		name_frame(ps, &v.f[i], buf, sizeof(buf));
		nm->names[i] = strdup(buf);
		if (!nm->names[i]) {
			nm->n = i;
			named_release(nm);
			return -ENOMEM;
		}
		nm->flags[i] = v.f[i].flags;
	}
	nm->n = v.depth;
	nm->id = id;
	ps->cnt++;
	ps->st.stacks++;
	ps->st.frames += v.depth;
	return 0;
}

size_t py_stacks__frames(const struct py_stacks *ps, __u32 id, const char *const **names,
			 const __u32 **flags)
{
	const struct named *nm = ps && id ? slot(ps, id) : NULL;

	if (!nm || !nm->id)
		return 0;
	*names = (const char *const *)nm->names;
	*flags = nm->flags;
	return nm->n;
}

void py_stacks__stats(const struct py_stacks *ps, struct py_stacks_stats *out)
{
	if (ps)
		*out = ps->st;
	else
		memset(out, 0, sizeof(*out));
}

/* The function of a DHAT frame string "0xADDR: fn (file:line)" / "0xADDR: fn (in lib)". */
static bool frame_is_eval_loop(const char *frame)
{
	const char *name = strstr(frame, ": ");
	char fn[256];
	size_t len;

	name = name ? name + 2 : frame;
	len = strcspn(name, " @(");
	if (!len || len >= sizeof(fn))
		return false;
	memcpy(fn, name, len);
	fn[len] = '\0';
	return py_is_eval_loop(fn);
}

/* out = frames[0..at) + names[from..to) + frames[at + 1..) done in place. */
static int replace_one(struct strvec *frames, size_t at, const char *const *names, size_t from,
		       size_t to)
{
	struct strvec nv = {0};
	int err = 0;

	for (size_t i = 0; i < frames->cnt && !err; i++) {
		if (i != at) {
			err = strvec__push(&nv, frames->items[i]);
			continue;
		}
		for (size_t k = from; k < to && !err; k++)
			err = strvec__push(&nv, names[k]);
	}
	if (err) {
		strvec__release(&nv);
		return err;
	}
	strvec__release(frames);
	*frames = nv;
	return 0;
}

int py_stacks__splice(struct strvec *frames, size_t first, const char *const *names,
		      const __u32 *flags, size_t n)
{
	size_t evals[PY_FRAMES_MAX], ends[PY_FRAMES_MAX], n_eval = 0, groups = 0;
	int err;

	if (!n)
		return 1;
	for (size_t i = first; i < frames->cnt && n_eval < PY_FRAMES_MAX; i++)
		if (frame_is_eval_loop(frames->items[i]))
			evals[n_eval++] = i;
	/* Group g (innermost first) ends after the frame that began its loop; a cut walk's
	 * last group ends with the last frame read. */
	for (size_t i = 0; i < n && groups < PY_FRAMES_MAX; i++)
		if ((flags[i] & PY_FRAME_F_ENTRY) || i == n - 1)
			ends[groups++] = i + 1;
	if (!n_eval) {
		for (size_t i = 0; i < n; i++)
			if ((err = strvec__push(frames, names[i])))
				return err;
		return 0;
	}
	if (groups != n_eval)
		return replace_one(frames, evals[0], names, 0, n);
	/* Outermost first: replacing a frame moves only the frames after it. */
	for (size_t g = groups; g-- > 0;) {
		err = replace_one(frames, evals[g], names, g ? ends[g - 1] : 0, ends[g]);
		if (err)
			return err;
	}
	return 1;
}
