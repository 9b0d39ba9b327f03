// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests for user/dhat_writer.c: golden output, invariants on every file, merging,
 * escaping, gzip, and the file-creation rules. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "dhat_fixture.h"
#include "dhat_invariants.h"
#include "dhat_reader.h"
#include "dhat_writer.h"
#include "test_util.h"

static const struct dhat_meta META = { .cmd = "./prog \"a b\" c", .pid = 4242 };

/* Every file written here is also kept in TESTS_BIN_DIR/viewer-files/NAME.json, where the
 * dhat_viewer_unit test loads it into Valgrind's real dh_view.js. */
static void keep_for_viewer(const char *name, const char *text, size_t len)
{
	char path[600];

	mkdir(TESTS_BIN_DIR "/viewer-files", 0755);
	snprintf(path, sizeof(path), "%s/viewer-files/%s.json", TESTS_BIN_DIR, name);
	cr_assert_eq(tu_spit(path, text, len), 0, "cannot write %s", path);
}

/* Write c to a memory buffer; check invariants against its totals; keep a copy for the
 * viewer check; return the text. */
static char *write_mem_named(const char *name, const struct collector *c, pp_frames_fn fr,
			     void *ctx, const struct dhat_meta *meta, size_t *len)
{
	struct dhat_inv_expect exp = dhat_inv_expect_from(collector__totals(c));
	char *buf = NULL, msg[512];
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int err;

	cr_assert_not_null(f);
	err = dhat__write(f, c, fr, ctx, meta);
	fclose(f);
	cr_assert_eq(err, 0, "dhat__write: %d", err);
	cr_assert_eq(dhat_check_invariants_text(buf, n, &exp, msg, sizeof(msg)), 0,
		     "invariants: %s\n%s", msg, buf);
	keep_for_viewer(name, buf, n);
	if (len)
		*len = n;
	return buf;
}

/* Named after the calling test and line, so that every output is kept apart. */
#define write_mem(...) write_mem_named(viewer_name(__func__, __LINE__), __VA_ARGS__)

static const char *viewer_name(const char *fn, int line)
{
	static char name[128];

	snprintf(name, sizeof(name), "%s-%d", fn, line);
	return name;
}

Test(dhat_writer, golden_prog_c)
{
	struct collector *c = fixture_prog_c();
	size_t len;
	char *text = write_mem(c, fixture_frames, NULL, &META, &len);
	int ret = tu_golden(TESTS_SRC_DIR "/data/writer_prog_c.golden.json", text, len);

	cr_expect_eq(ret, 0, "output differs from tests/data/writer_prog_c.golden.json "
			     "(UPDATE_GOLDEN=1 to accept):\n%s", text);
	free(text);
	collector__free(c);
}

/* The file-level figures of the worked example, read back with cJSON. */
Test(dhat_writer, prog_c_figures)
{
	struct collector *c = fixture_prog_c();
	char *text = write_mem(c, fixture_frames, NULL, &META, NULL);
	cJSON *root = cJSON_Parse(text), *pps, *pp;
	int n = 0;

	cr_assert_not_null(root);
	cr_expect_eq(cJSON_GetObjectItem(root, "te")->valueint, 162);
	cr_expect_eq(cJSON_GetObjectItem(root, "tg")->valueint, 25);
	cr_expect_str_eq(cJSON_GetObjectItem(root, "mode")->valuestring, "ebpf-heap");
	cr_expect_str_eq(cJSON_GetObjectItem(root, "cmd")->valuestring, "./prog \"a b\" c");
	cr_expect_eq(cJSON_GetObjectItem(root, "pid")->valueint, 4242);
	pps = cJSON_GetObjectItem(root, "pps");
	cJSON_ArrayForEach(pp, pps) {
		int tb = cJSON_GetObjectItem(pp, "tb")->valueint;
		int tl = cJSON_GetObjectItem(pp, "tl")->valueint;

		if (tb == 80)
			cr_expect_eq(tl, 57);
		else if (tb == 350)
			cr_expect_eq(tl, 61); /* 9..70 µs: realloc keeps the allocation time */
		else if (tb == 96)
			cr_expect_eq(tl, 10 + 10 + 120);
		else
			cr_expect_fail("unexpected pp tb %d", tb);
		n++;
	}
	cr_expect_eq(n, 3);
	cJSON_Delete(root);
	free(text);
	collector__free(c);
}

/* Frames that collapse different stacks to the same list (the symbolizer cuts below main,
 * drops frames...): never two PPs with equal fs. */
static int collapse_frames(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	int mod = ctx ? *(int *)ctx : 1;

	return strvec__push(out, "0x1: malloc (in libc.so.6)") ?:
	       strvec__pushf(out, "0x2: site%d (x.c:%d)", pp->stack_id % mod, pp->stack_id % mod);
}

static struct alloc_event A(__u64 t, __u64 addr, __u64 size, __s32 stack)
{
	return (struct alloc_event){ .type = EV_ALLOC, .ts_ns = FIX_T0 + t, .addr = addr,
				     .size = size, .stack_id = stack, .fn = FN_MALLOC };
}

static struct alloc_event F(__u64 t, __u64 addr)
{
	return (struct alloc_event){ .type = EV_FREE, .ts_ns = FIX_T0 + t, .addr = addr };
}

Test(dhat_writer, merges_identical_frame_lists)
{
	struct collector *c = collector__new(FIX_T0, NULL);
	int mod = 1;
	char *text;
	cJSON *root, *pp;

	fixture_feed(c, A(1000, 0x10, 60, 1));
	fixture_feed(c, A(2000, 0x20, 60, 2)); /* peak 120: 60 + 60 from two stacks */
	fixture_feed(c, F(3000, 0x10));
	fixture_feed(c, F(3500, 0x20));
	fixture_feed(c, A(4000, 0x30, 100, 3)); /* PP 3's own peak 100 */
	fixture_feed(c, F(5000, 0x30));
	collector__finish(c, FIX_T0 + 9000);
	text = write_mem(c, collapse_frames, &mod, &META, NULL);
	root = cJSON_Parse(text);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "pps")), 1);
	pp = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "pps"), 0);
	cr_expect_eq(cJSON_GetObjectItem(pp, "tb")->valueint, 220);
	cr_expect_eq(cJSON_GetObjectItem(pp, "tbk")->valueint, 3);
	cr_expect_eq(cJSON_GetObjectItem(pp, "gb")->valueint, 120);
	cr_expect_eq(cJSON_GetObjectItem(pp, "gbk")->valueint, 2);
	/* mb: at least the merged gb (120), though no member peaked above 100 alone */
	cr_expect_eq(cJSON_GetObjectItem(pp, "mb")->valueint, 120);
	cr_expect_eq(cJSON_GetObjectItem(pp, "mbk")->valueint, 2);
	cr_expect_eq(cJSON_GetObjectItem(pp, "eb")->valueint, 0);
	cr_expect_eq(cJSON_GetObjectItem(pp, "tl")->valueint, 5); /* 2000+1500+1000 ns */
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "ftbl")), 3);
	cJSON_Delete(root);
	free(text);
	collector__free(c);
}

/* The index in "pps" of the point whose frames name site (as collapse_frames() writes it). */
static int pp_named(cJSON *root, const char *site)
{
	cJSON *ftbl = cJSON_GetObjectItem(root, "ftbl"), *pps = cJSON_GetObjectItem(root, "pps");

	for (int i = 0; i < cJSON_GetArraySize(pps); i++) {
		cJSON *fs = cJSON_GetObjectItem(cJSON_GetArrayItem(pps, i), "fs");
		int last = cJSON_GetArrayItem(fs, cJSON_GetArraySize(fs) - 1)->valueint;

		if (strstr(cJSON_GetArrayItem(ftbl, last)->valuestring, site))
			return i;
	}
	return -1;
}

/* A size bucket's and a thread's top point is an output point: stacks 1 and 3 are one
 * point (site1: 3 + 2 blocks of 20 B), stack 2 another (site0: 4). Taken per stack, the top
 * was stack 2 (4 blocks, 80 B) over stack 1 (3, 60 B): threads_e2e saw "99 in work" where
 * a fallback copy had given one of a site's 100 stacks a second id. */
Test(dhat_writer, tops_count_merged_points_together)
{
	struct collector *c = collector__new(FIX_T0, NULL);
	static const __s32 stacks[9] = { 1, 1, 1, 3, 3, 2, 2, 2, 2 };
	int mod = 2, site1;
	char *text;
	cJSON *root, *bucket, *thread;

	for (int i = 0; i < 9; i++)
		fixture_feed(c, A(1000 + 10 * (__u64)i, 0x100 + 0x40 * (__u64)i, 20, stacks[i]));
	collector__finish(c, FIX_T0 + 9000);
	text = write_mem(c, collapse_frames, &mod, &META, NULL);
	root = cJSON_Parse(text);
	cr_assert_not_null(root);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "pps")), 2, "%s", text);
	site1 = pp_named(root, "site1 ");
	cr_assert_geq(site1, 0, "%s", text);
	bucket = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "sizes"), 0);
	cr_assert_not_null(bucket, "no sizes:\n%s", text);
	cr_expect_eq(cJSON_GetObjectItem(bucket, "log2")->valueint, 4);
	cr_expect_eq(cJSON_GetObjectItem(bucket, "tbk")->valueint, 9);
	cr_expect_eq(cJSON_GetObjectItem(bucket, "topTbk")->valueint, 5, "%s", text);
	cr_expect_eq(cJSON_GetObjectItem(bucket, "topPp")->valueint, site1, "%s", text);
	thread = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "threads"), 0);
	cr_assert_not_null(thread, "no threads:\n%s", text);
	cr_expect_eq(cJSON_GetObjectItem(thread, "topPp")->valueint, site1, "%s", text);
	cJSON_Delete(root);
	free(text);
	collector__free(c);
}

/* Many PPs, heavy merging, random traffic: the invariants hold (checked in write_mem). */
Test(dhat_writer, invariants_on_random_profiles)
{
	for (int mod = 1; mod <= 40; mod += 13) {
		struct collector *c = collector__new(FIX_T0, NULL);
		__u64 live[64] = {};

		srand((unsigned)mod);
		for (int i = 0; i < 20000; i++) {
			int s = rand() % 64;

			if (live[s]) {
				fixture_feed(c, F((__u64)i * 10, live[s]));
				live[s] = 0;
			} else {
				live[s] = 0x1000 + (__u64)s * 64;
				fixture_feed(c, A((__u64)i * 10, live[s], (__u64)(rand() % 50),
						  rand() % 100));
			}
		}
		collector__finish(c, FIX_T0 + 20000 * 10 + 7);
		char name[64];

		snprintf(name, sizeof(name), "random-%d", mod);
		free(write_mem_named(name, c, collapse_frames, &mod, &META, NULL));
		collector__free(c);
	}
}

static int nasty_frames(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	(void)ctx;
	(void)pp;
	return strvec__push(out, "0x1: say \"hi\" \\ back\\slash\n\t\x01\x1f end µ <T>") ?:
	       strvec__push(out, "0x2: main (m.c:1)");
}

Test(dhat_writer, json_escaping)
{
	struct collector *c = collector__new(FIX_T0, NULL);
	struct dhat_meta meta = { .cmd = "sh -c 'echo \"x\"\\n'\nnext", .pid = 1 };
	char *text;
	cJSON *root;

	fixture_feed(c, A(1, 0x10, 5, 1));
	collector__finish(c, FIX_T0 + 2);
	text = write_mem(c, nasty_frames, NULL, &meta, NULL);
	cr_expect(strstr(text, "\\u0001") && strstr(text, "\\u001f") && strstr(text, "\\n") &&
		  strstr(text, "\\\"hi\\\"") && strstr(text, "\\\\ back"), "%s", text);
	root = cJSON_Parse(text);
	cr_assert_not_null(root);
	cr_expect_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "ftbl"), 1)->valuestring,
			 "0x1: say \"hi\" \\ back\\slash\n\t\x01\x1f end µ <T>");
	cr_expect_str_eq(cJSON_GetObjectItem(root, "cmd")->valuestring, meta.cmd);
	cJSON_Delete(root);
	free(text);
	collector__free(c);
}

Test(dhat_writer, empty_profile_layout)
{
	struct collector *c = collector__new(FIX_T0, NULL);
	char *text;

	collector__finish(c, FIX_T0 + 1499);
	text = write_mem(c, fixture_frames, NULL, NULL, NULL);
	cr_expect_str_eq(text, "{\"dhatFileVersion\":2\n"
			       ",\"mode\":\"ebpf-heap\",\"verb\":\"Allocated\"\n"
			       ",\"bklt\":true,\"bkacc\":false\n"
			       ",\"tu\":\"µs\",\"Mtu\":\"s\"\n"
			       ",\"tuth\":10\n"
			       ",\"cmd\":\"\"\n"
			       ",\"pid\":0\n"
			       ",\"te\":1\n"
			       ",\"tg\":0\n"
			       ",\"pps\":\n [\n ]\n"
			       ",\"ftbl\":\n [\"[root]\"\n ]\n}\n");
	free(text);
	collector__free(c);
}

/* ns -> µs rounds half up, so tg <= te survives; no fractions are ever written. */
Test(dhat_writer, time_rounding_keeps_tg_le_te)
{
	struct collector *c = collector__new(FIX_T0, NULL);
	char *text;
	cJSON *root;

	fixture_feed(c, A(2499, 0x10, 5, 1));
	collector__finish(c, FIX_T0 + 2500);
	text = write_mem(c, NULL, NULL, NULL, NULL);
	root = cJSON_Parse(text);
	cr_expect_eq(cJSON_GetObjectItem(root, "tg")->valueint, 2);
	cr_expect_eq(cJSON_GetObjectItem(root, "te")->valueint, 3);
	cJSON_Delete(root);
	free(text);
	collector__free(c);
}

/* Without a frames callback each PP is named by allocator and stack id; an empty frame
 * list becomes "[no stack]" (never an empty fs). */
static int no_frames(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	(void)ctx, (void)pp, (void)out;
	return 0;
}

Test(dhat_writer, default_and_empty_frames)
{
	struct collector *c = collector__new(FIX_T0, NULL);
	char *text;

	fixture_feed(c, A(1, 0x10, 5, 7));
	fixture_feed(c, A(1, 0x20, 5, -14));
	collector__finish(c, FIX_T0 + 2);
	text = write_mem(c, NULL, NULL, NULL, NULL);
	cr_expect(strstr(text, "\"malloc\"") && strstr(text, "\"[stack 7]\"") &&
		  strstr(text, "\"[stack -14]\""), "%s", text);
	free(text);
	text = write_mem(c, no_frames, NULL, NULL, NULL); /* two empty lists: merged */
	cr_expect(strstr(text, "\"[no stack]\""), "%s", text);
	cr_expect(strstr(text, "\"tb\":10,\"tbk\":2"), "%s", text);
	free(text);
	collector__free(c);
}

static int failing_frames(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	(void)ctx, (void)pp, (void)out;
	return -EIO;
}

Test(dhat_writer, write_path_plain_gzip_and_errors)
{
	struct collector *c = fixture_prog_c();
	struct dhat_inv_expect exp = dhat_inv_expect_from(collector__totals(c));
	char dir[512], plain[600], gz[600], link[600], victim[600], msg[512];
	char *a, *b;
	size_t alen = 0, blen = 0;
	struct stat st;

	tu_scratch(dir, sizeof(dir), "writer");
	snprintf(plain, sizeof(plain), "%s/p.json", dir);
	snprintf(gz, sizeof(gz), "%s/p.json.gz", dir);
	snprintf(link, sizeof(link), "%s/link.json", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);

	umask(022);
	tu_spit(plain, "stale content that is longer than nothing", 40);
	cr_assert_eq(dhat__write_path(plain, c, fixture_frames, NULL, &META), 0);
	cr_assert_eq(dhat__write_path(gz, c, fixture_frames, NULL, &META), 0);
	cr_expect_eq(stat(plain, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0644);
	cr_expect_eq(dhat_check_invariants(plain, &exp, msg, sizeof(msg)), 0, "%s", msg);
	cr_expect_eq(dhat_check_invariants(gz, &exp, msg, sizeof(msg)), 0, "%s", msg);

	/* The .gz really is gzip, and inflates to the plain file. */
	FILE *f = fopen(gz, "rb");
	unsigned char magic[2] = {};

	cr_assert_not_null(f);
	cr_expect_eq(fread(magic, 1, 2, f), 2);
	fclose(f);
	cr_expect(magic[0] == 0x1f && magic[1] == 0x8b);
	a = tu_slurp(plain, &alen);
	b = tu_slurp(gz, &blen);
	cr_expect(alen == blen && !memcmp(a, b, alen));
	free(a);
	free(b);

	/* Never through a symlink: the target stays untouched. */
	tu_spit(victim, "keep", 4);
	unlink(link);
	cr_assert_eq(symlink(victim, link), 0);
	cr_expect_eq(dhat__write_path(link, c, fixture_frames, NULL, &META), -ELOOP);
	a = tu_slurp(victim, &alen);
	cr_expect(alen == 4 && !memcmp(a, "keep", 4));
	free(a);
	cr_expect_eq(lstat(link, &st), 0);

	/* A failing frames callback: its error comes back, no partial file remains and the
	 * profile written before stays intact (temporary file + rename). */
	a = tu_slurp(plain, &alen);
	cr_expect_eq(dhat__write_path(plain, c, failing_frames, NULL, &META), -EIO);
	b = tu_slurp(plain, &blen);
	cr_expect(alen == blen && !memcmp(a, b, alen), "the earlier profile was damaged");
	free(a);
	free(b);

	cr_expect_eq(dhat__write_path("/nonexistent-dir/x.json", c, NULL, NULL, NULL), -ENOENT);
	collector__free(c);
}

/* Shared frames keep one index; indices go in first-seen order (fs never holds 0). */
Test(dhat_writer, frame_table_dedup)
{
	struct collector *c = fixture_prog_c();
	char *text = write_mem(c, fixture_frames, NULL, &META, NULL);
	cJSON *root = cJSON_Parse(text);
	cJSON *ftbl = cJSON_GetObjectItem(root, "ftbl");

	/* root + calloc, make_table, main:35, malloc, grow_buffer, main:36, main:39 */
	cr_expect_eq(cJSON_GetArraySize(ftbl), 8);
	cr_expect_str_eq(cJSON_GetArrayItem(ftbl, 0)->valuestring, "[root]");
	cJSON_Delete(root);
	free(text);
	collector__free(c);
}

/* Bytes that are not UTF-8 become U+FFFD before interning: two frames that differ only in
 * invalid bytes share one index; valid multibyte text is kept. */
static int latin1_frames(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	(void)ctx;
	return strvec__push(out, pp->stack_id == 1 ? "0x1: f (caf\xe9.c:1)" : "0x1: f (caf\xe8.c:1)") ?:
	       strvec__pushf(out, "0x2: g\xc3 (\xed\xa0\x80 \xf0\x9f\x98\x80 %d)", pp->stack_id);
}

Test(dhat_writer, invalid_utf8_replaced)
{
	struct collector *c = collector__new(FIX_T0, NULL);
	char *text;
	cJSON *root, *ftbl;

	fixture_feed(c, A(1, 0x10, 5, 1));
	fixture_feed(c, A(2, 0x20, 5, 2));
	collector__finish(c, FIX_T0 + 3);
	text = write_mem(c, latin1_frames, NULL, NULL, NULL);
	root = cJSON_Parse(text);
	ftbl = cJSON_GetObjectItem(root, "ftbl");
	cr_assert_eq(cJSON_GetArraySize(ftbl), 4, "%s", text); /* [root], f, g 1, g 2 */
	cr_expect_str_eq(cJSON_GetArrayItem(ftbl, 1)->valuestring, "0x1: f (caf\xef\xbf\xbd.c:1)");
	cr_expect_str_eq(cJSON_GetArrayItem(ftbl, 2)->valuestring,
			 "0x2: g\xef\xbf\xbd (\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xf0\x9f\x98\x80 1)");
	cJSON_Delete(root);
	free(text);
	collector__free(c);
}

/* Stacks 1 and 3 stop before the thread's entry; 2 and 4 collapse onto 1 and 3's frames
 * when mod is 2, so merged points count once. */
static int cut_frames(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	int err = collapse_frames(ctx, pp, out);

	return err ? err : pp->stack_id % 2 ? DHAT_FRAMES_CUT_SHORT : 0;
}

/* "lost": absent from a complete profile (the golden file has none), present with every
 * count once anything is lost, and the counts are the file's: the caller's dropped records
 * and untraced processes, the collector's unknown frees and stack failures, and written
 * program points whose stack was cut short (a merged point once). */
Test(dhat_writer, lost_only_when_something_is)
{
	struct collector *c = collector__new(FIX_T0, NULL);
	struct dhat_meta meta = META;
	struct dhat_profile *p;
	char *text, err[256];
	size_t len;
	int mod = 2;

	fixture_feed(c, A(1, 0x10, 5, 1));
	fixture_feed(c, A(2, 0x20, 5, 2));
	fixture_feed(c, A(3, 0x30, 5, 3));
	fixture_feed(c, F(4, 0x10));
	collector__finish(c, FIX_T0 + 9);
	text = write_mem(c, collapse_frames, NULL, &META, NULL);
	cr_expect_null(strstr(text, "\"lost\""), "%s", text);
	free(text);

	text = write_mem(c, cut_frames, &mod, &META, &len);
	cr_expect(strstr(text, "\n,\"lost\":{\"droppedRecords\":0,\"unknownFrees\":0,"
			       "\"stackFailures\":0,\"cutShortStacks\":1,\"untracedProcesses\":0,"
			       "\"noAllocatorCalls\":0,\"sampledMapFull\":0,"
			       "\"mappingsNotTraced\":0}\n"),
		  "%s", text);
	free(text);

	collector__free(c);
	c = collector__new(FIX_T0, NULL);
	fixture_feed(c, A(1, 0x10, 5, 1));
	fixture_feed(c, A(2, 0x20, 5, 2));
	fixture_feed(c, A(3, 0x30, 5, 3));
	fixture_feed(c, F(5, 0x99)); /* never allocated */
	fixture_feed(c, A(6, 0x40, 5, -14));
	collector__finish(c, FIX_T0 + 9);
	meta.lost.n[DHAT_LOST_DROPPED] = 7;
	meta.lost.n[DHAT_LOST_UNTRACED] = 2;
	mod = 4;
	text = write_mem(c, cut_frames, &mod, &meta, &len);
	p = dhat_profile__parse(text, len, "lost", err, sizeof(err));
	cr_assert_not_null(p, "%s\n%s", err, text);
	cr_expect(p->has_lost);
	cr_expect_eq(p->lost.n[DHAT_LOST_DROPPED], 7);
	cr_expect_eq(p->lost.n[DHAT_LOST_UNKNOWN_FREES], 1);
	cr_expect_eq(p->lost.n[DHAT_LOST_STACK_FAILURES], 1);
	cr_expect_eq(p->lost.n[DHAT_LOST_CUT_SHORT], 2, "stacks 1 and 3, unmerged");
	cr_expect_eq(p->lost.n[DHAT_LOST_UNTRACED], 2);
	dhat_profile__free(p);
	free(text);
	collector__free(c);
}

/* --sample-bytes: the file says it is sampled, at what mean, with each PP's standard errors
 * and realloc-chain counts; the reader gets them back; the file (kept for
 * dhat_viewer_unit) still loads in dh_view; an exact one has none of these keys. */
Test(dhat_writer, sampled_profile_says_so)
{
	struct collector_opts o = { .sample_bytes = 4096 };
	struct collector *c = collector__new(FIX_T0, &o);
	struct alloc_event regrown = A(4, 0x30, 5000, 3), moved = F(5, 0x20);
	struct dhat_profile *p;
	char *text, err[256];
	size_t len;

	regrown.old_addr = 0x7000; /* a realloc of a block sampling did not keep */
	regrown.fn = FN_REALLOC;
	moved.size = 300; /* a kept block realloc'd into one not kept */
	moved.fn = FN_REALLOC;
	cr_assert_not_null(c);
	fixture_feed(c, A(1, 0x10, 1 << 20, 1)); /* >= 32 N: weight 1 */
	fixture_feed(c, A(2, 0x20, 100, 2));	 /* weight ~41 */
	fixture_feed(c, F(3, 0x10));
	fixture_feed(c, regrown);
	fixture_feed(c, moved);
	collector__finish(c, FIX_T0 + 9);
	text = write_mem(c, collapse_frames, NULL, &META, &len);
	cr_expect(strstr(text, "\n,\"sampled\":{\"meanBytes\":4096}\n"), "%s", text);
	cr_expect(strstr(text, "\"tbSe\":") && strstr(text, "\"tbkSe\":") &&
		      strstr(text, "\"tbRealloc\":") && strstr(text, "\"tbkReallocd\":"),
		  "%s", text);
	p = dhat_profile__parse(text, len, "sampled.json", err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_eq(p->sample_bytes, 4096);
	cr_expect_eq(p->total_bytes, collector__totals(c)->total_bytes);
	cr_expect_gt(p->total_blocks, 2, "weighted: the 100-byte block stands for ~41");
	{
		uint64_t re = 0, rd = 0;

		cr_expect_gt(p->est_cnt, 0);
		for (size_t k = 0; k < p->pp_cnt; k++) {
			re += dhat_profile__pp_est(p, &p->pps[k]).tb_realloc;
			rd += dhat_profile__pp_est(p, &p->pps[k]).tbk_reallocd;
		}
		/* 5000 bytes kept with p = 0.71: a weight of 1 or 2 */
		cr_expect(re == 5000 || re == 10000, "tbRealloc %llu", (unsigned long long)re);
		cr_expect_gt(rd, 30, "the ~41-weight block was realloc'd");
	}
	dhat_profile__free(p);
	free(text);
	collector__free(c);

	c = collector__new(FIX_T0, NULL);
	fixture_feed(c, A(1, 0x10, 100, 1));
	collector__finish(c, FIX_T0 + 9);
	text = write_mem(c, collapse_frames, NULL, &META, &len);
	cr_expect_null(strstr(text, "sampled"), "%s", text);
	cr_expect_null(strstr(text, "Se\":"), "%s", text);
	cr_expect_null(strstr(text, "Realloc"), "%s", text);
	p = dhat_profile__parse(text, len, "exact.json", err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_eq(p->sample_bytes, 0);
	cr_expect_eq(p->total_blocks, 1);
	dhat_profile__free(p);
	free(text);
	collector__free(c);
}

/* --skip patterns recorded ("skip", dhat_skip.h): absent without any, written in order with
 * JSON escaping, read back as given; lenient on elements that are not strings; the file
 * (kept for dhat_viewer_unit) still loads in dh_view. */
Test(dhat_writer, skip_patterns_round_trip)
{
	static const char *const pats[] = { "jv_mem_alloc", "=sqlite3Malloc", "we\"ird\\" };
	static const char other[] = "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\""
				    ",\"bklt\":false,\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\""
				    ",\"cmd\":\"x\",\"pid\":1,\"te\":1"
				    ",\"skip\":[\"a\",3,{\"b\":1},null,\"=c\"],\"pps\":[],\"ftbl\":[\"[root]\"]}";
	struct collector *c = collector__new(FIX_T0, NULL);
	struct dhat_meta meta = META;
	struct dhat_profile *p;
	char *text, err[256];
	size_t len;

	fixture_feed(c, A(1, 0x10, 5, 1));
	collector__finish(c, FIX_T0 + 9);
	text = write_mem(c, collapse_frames, NULL, &META, &len);
	cr_expect_null(strstr(text, "\"skip\""), "%s", text);
	p = dhat_profile__parse(text, len, "noskip", err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_eq(p->skip.cnt, 0);
	dhat_profile__free(p);
	free(text);

	meta.skip = pats;
	meta.skip_cnt = 3;
	text = write_mem(c, collapse_frames, NULL, &meta, &len);
	cr_expect(strstr(text, "\n,\"skip\":[\"jv_mem_alloc\",\"=sqlite3Malloc\",\"we\\\"ird\\\\\"]\n"),
		  "%s", text);
	p = dhat_profile__parse(text, len, "skip", err, sizeof(err));
	cr_assert_not_null(p, "%s\n%s", err, text);
	cr_assert_eq(p->skip.cnt, 3);
	for (size_t i = 0; i < 3; i++)
		cr_expect_str_eq(p->skip.pat[i], pats[i]);
	dhat_profile__free(p);
	free(text);
	collector__free(c);

	p = dhat_profile__parse(other, strlen(other), "lenient", err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert_eq(p->skip.cnt, 2);
	cr_expect_str_eq(p->skip.pat[0], "a");
	cr_expect_str_eq(p->skip.pat[1], "=c");
	dhat_profile__free(p);
}
