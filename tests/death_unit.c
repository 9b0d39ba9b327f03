/*
 * The "death" object (dhat_death.h) without root: an EV_DEATH record becomes the cause, the
 * writer's object reads back the same, the reader skips what it does not know, and the
 * report's lead line says it the way a human wants it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dhat_death.h"
#include "dhat_mappings.h"
#include "dhat_reader.h"
#include "export.h"
#include "events.h"
#include "mappings.h"
#include "report.h"
#include "rss_sampler.h"

/* A minimal valid profile whose "death" member is obj (written by dhat_death__write when
 * d is given), then read back. */
static struct dhat_profile *with_death(const struct dhat_death *d, const char *obj)
{
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct dhat_profile *p;

	cr_assert_not_null(f);
	fputs("{\"dhatFileVersion\":2,\"mode\":\"ebpf-heap\",\"verb\":\"Allocated\",\"bklt\":true,"
	      "\"bkacc\":false,\"tu\":\"us\",\"Mtu\":\"s\",\"tuth\":10,\"cmd\":\"x\",\"pid\":1,"
	      "\"te\":5,\"tg\":5\n",
	      f);
	if (d)
		dhat_death__write(f, d);
	else
		fprintf(f, ",\"death\":%s\n", obj);
	fputs(
	    ",\"pps\":[{\"tb\":8,\"tbk\":1,\"tl\":1,\"mb\":8,\"mbk\":1,\"gb\":8,\"gbk\":1,\"eb\":8,"
	    "\"ebk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"f\"]}\n",
	    f);
	fclose(f);
	p = dhat_profile__parse(text, len, "t.json", err, sizeof(err));
	cr_assert_not_null(p, "%s\n%s", err, text);
	free(text);
	return p;
}

Test(death_unit, oom_kill_in_a_memcg_round_trips)
{
	struct death_event e = {.type = EV_DEATH,
				.tgid = 42,
				.exit_code = SIGKILL,
				.flags = DEATH_F_OOM | DEATH_F_OOM_MEMCG | DEATH_F_SIGNAL,
				.signo = SIGKILL,
				.oom_limit = 256ull << 20,
				.oom_usage = 256ull << 20,
				.oom_cgroup = "svc"};
	struct dhat_death d;
	struct dhat_profile *p;
	char line[256];

	dhat_death__from_event(&d, &e);
	cr_assert_eq(d.cause, DHAT_DEATH_OOM);
	p = with_death(&d, NULL);
	cr_assert(p->has_death);
	cr_expect_eq(p->death.cause, DHAT_DEATH_OOM);
	cr_expect_eq(p->death.scope, DHAT_OOM_MEMCG);
	cr_expect_eq(p->death.pid, 42);
	cr_expect_eq(p->death.limit, 256ull << 20);
	cr_expect_eq(p->death.usage, 256ull << 20);
	cr_expect_str_eq(p->death.cgroup, "svc");
	dhat_death__describe(&p->death, 231ull << 20, false, line, sizeof(line));
	cr_expect_str_eq(line, "killed by the OOM killer (memory cgroup limit 256.00 MiB): live "
			       "heap 231.00 MiB at death");
	/* --bytes: the exact figures */
	dhat_death__describe(&p->death, 231ull << 20, true, line, sizeof(line));
	cr_expect_str_eq(line, "killed by the OOM killer (memory cgroup limit 268435456 B): live "
			       "heap 242221056 B at death");
	dhat_profile__free(p);
}

Test(death_unit, sigsegv_keeps_its_faulting_address)
{
	struct death_event e = {.type = EV_DEATH,
				.tgid = 7,
				.exit_code = SIGSEGV | 0x80,
				.flags = DEATH_F_SIGNAL | DEATH_F_FAULT_ADDR,
				.signo = SIGSEGV,
				.si_code = 1,
				.fault_addr = 0xdeadbeef00ull};
	struct dhat_death d;
	struct dhat_profile *p;
	char line[256];

	dhat_death__from_event(&d, &e);
	p = with_death(&d, NULL);
	cr_expect_eq(p->death.cause, DHAT_DEATH_SIGNAL);
	cr_expect_eq(p->death.signo, SIGSEGV);
	cr_expect_eq(p->death.si_code, 1);
	cr_expect(p->death.has_addr);
	cr_expect_eq(p->death.addr, 0xdeadbeef00ull);
	dhat_death__describe(&p->death, 1536, false, line, sizeof(line));
	cr_expect_str_eq(line, "killed by SIGSEGV at address 0xdeadbeef00: live heap 1.50 KiB at "
			       "death");
	dhat_profile__free(p);
}

Test(death_unit, a_signal_that_was_not_the_fatal_one_is_not_its_cause)
{
	/* SIGSEGV handled, then the process exited 3: an exit, no address. */
	struct death_event e = {.type = EV_DEATH,
				.exit_code = 3 << 8,
				.flags = DEATH_F_SIGNAL | DEATH_F_FAULT_ADDR,
				.signo = SIGSEGV,
				.fault_addr = 16};
	struct dhat_death d;
	char line[256];

	dhat_death__from_event(&d, &e);
	cr_expect_eq(d.cause, DHAT_DEATH_EXIT);
	cr_expect_eq(d.status, 3);
	cr_expect_not(d.has_addr);
	dhat_death__describe(&d, 0, false, line, sizeof(line));
	cr_expect_str_eq(line, "exited with status 3: live heap 0 B at exit");
}

Test(death_unit, reader_is_lenient_with_the_object)
{
	struct dhat_profile *p =
	    with_death(NULL, "{\"cause\":\"signal\",\"signal\":\"11\",\"faultAddr\":\"zz\","
			     "\"x\":[1,{\"a\":null}],\"cgroup\":12,\"limit\":-1}");

	cr_expect(p->has_death);
	cr_expect_eq(p->death.cause, DHAT_DEATH_SIGNAL);
	cr_expect_eq(p->death.signo, 0, "a string is not a signal number");
	cr_expect_not(p->death.has_addr);
	cr_expect_str_eq(p->death.cgroup, "");
	dhat_profile__free(p);
	p = with_death(NULL, "[1,2]"); /* not an object: ignored, as dh_view ignores it */
	cr_expect_not(p->has_death);
	dhat_profile__free(p);
}

Test(death_unit, rss_parse_reads_the_status_lines)
{
	static const char STATUS[] = "Name:\tleak\nVmRSS:\t   66000 kB\nRssAnon:\t   65000 kB\n"
				     "RssFile:\t     900 kB\nRssShmem:\t      100 kB\n"
				     "VmSwap:\t      12 kB\nThreads:\t1\n";
	struct dhat_rss_sample s = {0};

	cr_assert_eq(rss_sampler__parse(STATUS, &s), 0);
	cr_expect_eq(s.anon, 65000ull * 1024);
	cr_expect_eq(s.file, 900ull * 1024);
	cr_expect_eq(s.shmem, 100ull * 1024);
	cr_expect_eq(s.swap, 12ull * 1024);
	/* A zombie's status has no memory lines: no sample, not zeros. */
	cr_expect_eq(rss_sampler__parse("Name:\tz\nState:\tZ (zombie)\n", &s), -ENOENT);
}

Test(death_unit, rss_series_is_written_within_the_profile_and_read_back)
{
	struct dhat_rss_sample s[] = {
	    {.t_ns = 500, .anon = 1}, /* before the profile: left out */
	    {.t_ns = 1000, .anon = 4096, .file = 8192},
	    {.t_ns = 3000, .anon = 65536, .file = 8192, .shmem = 4096, .swap = 1},
	    {.t_ns = 9000, .anon = 99}, /* after te: left out */
	};
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct dhat_profile *p;

	fputs("{\"dhatFileVersion\":2,\"mode\":\"m\",\"verb\":\"Allocated\",\"bklt\":false,"
	      "\"bkacc\":false,\"tu\":\"us\",\"Mtu\":\"s\",\"cmd\":\"x\",\"pid\":1,\"te\":2\n",
	      f);
	dhat_rss__write(f, s, 4, 1000, 2000);
	fputs(",\"pps\":[],\"ftbl\":[\"[root]\"]}\n", f);
	fclose(f);
	cr_expect(strstr(text, "\"t\":[0,2]") != NULL, "%s", text);
	p = dhat_profile__parse(text, len, "t.json", err, sizeof(err));
	cr_assert_not_null(p, "%s\n%s", err, text);
	cr_expect(p->has_rss);
	cr_expect_eq(p->rss_end.t, 2);
	cr_expect_eq(p->rss_end.anon, 65536);
	cr_expect_eq(p->rss_end.shmem, 4096);
	cr_expect_eq(p->rss_end.swap, 1);
	dhat_profile__free(p);
	free(text);
}

/* The report leads with the death: the cause, RSS at death, the sites live then, and only
 * then the usual totals; JSON says the same. */
Test(death_unit, report_leads_with_the_death)
{
	struct death_event e = {.type = EV_DEATH,
				.tgid = 9,
				.exit_code = SIGKILL,
				.flags = DEATH_F_OOM | DEATH_F_OOM_MEMCG | DEATH_F_RSS,
				.oom_limit = 64ull << 20,
				.oom_usage = 64ull << 20,
				.rss_anon = 4096,
				.rss_file = 8192};
	struct report_opts ropts = {.title = "svc"};
	struct dhat_death d;
	struct dhat_profile *p;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	const char *lead, *rss, *table, *totals;

	dhat_death__from_event(&d, &e);
	p = with_death(&d, NULL);
	f = open_memstream(&text, &len);
	cr_assert_eq(report__print(f, p, &ropts), 0);
	fclose(f);
	lead = strstr(text, "killed by the OOM killer (memory cgroup limit 64.00 MiB): live heap "
			    "8 B at death\n");
	rss = strstr(text, "  RSS at death: 12.00 KiB, of which\n");
	table = strstr(text, "top program points by BYTES LIVE AT DEATH\n");
	totals = strstr(text, "total allocations");
	cr_assert(lead && rss && table && totals, "%s", text);
	cr_expect(lead < rss && rss < table && table < totals, "%s", text);
	free(text);
	ropts.json = true;
	f = open_memstream(&text, &len);
	cr_assert_eq(report__print(f, p, &ropts), 0);
	fclose(f);
	cr_expect(strstr(text, "\"death\":\t\"killed by the OOM killer") != NULL, "%s", text);
	cr_expect(strstr(text, "\"anon\":\t4096") != NULL, "%s", text);
	free(text);
	dhat_profile__free(p);
}

/* One EV_MAPPING record without a stack (as munmap sends), for the tracker. */
static void feed(struct mappings *m, __u32 op, __u64 addr, __u64 len, __u64 old_addr, __u64 old_len)
{
	struct {
		struct mapping_event e;
		struct stack_snapshot s;
	} r = {.e = {.type = EV_MAPPING,
		     .op = op,
		     .addr = addr,
		     .len = len,
		     .old_addr = old_addr,
		     .old_len = old_len},
	       .s = {.ev_type = EV_MAPPING}};

	cr_assert_eq(mappings__handle(m, &r, sizeof(r)), 0);
}

static __u64 mapped_now(struct mappings *m)
{
	struct dhat_mappings d;
	__u64 b;

	cr_assert_eq(mappings__summary(m, NULL, &d), 0);
	b = d.outside_malloc + d.inside_malloc;
	dhat_mappings__release(&d);
	return b;
}

/* mmap, a hole punched by munmap, mremap, brk up and down: bytes mapped now add up. */
Test(death_unit, mappings_account_partial_unmaps_mremap_and_brk)
{
	struct mappings *m = mappings__new(getpid());
	struct dhat_mappings d;

	cr_assert_not_null(m);
	cr_expect_eq(mappings__summary(m, NULL, &d), -ENOENT, "nothing mapped yet");
	feed(m, MAP_OP_MMAP, 0x100000, 10 * 4096, 0, 0);
	feed(m, MAP_OP_MUNMAP, 0x100000 + 4096, 2 * 4096, 0, 0); /* a hole: split in two */
	cr_expect_eq(mapped_now(m), 8 * 4096);
	feed(m, MAP_OP_MUNMAP, 0x100000, 4096, 0, 0); /* the head */
	cr_expect_eq(mapped_now(m), 7 * 4096);
	feed(m, MAP_OP_MREMAP, 0x900000, 20 * 4096, 0x100000 + 3 * 4096, 7 * 4096);
	cr_expect_eq(mapped_now(m), 20 * 4096);
	feed(m, MAP_OP_MMAP, 0x900000, 4096 + 1, 0, 0); /* MAP_FIXED over it, rounded to pages */
	cr_expect_eq(mapped_now(m), 20 * 4096);
	feed(m, MAP_OP_BRK, 0x500000 + 8192, 0, 0x500000, 0);	     /* the break grows 2 pages */
	feed(m, MAP_OP_BRK, 0x500000 + 4096, 0, 0x500000 + 8192, 0); /* and shrinks 1 */
	cr_expect_eq(mapped_now(m), 21 * 4096);
	feed(m, MAP_OP_MUNMAP, 0x8ff000, 22 * 4096, 0, 0); /* more than the mapping, around it */
	cr_expect_eq(mapped_now(m), 4096, "the brk page: %llu", (unsigned long long)mapped_now(m));
	mappings__free(m);
}

Test(death_unit, allocator_frames_are_recognized)
{
	cr_expect(mappings__is_allocator_frame("0x7f01: sysmalloc (malloc.c:2600)"));
	cr_expect(mappings__is_allocator_frame("0x7f01: malloc (in /lib/libc.so.6)"));
	cr_expect_not(mappings__is_allocator_frame("0x401: malloc_pool (prog.c:3)"));
	cr_expect_not(mappings__is_allocator_frame("0x401: map_pool (prog.c:3)"));
}

/* A profile with a live-heap series and an RSS series: the timeline chart draws both; a
 * malformed RSS series (unequal lengths) is dropped and the chart has the heap alone. */
Test(death_unit, timeline_chart_draws_rss_next_to_the_heap)
{
	static const char *const RSS[] = {
	    ",\"rss\":{\"unit\":\"bytes\",\"t\":[0,5,9],\"anon\":[4096,65536,99999],"
	    "\"file\":[1,1,1],\"shmem\":[0,0,0],\"swap\":[0,0,0],"
	    "\"atEnd\":{\"t\":9,\"anon\":99999,\"file\":1,\"shmem\":0,\"swap\":0}}\n",
	    ",\"rss\":{\"t\":[0,5],\"anon\":[1],\"file\":[1],\"shmem\":[1]}\n",
	};

	for (int k = 0; k < 2; k++) {
		char *text = NULL, *svg = NULL, err[256];
		size_t len = 0, svg_len = 0;
		FILE *f = open_memstream(&text, &len);
		struct dhat_profile *p;

		fputs("{\"dhatFileVersion\":2,\"mode\":\"ebpf-heap\",\"verb\":\"Allocated\","
		      "\"bklt\":true,\"bkacc\":false,\"tu\":\"us\",\"Mtu\":\"s\",\"tuth\":10,"
		      "\"cmd\":\"x\",\"pid\":1,\"te\":10,\"tg\":5\n"
		      ",\"heapTimeline\":{\"t\":[0,5],\"b\":[8,16]}\n",
		      f);
		fputs(RSS[k], f);
		fputs(",\"pps\":[{\"tb\":16,\"tbk\":1,\"tl\":1,\"mb\":16,\"mbk\":1,\"gb\":16,"
		      "\"gbk\":1,\"eb\":16,\"ebk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"f\"]}\n",
		      f);
		fclose(f);
		p = dhat_profile__parse(text, len, "t.json", err, sizeof(err));
		cr_assert_not_null(p, "%s", err);
		cr_expect_eq(p->rss_cnt, k ? 0 : 3);
		cr_expect(!k || p->has_rss == false);
		if (!k)
			cr_expect_eq(p->rss_b[2], 100000, "anon + file + shmem");
		f = open_memstream(&svg, &svg_len);
		cr_assert_eq(export__timeline_profile_svg(p, f, NULL), 0);
		fclose(f);
		cr_expect_eq(strstr(svg, "<path id=\"rss\"") != NULL, k == 0, "%s", svg);
		cr_expect(strstr(svg, "<path id=\"line\"") != NULL, "%s", svg);
		free(svg);
		free(text);
		dhat_profile__free(p);
	}
}

/* #35: "memory mapped outside malloc" printed one site on several identical rows (stacks
 * that differ below the site). One row per site text, with the sums, at the first one's
 * place; sites in malloc stay out. */
Test(mappings, one_row_per_site)
{
	struct dhat_mapping_site sites[] = {
		{ .site = (char *)"pthread_create (pthread_create.c:650)  <-  run_workers (s.c:317)",
		  .bytes = 8 << 20, .count = 1 },
		{ .site = (char *)"pthread_create (pthread_create.c:650)  <-  main (d.c:349)",
		  .bytes = 4 << 20, .count = 1 },
		{ .site = (char *)"pthread_create (pthread_create.c:650)  <-  run_workers (s.c:317)",
		  .bytes = 8 << 20, .count = 2 },
		{ .site = (char *)"sysmalloc (malloc.c:2)", .bytes = 1 << 20, .count = 1,
		  .in_malloc = true },
	};
	struct dhat_mappings m = { .sites = sites, .cnt = 4 };
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	cr_assert_not_null(f);
	dhat_mappings__print(f, &m, 12, "end", false);
	fclose(f);
	cr_expect_str_eq(out,
		"\n  memory mapped outside malloc at end (anonymous, virtual)\n"
		"         16.00 MiB          3 maps    pthread_create (pthread_create.c:650)  <-  "
		"run_workers (s.c:317)\n"
		"          4.00 MiB          1 maps    pthread_create (pthread_create.c:650)  <-  "
		"main (d.c:349)\n");
	free(out);
}
