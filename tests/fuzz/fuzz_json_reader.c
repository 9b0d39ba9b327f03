// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the JSON tokenizer alone (user/util/json_reader.c): any bytes are
 * walked as one JSON text, descending into every object and array (the first byte's low
 * bit picks skipping them with json_reader__value instead, the other path through the
 * nesting). A rejected text must come with one non-empty line of error; an accepted value
 * must be self-consistent (a string's length, a number's text). ASan/UBSan do the rest.
 * Seed corpus: tests/fuzz/corpus/dhat_reader/ (JSON texts).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

static const struct json_reader_limits LIM = {
	.str_max = 4096,
	.str_why = "",
	.inflate_ratio = 1,
	.inflate_floor = 1,
	.not_a = "a fuzz input",
};

/* A scalar's invariants. */
static void check(const struct json_reader *jr, const struct json_value *v)
{
	if (v->t == JSON_STR && (jr->str_len != strlen(jr->str) || jr->str_len > LIM.str_max))
		__builtin_trap(); /* no NUL inside a decoded string, none past the bound */
	if (v->t == JSON_NUM && (!v->num[0] || strlen(v->num) >= JSON_READER_NUM_TXT))
		__builtin_trap();
	if (v->t != JSON_NUM && v->u64_ok)
		__builtin_trap();
}

/* value, descending into composites as a schema reader does. 0 or -errno. */
static int walk(struct json_reader *jr, int depth, bool skip)
{
	struct json_value v;
	bool first = true, more, obj;
	int c = json_reader__skip_ws(jr), err;

	if (skip || (c != '{' && c != '[') || depth >= JSON_READER_MAX_DEPTH) {
		if ((err = json_reader__value(jr, &v, depth)))
			return err;
		check(jr, &v);
		return 0;
	}
	obj = c == '{';
	json_reader__advance(jr);
	for (;;) {
		if ((err = json_reader__next(jr, obj, &first, &more)))
			return err;
		if (!more)
			return 0;
		if (obj && jr->str_len != strlen(jr->str))
			__builtin_trap();
		if ((err = walk(jr, depth + 1, false)))
			return err;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_reader jr;
	char err[512];
	int ret;

	json_reader__init_buf(&jr, (const char *)data, size, "fuzz", err, sizeof(err), &LIM);
	ret = json_reader__bom(&jr);
	if (!ret)
		ret = walk(&jr, 0, size && (data[0] & 1));
	if (!ret)
		ret = json_reader__end(&jr);
	if (ret && (!err[0] || strchr(err, '\n')))
		__builtin_trap(); /* every rejection says why, on one line */
	json_reader__release(&jr);
	return 0;
}
