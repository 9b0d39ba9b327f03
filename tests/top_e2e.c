/*
 * End-to-end: tracer top (root + BTF), issue #35's live view.
 *  - the screen, driven for real in a tmux pane of 160x48: it names grow_cache (the site
 *    that keeps live bytes) with a heap figure; `c` sorts by count (the footer's key, the
 *    status line says so); `/churn` Enter filters grow_cache's row away and keeps
 *    churn_buffers'; `t` shows one row per thread: the worker named "top_worker" with its
 *    top site worker_scratch (the filter names functions, not threads); `s` shows the
 *    size buckets, the 1 KiB one naming grow_cache, 256 B churn_buffers' (`s` again goes
 *    back to the threads, `l` leaves it for the sorted rows); `p` pauses;
 *    `q` quits, the tracer exits 0 and writes the -o profile;
 *  - --batch -n 3: three plain-text frames (on stderr with -- CMD, none in its stdout), each a "tracer top HH:MM:SS  heap ..."
 *    header line with peak, rss and the rates, the column heading, then rows naming the
 *    site; exit 0.
 * The target is tests/data/top/top_prog.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e_util.h"
#include "test_timeout.h"

/* tmux on a server of the test's own (-L), never the user's. */
static char tmux_sock[64];

static int tmux(const char *args, char **out)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "tmux -L %s %s", tmux_sock, args);
	return e2e_run(cmd, out);
}

/* The pane's text now (malloc'd). */
static char *pane(void)
{
	char *out = NULL;

	tmux("capture-pane -p -t top", &out);
	return out ? out : strdup("");
}

/* Poll the pane until it holds needle (and not absent, if given); the last text in *last. */
static bool wait_pane(const char *needle, const char *absent, int secs, char **last)
{
	for (int i = 0; i < secs * 10; i++) {
		char *p = pane();

		if (strstr(p, needle) && (!absent || !strstr(p, absent))) {
			free(*last);
			*last = p;
			return true;
		}
		free(*last);
		*last = p;
		usleep(100000);
	}
	return false;
}

static void kill_tmux(void)
{
	tmux("kill-server 2>/dev/null", NULL);
}

Test(top, screen_in_tmux, .timeout = TEST_TIMEOUT(240))
{
	char *dir, cmd[4096], status_path[1024], prof[1024], *last = NULL, *st, *json;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(e2e_run("command -v tmux >/dev/null", NULL), 0,
		     "tmux is needed (deps/debian-packages.txt)");
	snprintf(tmux_sock, sizeof(tmux_sock), "tracer-top-e2e-%d", (int)getpid());
	atexit(kill_tmux);
	dir = e2e_tmpdir("top");
	snprintf(status_path, sizeof(status_path), "%s/status", dir);
	snprintf(prof, sizeof(prof), "%s/top.json", dir);
	snprintf(cmd, sizeof(cmd),
		 "new-session -d -s top -x 160 -y 48 "
		 "\"TERM=screen timeout --foreground 300 %s top -o %s -- %s 600 2>%s/stderr; echo \\$? >%s; "
		 "sleep 60\"",
		 TRACER_BIN, prof, TOP_PROG_BIN, dir, status_path);
	cr_assert_eq(tmux(cmd, NULL), 0, "tmux new-session failed");

	cr_assert(wait_pane("grow_cache", NULL, (int)TEST_TIMEOUT(60), &last),
		  "the screen never named grow_cache:\n%s\nstderr:\n%s", last,
		  e2e_slurp(strcat(strcpy(cmd, dir), "/stderr")));
	cr_assert(wait_pane("heap ", "heap 0 B", (int)TEST_TIMEOUT(10), &last),
		  "no heap figure on the screen:\n%s", last);
	cr_assert(strstr(last, "peak ") && strstr(last, "rss ") && strstr(last, "sort: live"),
		  "no peak, rss or sort on the screen:\n%s", last);
	/* By live bytes grow_cache is first: its row comes before churn_buffers' if that is
	 * shown at all (it keeps nothing live). */
	cr_assert(!strstr(last, "churn_buffers") ||
			  strstr(last, "grow_cache") < strstr(last, "churn_buffers"),
		  "grow_cache is not the top row by live bytes:\n%s", last);

	tmux("send-keys -t top c", NULL);
	cr_assert(wait_pane("sort: count", NULL, (int)TEST_TIMEOUT(10), &last),
		  "c did not sort by count:\n%s", last);
	/* 8 churn blocks a turn against 1: by count churn_buffers leads */
	cr_assert(wait_pane("churn_buffers", NULL, (int)TEST_TIMEOUT(10), &last),
		  "churn_buffers not shown by count:\n%s", last);
	cr_assert(strstr(last, "churn_buffers") < strstr(last, "grow_cache"),
		  "churn_buffers is not first by count:\n%s", last);

	tmux("send-keys -t top / c h u r n Enter", NULL);
	cr_assert(wait_pane("filter: churn", "grow_cache", (int)TEST_TIMEOUT(10), &last),
		  "the / filter did not leave grow_cache out:\n%s", last);
	cr_assert(strstr(last, "churn_buffers"), "the filter hid churn_buffers too:\n%s", last);

	tmux("send-keys -t top t", NULL);
	cr_assert(wait_pane("top_worker", NULL, (int)TEST_TIMEOUT(10), &last),
		  "t did not show the worker thread's row:\n%s", last);
	{
		char *row = strstr(last, "top_worker"), *eol = strchr(row, '\n');
		char *site = strstr(row, "worker_scratch");

		cr_assert(strstr(last, "THREAD") && strstr(last, "TOP SITE"),
			  "no thread heading:\n%s", last);
		cr_assert(site && (!eol || site < eol),
			  "the worker's row does not name worker_scratch:\n%s", last);
		/* the main thread's row, named as the program is */
		cr_assert(strstr(last, "top_prog"), "no row for the main thread:\n%s", last);
	}
	/* s: the size view; grow_cache's 1024-byte blocks are its 1 KiB bucket's top site
	 * (the / filter, set above, is for sites only) */
	tmux("send-keys -t top s", NULL);
	cr_assert(wait_pane("SIZE (power-of-two buckets)", NULL, (int)TEST_TIMEOUT(10), &last),
		  "s did not show the size view:\n%s", last);
	cr_assert(wait_pane("1.00 KiB .. 2.00 KiB", NULL, (int)TEST_TIMEOUT(10), &last),
		  "no 1 KiB bucket in the size view:\n%s", last);
	{
		char *row = strstr(last, "1.00 KiB .. 2.00 KiB"), *eol = strchr(row, '\n');
		char *site = strstr(row, "grow_cache");

		cr_assert(site && (!eol || site < eol),
			  "the 1 KiB bucket does not name grow_cache:\n%s", last);
		/* churn_buffers' 256-byte blocks: a bucket of their own */
		cr_assert(strstr(last, "256 B .. 512 B"), "no 256 B bucket:\n%s", last);
	}
	tmux("send-keys -t top s", NULL);
	cr_assert(wait_pane("THREAD", "SIZE (power-of-two", (int)TEST_TIMEOUT(10), &last),
		  "s again did not go back to the thread rows:\n%s", last);
	tmux("send-keys -t top s", NULL);
	cr_assert(wait_pane("SIZE (power-of-two buckets)", NULL, (int)TEST_TIMEOUT(10), &last),
		  "s did not show the size view again:\n%s", last);
	tmux("send-keys -t top l", NULL);
	cr_assert(wait_pane("sort: live", "SIZE (power-of-two", (int)TEST_TIMEOUT(10), &last),
		  "l did not leave the size view:\n%s", last);

	tmux("send-keys -t top p", NULL);
	cr_assert(wait_pane("[paused]", NULL, (int)TEST_TIMEOUT(10), &last),
		  "p did not pause:\n%s", last);

	tmux("send-keys -t top q", NULL);
	cr_assert(e2e_wait_for_text(status_path, "\n", (int)TEST_TIMEOUT(60)),
		  "the tracer did not quit on q:\n%s", pane());
	st = e2e_slurp(status_path);
	cr_assert_eq(atoi(st), 0, "the tracer exited %s after q; stderr:\n%s", st,
		     e2e_slurp(strcat(strcpy(cmd, dir), "/stderr")));
	json = e2e_slurp(prof);
	cr_assert(strstr(json, "\"dhatFileVersion\"") && strstr(json, "grow_cache"),
		  "-o %s is not a profile naming grow_cache", prof);
	kill_tmux();
	free(last);
}

Test(top, batch_frames, .timeout = TEST_TIMEOUT(120))
{
	char cmd[4096], cmd_out[1100], *out = NULL, *p, *dir, *own;
	int frames = 0, rc;

	E2E_REQUIRE_ROOT();
	/* With -- CMD the frames go to stderr: CMD's stdout (here a file) stays its own. */
	dir = e2e_tmpdir("top-batch");
	snprintf(cmd_out, sizeof(cmd_out), "%s/cmd.out", dir);
	snprintf(cmd, sizeof(cmd), "%s top --batch -n 3 -- %s 600 2>&1 >%s", TRACER_BIN,
		 TOP_PROG_BIN, cmd_out);
	rc = e2e_run(cmd, &out);
	own = e2e_slurp(cmd_out);
	cr_expect(!strstr(own, "tracer top"), "frames in the command's stdout:\n%s", own);
	free(own);
	free(dir);
	cr_assert_eq(rc, 0, "tracer top --batch -n 3 exited %d:\n%s", rc, out);
	for (p = out; (p = strstr(p, "tracer top ")); p++) {
		char when[16];
		int hh, mm, ss;

		/* a header line: the time, then the figures */
		cr_assert(p == out || p[-1] == '\n', "a header not at a line start:\n%s", out);
		cr_assert_eq(sscanf(p, "tracer top %15s", when), 1);
		cr_assert_eq(sscanf(when, "%d:%d:%d", &hh, &mm, &ss), 3, "no time in:\n%s", p);
		cr_assert(strstr(p, "heap ") && strstr(p, "peak ") && strstr(p, "rss ") &&
				  strstr(p, "allocs ") && strstr(p, "frees ") &&
				  strstr(p, "dropped "),
			  "a header without its figures:\n%s", p);
		frames++;
	}
	cr_assert_eq(frames, 3, "%d frames, not 3:\n%s", frames, out);
	cr_assert(strstr(out, "LIVE") && strstr(out, "SITE"), "no column heading:\n%s", out);
	/* the last frame's first row (after its heading) is grow_cache, most live bytes */
	p = strstr(out, "SITE");
	for (char *q = p; q && (q = strstr(q + 1, "SITE"));)
		p = q;
	cr_assert(p && (p = strchr(p, '\n')), "no rows:\n%s", out);
	cr_assert(strstr(p, "grow_cache") && (!strchr(p + 1, '\n') ||
					     strstr(p, "grow_cache") < strchr(p + 1, '\n')),
		  "grow_cache is not the last frame's first row:\n%s", out);
	free(out);
}
