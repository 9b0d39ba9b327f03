// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report - the seed harness's summary (alloc_profile.rs, report() and top_program_points())
 * printed from any DHAT v2 heap file loaded by dhat_reader.
 *
 * Output, byte for byte the seed's layout (widths included):
 *
 *	<blank line>
 *	==============================================================
 *	  TITLE
 *	  unit: UNIT x N                                    (only with a unit)
 *	--------------------------------------------------------------
 *	  total allocations : %12llu   (%12.0f per iter)    (the parenthesis only with N > 0)
 *	  total bytes       : %12llu   (%12.0f per iter)
 *	  peak live blocks  : %12llu                        (Σgbk)
 *	  peak live bytes   : %12llu                        (Σgb)
 *	<blank line>
 *	  top program points by TOTAL BYTES
 *	    %12llu B  %9llu allocs   SITE
 *	<blank line>
 *	  top program points by ALLOCATION COUNT
 *	    %9llu allocs  %12llu B   SITE
 *
 * SITE is the first frame that is not allocation plumbing, plus its caller, joined by
 * "  <-  ", each with the "0xADDR: " prefix removed; "<unattributed>" for an empty stack.
 * Per-iteration figures are total/N printed with %.0f, which rounds half to even on the
 * exact binary value exactly like Rust's {:.0}.
 */
#include "report.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"

#define DEFAULT_TOP 12
#define SITE_SEP "  <-  "

enum plumbing_match {
	MATCH_PREFIX, /* the cleaned frame starts with the pattern */
	MATCH_SYMBOL, /* the frame's symbol is exactly the pattern ("malloc (in ...)") */
};

struct plumbing {
	const char *pat;
	enum plumbing_match how;
};

/*
 * Frames that are allocation plumbing rather than a call site worth naming. The seed's
 * Rust list is kept as prefixes, except "malloc" and "realloc", which name C functions here
 * and are matched as whole symbols so that a user function such as realloc_buffer() stays
 * visible. Extend this table (or pass report_opts.skip) to hide more.
 */
static const struct plumbing PLUMBING[] = {
	/* the seed's list */
	{ "alloc::", MATCH_PREFIX },
	{ "<alloc::", MATCH_PREFIX },
	{ "core::", MATCH_PREFIX },
	{ "<core::", MATCH_PREFIX },
	{ "std::", MATCH_PREFIX },
	{ "<std::", MATCH_PREFIX },
	{ "hashbrown::", MATCH_PREFIX },
	{ "<hashbrown::", MATCH_PREFIX },
	{ "__rust", MATCH_PREFIX },
	{ "malloc", MATCH_SYMBOL },
	{ "realloc", MATCH_SYMBOL },
	{ "dhat::", MATCH_PREFIX },
	{ "<dhat::", MATCH_PREFIX }, /* dhat-rs keeps "<dhat::Alloc as ...GlobalAlloc>::alloc" */
	/* C allocator entry points and libc helpers that allocate */
	{ "calloc", MATCH_SYMBOL },
	{ "reallocarray", MATCH_SYMBOL },
	{ "free", MATCH_SYMBOL },
	{ "posix_memalign", MATCH_SYMBOL },
	{ "aligned_alloc", MATCH_SYMBOL },
	{ "memalign", MATCH_SYMBOL },
	{ "valloc", MATCH_SYMBOL },
	{ "pvalloc", MATCH_SYMBOL },
	{ "strdup", MATCH_SYMBOL },
	{ "strndup", MATCH_SYMBOL },
	{ "asprintf", MATCH_SYMBOL },
	{ "vasprintf", MATCH_SYMBOL },
	{ "getline", MATCH_SYMBOL },
	{ "getdelim", MATCH_SYMBOL },
	{ "open_memstream", MATCH_SYMBOL },
	/* glibc internals */
	{ "__libc_", MATCH_PREFIX },
	{ "_int_", MATCH_PREFIX },
};

/* One PP as the tables show it. */
struct row {
	uint64_t bytes, blocks;
	char *site; /* owned */
};

/* Strip the "0xADDR: " prefix: what remains is "symbol (file:line)". As the seed's
 * split_once(": "), so a frame without ": " stays whole. */
static const char *clean_frame(const char *raw)
{
	const char *p = strstr(raw, ": ");

	return p ? p + 2 : raw;
}

static bool matches(const char *frame, const char *pat, enum plumbing_match how)
{
	size_t n = strlen(pat);

	if (strncmp(frame, pat, n))
		return false;
	if (how == MATCH_PREFIX)
		return true;
	/* The symbol ends at the " (file:line)" / " (in obj)" suffix, or at a symbol version. */
	return frame[n] == '\0' || frame[n] == ' ' || frame[n] == '@';
}

static bool is_plumbing(const char *frame, const struct report_opts *opts)
{
	for (size_t i = 0; i < sizeof(PLUMBING) / sizeof(PLUMBING[0]); i++)
		if (matches(frame, PLUMBING[i].pat, PLUMBING[i].how))
			return true;
	for (size_t i = 0; opts && i < opts->skip_cnt; i++) {
		const char *pat = opts->skip[i];

		if (!pat || !*pat)
			continue;
		if (pat[0] == '=' ? matches(frame, pat + 1, MATCH_SYMBOL)
				  : matches(frame, pat, MATCH_PREFIX))
			return true;
	}
	return false;
}

/* The seed's attribution: first non-plumbing frame (or the first frame if all are), then
 * one more for context. Returns a new string or NULL. */
static char *site_of(const struct dhat_profile *p, const struct dhat_pp *pp,
		     const struct report_opts *opts)
{
	const char *a, *b;
	size_t head = 0;
	char *s;

	if (!pp->fs_cnt)
		return strdup("<unattributed>");
	for (size_t i = 0; i < pp->fs_cnt; i++) {
		if (!is_plumbing(clean_frame(dhat_profile__frame(p, pp->fs[i])), opts)) {
			head = i;
			break;
		}
	}
	a = clean_frame(dhat_profile__frame(p, pp->fs[head]));
	if (head + 1 >= pp->fs_cnt)
		return strdup(a);
	b = clean_frame(dhat_profile__frame(p, pp->fs[head + 1]));
	if (asprintf(&s, "%s" SITE_SEP "%s", a, b) < 0)
		return NULL;
	return s;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b ? 1 : 0;
}

/* By bytes desc, then blocks desc, then site text: a total order, so qsort is stable enough
 * (rows that compare equal print identically). */
static int cmp_by_bytes(const void *x, const void *y)
{
	const struct row *a = *(const struct row *const *)x, *b = *(const struct row *const *)y;
	int c = cmp_u64_desc(a->bytes, b->bytes);

	if (!c)
		c = cmp_u64_desc(a->blocks, b->blocks);
	return c ? c : strcmp(a->site, b->site);
}

static int cmp_by_blocks(const void *x, const void *y)
{
	const struct row *a = *(const struct row *const *)x, *b = *(const struct row *const *)y;
	int c = cmp_u64_desc(a->blocks, b->blocks);

	if (!c)
		c = cmp_u64_desc(a->bytes, b->bytes);
	return c ? c : strcmp(a->site, b->site);
}

int report__print(FILE *out, const struct dhat_profile *p, const struct report_opts *opts)
{
	size_t top = opts && opts->top ? opts->top : DEFAULT_TOP;
	unsigned long iters = opts ? opts->iterations : 0;
	const char *title = opts && opts->title ? opts->title : p->path;
	struct row *rows = NULL, **order = NULL;
	size_t n = p->pp_cnt, shown;
	int err = 0;

	if (!opts || !opts->title) {
		const char *slash = strrchr(title, '/');

		if (slash && slash[1])
			title = slash + 1;
	}
	rows = calloc(n ? n : 1, sizeof(*rows));
	order = calloc(n ? n : 1, sizeof(*order));
	if (!rows || !order) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		rows[i].bytes = p->pps[i].tb;
		rows[i].blocks = p->pps[i].tbk;
		rows[i].site = site_of(p, &p->pps[i], opts);
		if (!rows[i].site) {
			err = -ENOMEM;
			goto cleanup;
		}
		order[i] = &rows[i];
	}

	fputs("\n==============================================================\n", out);
	fprintf(out, "  %s\n", title);
	if (opts && opts->unit)
		fprintf(out, "  unit: %s x %lu\n", opts->unit, iters);
	fputs("--------------------------------------------------------------\n", out);
	fprintf(out, "  total allocations : %12llu", (unsigned long long)p->total_blocks);
	if (iters)
		fprintf(out, "   (%12.0f per iter)", (double)p->total_blocks / (double)iters);
	fprintf(out, "\n  total bytes       : %12llu", (unsigned long long)p->total_bytes);
	if (iters)
		fprintf(out, "   (%12.0f per iter)", (double)p->total_bytes / (double)iters);
	fprintf(out, "\n  peak live blocks  : %12llu\n", (unsigned long long)p->gmax_blocks);
	fprintf(out, "  peak live bytes   : %12llu\n", (unsigned long long)p->gmax_bytes);

	shown = n < top ? n : top;
	fputs("\n  top program points by TOTAL BYTES\n", out);
	qsort(order, n, sizeof(*order), cmp_by_bytes);
	for (size_t i = 0; i < shown; i++)
		fprintf(out, "    %12llu B  %9llu allocs   %s\n",
			(unsigned long long)order[i]->bytes, (unsigned long long)order[i]->blocks,
			order[i]->site);
	fputs("\n  top program points by ALLOCATION COUNT\n", out);
	qsort(order, n, sizeof(*order), cmp_by_blocks);
	for (size_t i = 0; i < shown; i++)
		fprintf(out, "    %9llu allocs  %12llu B   %s\n",
			(unsigned long long)order[i]->blocks, (unsigned long long)order[i]->bytes,
			order[i]->site);
	if (fflush(out) || ferror(out))
		err = -EIO;

cleanup:
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].site);
	free(rows);
	free(order);
	return err;
}

int report__print_file(FILE *out, const char *path, const struct report_opts *opts, char *err,
		       size_t errsz)
{
	struct dhat_profile *p;
	int ret;

	p = dhat_profile__load(path, err, errsz);
	if (!p)
		return errno ? -errno : -EINVAL;
	ret = report__print(out, p, opts);
	if (ret && err && errsz)
		snprintf(err, errsz, "%s: cannot print the report: %s", path, strerror(-ret));
	dhat_profile__free(p);
	return ret;
}
