// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracee: which image an exec record opens. A process that joined the trace (--cgroup,
 * --pid) is opened by reading /proc/PID/exe; its exec may be recorded before that read and
 * be the very image read. The test process itself is the image, proc events are made up.
 * No root, no BPF. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "alloc_events.h"
#include "clock.h"
#include "test_timeout.h"
#include "session.h"
#include "tracee.h"

static struct tracees *new_set(void)
{
	struct tracees_opts o = { .sopts.start_ns = clock__mono_ns() };
	struct tracees *ts = tracees__new(&o);

	cr_assert_not_null(ts);
	return ts;
}

static void exec_record(struct tracees *ts, __u64 ns, const char *filename)
{
	struct proc_event e = { .type = EV_PROC_EXEC, .tgid = (__u32)getpid(), .ts_ns = ns };

	snprintf(e.filename, sizeof(e.filename), "%s", filename);
	cr_assert_eq(tracees__handle(ts, &e, sizeof(e)), 0);
}

/* This process's image, opened the way a joining process is (exe read from /proc). */
static struct tracee *open_self(struct tracees *ts)
{
	struct tracee *t = tracees__open(ts, getpid(), 0, NULL, clock__mono_ns());

	cr_assert_not_null(t);
	cr_assert(t->exe_read_from && t->exe_read_by >= t->exe_read_from);
	cr_assert_str_eq(t->prog, "tracee_unit", "prog %s", t->prog);
	return t;
}

Test(tracee, an_exec_recorded_before_the_image_was_read_is_that_image,
     .timeout = TEST_TIMEOUT(30))
{
	struct tracees *ts = new_set();
	struct tracee *t = open_self(ts);

	/* Named differently from the image read (a symlink): the time alone decides. */
	exec_record(ts, t->exe_read_from - 1000, "/usr/bin/some-link");
	cr_expect_eq(tracees__live(ts, getpid()), t, "the exec opened a second image");
	cr_expect(!t->execd);
	tracees__close_all(ts, clock__mono_ns());
	tracees__free(ts);
}

Test(tracee, an_exec_recorded_after_the_image_was_read_is_a_new_image,
     .timeout = TEST_TIMEOUT(30))
{
	struct tracees *ts = new_set();
	struct tracee *t = open_self(ts), *n;

	/* The same program exec'ing itself after the read: a new image all the same. */
	exec_record(ts, t->exe_read_by + 1000, "/somewhere/tracee_unit");
	n = tracees__live(ts, getpid());
	cr_assert_not_null(n);
	cr_expect_neq(n, t, "the exec did not open a new image");
	cr_expect(t->execd, "the old image is not marked as exec'd away");
	cr_expect_str_eq(n->exe, "/somewhere/tracee_unit");
	tracees__close_all(ts, clock__mono_ns());
	tracees__free(ts);
}

/* A record the image handled before the exec that preceded its read was the old image's:
 * dropped with its session, counted, and the image's profile starts at the exec. */
Test(tracee, records_of_an_image_exec_d_away_unread_are_dropped_and_counted,
     .timeout = TEST_TIMEOUT(30))
{
	struct tracees *ts = new_set();
	struct tracee *t = open_self(ts);
	struct alloc_event a = { .type = EV_ALLOC, .tid = (__u32)getpid(), .addr = 0x1000,
				 .size = 24, .stack_id = -14, .tgid = (__u32)getpid() };

	a.ts_ns = t->exe_read_from - 2000;
	cr_assert_eq(tracees__handle(ts, &a, sizeof(a)), 0);
	cr_assert_eq(session__stats(t->session)->records, 1);
	cr_assert_eq(session__current(t->session)->total_blocks, 1);
	exec_record(ts, t->exe_read_from - 1000, "/usr/bin/some-link");
	cr_expect_eq(tracees__live(ts, getpid()), t);
	cr_expect_eq(tracees__unread_image_records(ts), 1);
	cr_expect_eq(session__stats(t->session)->records, 0, "the old image's record stayed");
	cr_assert_not_null(session__current(t->session));
	cr_expect_eq(session__current(t->session)->total_blocks, 0,
		     "a block of the old image is in the new one's profile");
	tracees__close_all(ts, clock__mono_ns());
	tracees__free(ts);
}

/* An exec stamped while the exe was being read: the read saw it if it is the same program. */
Test(tracee, an_exec_during_the_read_decides_by_program_name, .timeout = TEST_TIMEOUT(30))
{
	struct tracees *ts = new_set();
	struct tracee *t = open_self(ts), *n;

	exec_record(ts, t->exe_read_by, "./tracee_unit");
	cr_expect_eq(tracees__live(ts, getpid()), t);
	exec_record(ts, t->exe_read_by, "/bin/true");
	n = tracees__live(ts, getpid());
	cr_expect_neq(n, t, "another program's exec did not open a new image");
	tracees__close_all(ts, clock__mono_ns());
	tracees__free(ts);
}

/* An image a record opened (its exe given) is never taken for its next exec's. */
Test(tracee, an_image_opened_by_a_record_always_ends_at_its_exec, .timeout = TEST_TIMEOUT(30))
{
	struct tracees *ts = new_set();
	__u64 now = clock__mono_ns();
	struct tracee *t = tracees__open(ts, getpid(), 0, "/bin/tracee_unit", now), *n;

	cr_assert_not_null(t);
	cr_expect_eq(t->exe_read_by, 0);
	exec_record(ts, now, "/bin/tracee_unit");
	n = tracees__live(ts, getpid());
	cr_expect_neq(n, t);
	tracees__close_all(ts, clock__mono_ns());
	tracees__free(ts);
}
