/* SPDX-License-Identifier: MIT */
/* bi_wc.c - wc: count lines, words and bytes. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "exec.h"
#include "util.h"

const char bi_wc_usage[] =
	"Usage: wc [-l] [-w] [-c] [-m] [FILE]...\n"
	"Count newlines, words and bytes of each FILE or stdin (no name is printed for stdin).\n"
	"  -l, --lines   newlines    -w, --words   words\n"
	"  -c, --bytes   bytes       -m, --chars   characters (UTF-8 code points)\n"
	"Several columns are right-aligned to a common width.\n";

struct wc_counts {
	size_t lines, words, bytes, chars;
};

/* Words are maximal runs of non-space bytes; chars count UTF-8 lead bytes. */
static void wc_count(const char *buf, size_t len, struct wc_counts *c)
{
	bool in_word = false;
	memset(c, 0, sizeof(*c));
	c->bytes = len;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];
		if (ch == '\n')
			c->lines++;
		if ((ch & 0xc0) != 0x80)
			c->chars++;
		if (isspace(ch))
			in_word = false;
		else if (!in_word) {
			in_word = true;
			c->words++;
		}
	}
}

/* stdin prints bare counts (no name); several files add a total row. */
int bi_wc(struct bi_ctx *c, int argc, char **argv)
{
	bool l = false, w = false, b = false, m = false;
	struct strv files;
	int rc = 0;
	strv_init(&files);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--lines")) l = true;
		else if (!strcmp(a, "--words")) w = true;
		else if (!strcmp(a, "--bytes")) b = true;
		else if (!strcmp(a, "--chars")) m = true;
		else if (a[0] == '-' && a[1]) {
			for (const char *f = a + 1; *f; f++) {
				if (*f == 'l') l = true;
				else if (*f == 'w') w = true;
				else if (*f == 'c') b = true;
				else if (*f == 'm') m = true;
				else {
					bi_err(c, "unknown option '-%c'", *f);
					strv_free(&files);
					return KAISH_EXIT_USAGE;
				}
			}
		} else
			strv_pushdup(&files, a);
	}
	if (!l && !w && !b && !m)
		l = w = b = true;
	int n = files.n ? files.n : 1;
	struct wc_counts *cnt = calloc((size_t)n + 1, sizeof(*cnt));
	bool *ok = calloc((size_t)n, sizeof(*ok));
	if (!cnt || !ok) {
		free(cnt);
		free(ok);
		strv_free(&files);
		return 1;
	}
	if (!files.n) {
		size_t len;
		const char *in = bi_stdin(c, &len);
		wc_count(in, len, &cnt[0]);
		ok[0] = true;
	}
	for (int i = 0; i < files.n; i++) {
		char *buf;
		size_t len;
		int e = bi_read_input(c, files.v[i], &buf, &len);
		if (e) {
			rc = e;
			continue;
		}
		wc_count(buf, len, &cnt[i]);
		ok[i] = true;
		free(buf);
	}
	struct wc_counts *tot = &cnt[n];
	for (int i = 0; i < n; i++) {
		tot->lines += cnt[i].lines;
		tot->words += cnt[i].words;
		tot->bytes += cnt[i].bytes;
		tot->chars += cnt[i].chars;
	}
	int cols = l + w + b + m;
	int width = 0;
	if (cols > 1 || files.n > 1) {
		char t[32];
		/* Width from the displayed columns of the total row (the largest values). */
		size_t mx = 0;
		if (l && tot->lines > mx) mx = tot->lines;
		if (w && tot->words > mx) mx = tot->words;
		if (m && tot->chars > mx) mx = tot->chars;
		if (b && tot->bytes > mx) mx = tot->bytes;
		width = snprintf(t, sizeof(t), "%zu", mx);
	}
	int rows = files.n > 1 ? n + 1 : n;
	for (int i = 0; i < rows; i++) {
		if (i < n && !ok[i])
			continue;
		struct wc_counts *x = &cnt[i < n ? i : n];
		const char *sep = "";
		if (l) { sb_printf(c->io->out, "%s%*zu", sep, width, x->lines); sep = " "; }
		if (w) { sb_printf(c->io->out, "%s%*zu", sep, width, x->words); sep = " "; }
		if (m) { sb_printf(c->io->out, "%s%*zu", sep, width, x->chars); sep = " "; }
		if (b) { sb_printf(c->io->out, "%s%*zu", sep, width, x->bytes); }
		if (files.n)
			sb_printf(c->io->out, " %s", i < n ? files.v[i] : "total");
		sb_addc(c->io->out, '\n');
	}
	free(cnt);
	free(ok);
	strv_free(&files);
	return rc;
}
