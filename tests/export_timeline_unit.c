// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exporter tests, part 4: the timeline of a DHAT file. Our writer stores the live-heap
 * series under "heapTimeline" (a key dh_view ignores); a file written earlier is loaded
 * again and `tracer export --format timeline` draws it, with the peak's sites in a legend,
 * while the same file still loads in Valgrind's viewer. Files without the key (Valgrind's,
 * dhat-rs's) get a clear message and exit 2; a malformed series is dropped, never an error.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dhat_fixture.h"
#include "dhat_writer.h"
#include "export_helpers.h"
#include "test_timeout.h"
#include "test_util.h"

static const struct dhat_meta META = {.cmd = "./prog \"a b\" c", .pid = 4242};

/* The prog.c fixture written by the DHAT writer to artifacts/name; its path into path. */
static void write_fixture(const char *name, char *path, size_t sz)
{
	struct collector *c = fixture_prog_c();

	snprintf(path, sz, "%s/%s", ex_artifacts(), name);
	cr_assert_eq(dhat__write_path(path, c, fixture_frames, NULL, &META), 0);
	collector__free(c);
}

Test(export_timeline_file, series_round_trips_through_the_file)
{
	char path[4096], err[512];
	struct collector *c = fixture_prog_c();
	const struct timeline *tl = collector__timeline(c);
	struct dhat_profile *p;
	uint64_t hi = 0;

	write_fixture("series.json", path, sizeof(path));
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert(p, "%s", err);
	cr_assert_eq(p->live_cnt, tl->cnt, "points: file %zu, collector %zu", p->live_cnt, tl->cnt);
	cr_assert_gt(p->live_cnt, 1);
	for (size_t i = 0; i < p->live_cnt; i++) {
		cr_expect_eq(p->live_t[i], (tl->t_ns[i] + 500) / 1000, "t[%zu]", i);
		cr_expect_eq(p->live_b[i], tl->bytes[i], "b[%zu]", i);
		if (p->live_b[i] > hi)
			hi = p->live_b[i];
	}
	/* Each point is its bucket's highest value, so the series reaches the peak exactly. */
	cr_expect_eq(hi, p->gmax_bytes, "series max %llu, Σgb %llu", (unsigned long long)hi,
		     (unsigned long long)p->gmax_bytes);
	dhat_profile__free(p);
	collector__free(c);
}

Test(export_timeline_file, drawn_from_a_file_written_earlier_and_still_in_dh_view,
     .timeout = TEST_TIMEOUT(300))
{
	char path[4096], svg_path[4200], cmd[8800];
	const char *argv[] = {"export", path, "--format", "timeline", "-o", svg_path, NULL};
	char *out, *errs, *svg, *check;
	int st;

	write_fixture("written-earlier.json", path, sizeof(path));
	snprintf(svg_path, sizeof(svg_path), "%s/written-earlier.timeline.svg", ex_artifacts());
	cr_assert_eq(tu_run_cli(cli_export, argv, &out, &errs), 0, "%s", errs);
	svg = tu_slurp(svg_path, NULL);
	cr_assert(svg);
	/* the series, t-gmax at 25 µs with the 280-byte peak, the two sites live there */
	cr_expect(strstr(svg, "<path id=\"area\""), "the series is drawn");
	cr_expect(strstr(svg, "t-gmax (280 B)"), "%.3000s", svg);
	cr_expect(strstr(svg, ">At t-gmax, by site:</text>"));
	cr_expect(strstr(svg, "grow_buffer \xe2\x86\x90 main"), "legend names grow_buffer");
	cr_expect(strstr(svg, "make_table \xe2\x86\x90 main"), "legend names make_table");
	cr_expect(strstr(svg, ">200 B (71.4%)</text>"), "grow_buffer: 200 of 280 bytes");
	cr_expect(strstr(svg, ">80 B (28.6%)</text>"));
	cr_expect_null(strstr(svg, "calloc \xe2\x86\x90"), "no allocator names a site");
	/* tooltips on the series, the stacked bar and the legend */
	cr_expect(strstr(svg, "<g id=\"hover\""));
	cr_expect(strstr(svg, "<title>grow_buffer \xe2\x86\x90 main\n"), "bar tooltip");
	cr_expect(strstr(svg, "<g class=\"legend\"><title>200 bytes (71.4%) live at t-gmax"));
	cr_expect(strstr(svg, "./prog &quot;a b&quot; c"), "subtitle: the command");
	free(svg);
	free(out);
	free(errs);

	/* The same file in the real viewer: the extra key changes nothing there. */
	if (!ex_have("chromium")) {
		cr_assert(!ex_ci(), "CI=true: chromium is required for dh_view");
		cr_skip("chromium not installed: dh_view check skipped");
	}
	snprintf(cmd, sizeof(cmd), "python3 %s '%s' 2>&1", DHVIEW_CHECK, path);
	check = ex_run(cmd, &st);
	cr_assert(check);
	fprintf(stderr, "[export] %s", check);
	cr_expect_eq(st, 0, "dh_view: %s", check);
	cr_expect(strstr(check, "ACCEPTED"), "%s", check);
	free(check);
}

Test(export_timeline_file, valgrind_file_says_why_and_exits_2)
{
	char out_path[4200];
	const char *argv[] = {
	    "export", EX_DATA "/valgrind_ls.json", "--format", "timeline", "-o", out_path, NULL};
	struct stat st;
	char *out, *errs;

	snprintf(out_path, sizeof(out_path), "%s/valgrind_ls.timeline.svg", ex_artifacts());
	unlink(out_path);
	cr_expect_eq(tu_run_cli(cli_export, argv, &out, &errs), 2, "%s", errs);
	cr_expect(strstr(errs, "has no live-heap series"), "%s", errs);
	cr_expect(strstr(errs, "written by tracer"), "%s", errs);
	cr_expect_neq(stat(out_path, &st), 0, "no file written");
	free(out);
	free(errs);
}

/* Parse a profile whose heapTimeline member is `live` (raw JSON text, or NULL for none),
 * its one program point having eb bytes live at the end. */
static struct dhat_profile *with_live_eb(const char *live, int eb)
{
	char json[2048], err[256] = "";
	struct dhat_profile *p;
	int n;

	n = snprintf(json, sizeof(json),
		     "{\"dhatFileVersion\":2,\"mode\":\"ebpf-heap\",\"verb\":\"Allocated\","
		     "\"bklt\":true,\"bkacc\":false,\"tu\":\"\xc2\xb5s\",\"Mtu\":\"s\",\"tuth\":10,"
		     "\"cmd\":\"x\",\"pid\":1,\"te\":10,\"tg\":5,\"pps\":[{\"tb\":8,\"tbk\":1,"
		     "\"mb\":8,\"mbk\":1,\"gb\":8,\"gbk\":1,\"eb\":%d,\"ebk\":%d,\"fs\":[1]}],"
		     "\"ftbl\":[\"[root]\",\"0x1: f (a.c:1)\"]%s%s}",
		     eb, eb ? 1 : 0, live ? ",\"heapTimeline\":" : "", live ? live : "");
	cr_assert_lt(n, (int)sizeof(json));
	p = dhat_profile__parse(json, (size_t)n, "live", err, sizeof(err));
	cr_assert(p, "%s: %s", live ? live : "(none)", err);
	return p;
}

static struct dhat_profile *with_live(const char *live)
{
	return with_live_eb(live, 0);
}

Test(export_timeline_file, reader_takes_a_good_series_and_drops_a_bad_one)
{
	static const char *const bad[] = {
	    "{\"t\":[0,5,3],\"b\":[0,8,0]}",	/* time going back */
	    "{\"t\":[0,5],\"b\":[0,8,0]}",	/* lengths differ */
	    "{\"t\":[0,\"5\"],\"b\":[0,8]}",	/* a string */
	    "{\"t\":[0,-5],\"b\":[0,8]}",	/* negative */
	    "{\"t\":[0,5.5],\"b\":[0,8]}",	/* not an integer */
	    "{\"t\":[0,5]}",			/* no b */
	    "{\"t\":[],\"b\":[]}",		/* empty */
	    "[1,2,3]",				/* not an object */
	    "{\"t\":{\"x\":1},\"b\":[[1],{}]}", /* nested junk */
	    "null",
	};
	struct dhat_profile *p = with_live("{\"t\":[0,5,9],\"b\":[0,8,0],\"future\":[1]}");

	cr_expect_eq(p->live_cnt, 3);
	cr_expect_eq(p->live_t[1], 5);
	cr_expect_eq(p->live_b[1], 8);
	dhat_profile__free(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = with_live(bad[i]);
		cr_expect_eq(p->live_cnt, 0, "%s was kept", bad[i]);
		cr_expect_null(p->live_t);
		dhat_profile__free(p);
	}
	/* Absent (Valgrind, dhat-rs): nothing, and the timeline export says so. */
	p = with_live(NULL);
	cr_expect_eq(p->live_cnt, 0);
	cr_expect_eq(export__to_path(p, EXPORT_FMT_TIMELINE, "-", NULL), -ENODATA);
	dhat_profile__free(p);
}

Test(export_timeline_file, nothing_allocated_draws_an_empty_chart)
{
	char path[4096], err[512];
	struct collector *c = collector__new(FIX_T0, NULL);
	struct dhat_profile *p;
	char *svg, *buf = NULL;
	size_t len = 0;
	FILE *f;

	/* The writer stores no series when nothing was ever live; the chart is still drawn. */
	collector__finish(c, FIX_T0 + 1500);
	snprintf(path, sizeof(path), "%s/nothing.json", ex_artifacts());
	cr_assert_eq(dhat__write_path(path, c, fixture_frames, NULL, &META), 0);
	collector__free(c);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert(p, "%s", err);
	cr_expect_eq(p->live_cnt, 0);
	f = open_memstream(&buf, &len);
	cr_assert(f);
	cr_expect_eq(export__timeline_profile_svg(p, f, NULL), 0);
	fclose(f);
	svg = buf;
	cr_expect(strstr(svg, "no samples"), "%s", svg);
	free(svg);
	dhat_profile__free(p);
}

/* "cb" and "cbEnd" (the heap in malloc chunks): kept when well formed, else dropped while
 * the live series stays; never an error (dh_view ignores the key). */
Test(export_timeline_file, reader_takes_chunks_and_drops_malformed_ones)
{
	static const char *const bad[] = {
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,32],\"cbEnd\":32}",	  /* too short */
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,32,4],\"cbEnd\":32}",	  /* below b */
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,\"32\",32],\"cbEnd\":32}", /* a string */
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,-32,32],\"cbEnd\":32}",	  /* negative */
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,32,32]}",		  /* no cbEnd */
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,32,32],\"cbEnd\":4}",	  /* < Σeb */
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,32,32],\"cbEnd\":3.5}",	  /* a fraction */
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,32,32],\"cbEnd\":32,\"cbEnd\":32}",
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,32,32],\"cb\":[0,32,32],\"cbEnd\":32}",
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":{\"x\":1},\"cbEnd\":32}",	  /* an object */
	    "{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[],\"cbEnd\":32}",		  /* empty */
	};
	struct dhat_profile *p =
	    with_live_eb("{\"t\":[0,5,9],\"b\":[0,8,8],\"cb\":[0,32,32],\"cbEnd\":32}", 8);

	cr_assert_eq(p->live_cnt, 3);
	cr_assert_not_null(p->live_cb, "a good chunk series was dropped");
	cr_expect_eq(p->live_cb[1], 32);
	cr_expect_eq(p->live_cb_end, 32);
	dhat_profile__free(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = with_live_eb(bad[i], 8);
		cr_expect_eq(p->live_cnt, 3, "%s: the live series went too", bad[i]);
		cr_expect_null(p->live_cb, "%s was kept", bad[i]);
		dhat_profile__free(p);
	}
}

/* 1000 blocks of 1 byte: 32-byte chunks in glibc's malloc. The writer stores the series
 * only for glibc's malloc; read back, it is >= the live heap at every point, ends at
 * exactly 32000 bytes, and the chart draws it with its key and tooltips. */
Test(export_timeline_file, chunk_series_round_trips_and_is_drawn)
{
	struct dhat_meta meta = META;
	struct collector *c = collector__new(FIX_T0, NULL);
	char path[4096], err[512], *svg = NULL;
	struct dhat_profile *p;
	size_t len = 0;
	FILE *f;

	cr_assert_not_null(c);
	for (__u64 i = 0; i < 1000; i++) {
		struct alloc_event e = { .type = EV_ALLOC, .ts_ns = FIX_T0 + i * 1000,
					 .addr = 0x10010 + i * 32, .size = 1, .stack_id = 1 };

		cr_assert_eq(collector__handle(c, &e), 0);
	}
	collector__finish(c, FIX_T0 + 2000000);
	snprintf(path, sizeof(path), "%s/no-chunks.json", ex_artifacts());
	cr_assert_eq(dhat__write_path(path, c, fixture_frames, NULL, &meta), 0);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert(p, "%s", err);
	cr_expect_null(p->live_cb, "another allocator's file has a chunk series");
	dhat_profile__free(p);

	meta.glibc_chunks = true;
	snprintf(path, sizeof(path), "%s/chunks.json", ex_artifacts());
	cr_assert_eq(dhat__write_path(path, c, fixture_frames, NULL, &meta), 0);
	collector__free(c);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert(p, "%s", err);
	cr_assert_not_null(p->live_cb, "no chunk series");
	cr_expect_eq(p->live_cb_end, 32000);
	cr_expect_eq(p->end_bytes, 1000);
	for (size_t i = 0; i < p->live_cnt; i++)
		cr_expect_geq(p->live_cb[i], p->live_b[i], "point %zu", i);
	cr_expect_eq(p->live_cb[p->live_cnt - 1], 32000);
	f = open_memstream(&svg, &len);
	cr_assert(f);
	cr_expect_eq(export__timeline_profile_svg(p, f, NULL), 0);
	fclose(f);
	cr_expect(strstr(svg, "<path id=\"chunks\""), "no chunk line");
	cr_expect(strstr(svg, "heap in malloc chunks</text>"), "no key");
	cr_expect(strstr(svg, ", in malloc chunks 31.25 KiB</title>"), "no tooltip");
	free(svg);
	dhat_profile__free(p);
}
