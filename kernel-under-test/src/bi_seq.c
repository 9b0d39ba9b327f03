/* SPDX-License-Identifier: MIT */
/*
 * bi_seq.c - seq: print a numeric sequence. Besides the text it attaches structured data
 * (a JSON number array, data_is_value=false), which scatter uses for typed items.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "exec.h"
#include "kernel.h"
#include "util.h"

const char bi_seq_usage[] =
	"Usage: seq [-s SEP] [-w] [FIRST [INCREMENT]] LAST\n"
	"Print numbers from FIRST (default 1) to LAST by INCREMENT (default 1).\n"
	"  -s SEP   separator (default newline); the output always ends with a newline\n"
	"  -w       pad with leading zeros to equal width\n";

struct seq_args {
	double first, inc, last;
	const char *sep;
	bool pad;
};

/* seq parses its operands as f64, as kaish; inf/nan are rejected. */
static bool parse_num(const char *s, double *v)
{
	char *end;
	if (!s || !*s)
		return false;
	*v = strtod(s, &end);
	return !*end && isfinite(*v);
}

/* Shared by the runtime and the validator (literal args; NULL = unknown). */
static int seq_parse(int argc, char **argv, struct seq_args *a, char **msg, bool partial)
{
	const char *nums[3];
	int n = 0;
	a->sep = "\n";
	a->pad = false;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (s && !strcmp(s, "-s")) {
			if (++i >= argc) {
				*msg = strdup("option -s needs a value");
				return -1;
			}
			a->sep = argv[i] ? argv[i] : "\n";
		} else if (s && !strcmp(s, "-w")) {
			a->pad = true;
		} else if (s && s[0] == '-' && s[1] && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.') {
			struct sbuf b;
			sb_init(&b);
			sb_printf(&b, "unknown option '%s'", s);
			*msg = sb_detach(&b);
			return -1;
		} else if (n < 3) {
			nums[n++] = s;
		} else {
			*msg = strdup("too many arguments");
			return -1;
		}
	}
	if (n == 0) {
		*msg = strdup("missing operand");
		return -1;
	}
	double v[3];
	for (int i = 0; i < n; i++) {
		if (!nums[i]) {
			if (partial)
				return 0; /* computed argument: checked at run time */
			*msg = strdup("invalid number");
			return -1;
		}
		if (!parse_num(nums[i], &v[i])) {
			struct sbuf b;
			sb_init(&b);
			sb_printf(&b, "invalid floating point argument: '%s'", nums[i]);
			*msg = sb_detach(&b);
			return -1;
		}
	}
	a->first = n >= 2 ? v[0] : 1;
	a->inc = n == 3 ? v[1] : 1;
	a->last = v[n - 1];
	if (a->inc == 0) {
		*msg = strdup("increment must not be 0");
		return -1;
	}
	return 0;
}

/* Validator hook: increment 0 and malformed literal numbers are rejected statically. */
int bi_seq_check(int argc, char **argv, char **msg)
{
	struct seq_args a;
	return seq_parse(argc, argv, &a, msg, true);
}

/* Integers print as integers when every value is integral; else %g. */
int bi_seq(struct bi_ctx *c, int argc, char **argv)
{
	struct seq_args a;
	char *msg = NULL;
	if (seq_parse(argc, argv, &a, &msg, false) < 0) {
		bi_err(c, "%s", msg ? msg : "invalid arguments");
		free(msg);
		return KAISH_EXIT_USAGE;
	}
	bool integral = a.first == floor(a.first) && a.inc == floor(a.inc) &&
			fabs(a.first) < 1e15 && fabs(a.last) < 1e15;
	int width = 0;
	if (a.pad && integral) {
		char t[64];
		int w1 = snprintf(t, sizeof(t), "%.0f", a.first);
		int w2 = snprintf(t, sizeof(t), "%.0f", floor(a.last));
		width = w1 > w2 ? w1 : w2;
	}
	struct sbuf *out = c->io->out, data;
	sb_init(&data);
	sb_addc(&data, '[');
	long count = 0;
	for (long i = 0;; i++) {
		double v = a.first + (double)i * a.inc;
		if ((a.inc > 0 && v > a.last + 1e-9) || (a.inc < 0 && v < a.last - 1e-9))
			break;
		/* `seq 1 1e57` never ends (found by fuzzing): honour cancellation and the request
		 * deadline every 4096 values, and stop when memory runs out. */
		if (i && !(i & 4095) && kernel_interrupted(c->k, c->io->err)) {
			sb_free(&data);
			return c->k->exit_code;
		}
		if (out->oom || data.oom)
			break;
		char t[64];
		if (integral)
			snprintf(t, sizeof(t), "%0*.0f", width, v);
		else
			snprintf(t, sizeof(t), "%g", v);
		if (count)
			sb_adds(out, a.sep);
		sb_adds(out, t);
		/* The data array carries plain numbers (no -w padding). */
		if (integral)
			sb_printf(&data, "%s%.0f", count ? "," : "", v);
		else
			sb_printf(&data, "%s%.17g", count ? "," : "", v);
		count++;
	}
	if (count)
		sb_addc(out, '\n');
	sb_addc(&data, ']');
	if (data.oom || out->oom) {
		sb_free(&data);
		bi_err(c, "out of memory");
		return 1;
	}
	kernel_set_data(c->k, sb_detach(&data), false);
	return 0;
}
