// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* json_reader.c: scalars as read, items stepped through, the messages of syntax errors with
 * their positions, the input bounds, and reading files (plain, gzip, a directory). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "json_reader.h"
#include "test_util.h"

static const struct json_reader_limits LIM = {
    .str_max = 16,
    .str_why = " (why)",
    .inflate_ratio = 2,
    .inflate_floor = 1 << 20,
    .not_a = "a test",
};

static struct json_reader jr;
static char err[256];

static void teardown(void)
{
	json_reader__release(&jr);
}

TestSuite(json_reader, .fini = teardown);

static void start(const char *text)
{
	json_reader__init_buf(&jr, text, strlen(text), "t.json", err, sizeof(err), &LIM);
}

/* The one value of text, which must read. */
static struct json_value value_of(const char *text)
{
	struct json_value v;

	start(text);
	cr_assert_eq(json_reader__value(&jr, &v, 0), 0, "%s: %s", text, err);
	cr_assert_eq(json_reader__end(&jr), 0, "%s: %s", text, err);
	return v;
}

/* text must fail (read as one value, then the end) with message msg. */
static void expect_error(const char *text, const char *msg)
{
	struct json_value v;
	int ret;

	start(text);
	ret = json_reader__value(&jr, &v, 0);
	if (!ret)
		ret = json_reader__end(&jr);
	cr_assert_neq(ret, 0, "%s was accepted", text);
	cr_expect_str_eq(err, msg, "%s", text);
}

Test(json_reader, integers_are_exact_up_to_2_64)
{
	struct json_value v = value_of("18446744073709551615");

	cr_expect_eq(v.t, JSON_NUM);
	cr_expect(v.u64_ok);
	cr_expect_eq(v.u, UINT64_MAX);
	cr_expect_str_eq(v.num, "18446744073709551615");
	v = value_of("18446744073709551616");
	cr_expect_not(v.u64_ok, "2^64 does not fit");
	v = value_of("-1");
	cr_expect_not(v.u64_ok);
	cr_expect_eq(v.d, -1.0);
}

Test(json_reader, integral_floats_count_as_integers)
{
	struct json_value v = value_of("1e3");

	cr_expect(v.u64_ok);
	cr_expect_eq(v.u, 1000);
	v = value_of("2.0");
	cr_expect(v.u64_ok);
	cr_expect_eq(v.u, 2);
	v = value_of("2.5");
	cr_expect_not(v.u64_ok);
	cr_expect_eq(v.d, 2.5);
}

Test(json_reader, an_overlong_number_is_named_truncated)
{
	struct json_value v = value_of("123456789012345678901234567890123456789012345");

	cr_expect_not(v.u64_ok);
	cr_expect_str_eq(v.num, "123456789012345678901234567890123456...");
	cr_expect_str_eq(json_reader__describe(&v), v.num);
}

Test(json_reader, literals_and_types)
{
	struct json_value v = value_of(" true ");

	cr_expect_eq(v.t, JSON_BOOL);
	cr_expect(v.b);
	v = value_of("false");
	cr_expect_eq(v.t, JSON_BOOL);
	cr_expect_not(v.b);
	v = value_of("null");
	cr_expect_str_eq(json_reader__describe(&v), "null");
	v = value_of("[1, {\"a\": [true]}]");
	cr_expect_eq(v.t, JSON_ARR);
	cr_expect_str_eq(json_reader__describe(&v), "an array");
	v = value_of("{}");
	cr_expect_str_eq(json_reader__describe(&v), "an object");
	cr_expect_str_eq(json_reader__type_name(JSON_STR), "a string");
}

Test(json_reader, strings_decode_escapes_and_surrogate_pairs)
{
	struct json_value v = value_of("\"a\\n\\\"\\u00e9\\ud83d\\ude00\"");

	cr_expect_eq(v.t, JSON_STR);
	cr_expect_str_eq(jr.str, "a\n\"\xc3\xa9\xf0\x9f\x98\x80");
	cr_expect_eq(jr.str_len, strlen(jr.str));
	/* a lone surrogate and U+0000 (no C string holds it) become U+FFFD */
	value_of("\"\\ud800\\u0000\"");
	cr_expect_str_eq(jr.str, "\xef\xbf\xbd\xef\xbf\xbd");
}

Test(json_reader, items_of_an_object_and_an_array)
{
	const char *keys[] = {"a", "b"};
	bool first = true, more;
	struct json_value v;
	int n = 0;

	start("{\"a\": 1, \"b\": [2, 3]}");
	cr_assert_eq(json_reader__skip_ws(&jr), '{');
	json_reader__advance(&jr);
	for (;;) {
		cr_assert_eq(json_reader__next(&jr, true, &first, &more), 0, "%s", err);
		if (!more)
			break;
		cr_assert_lt(n, 2);
		cr_expect_str_eq(jr.str, keys[n++]);
		cr_assert_eq(json_reader__value(&jr, &v, 1), 0, "%s", err);
	}
	cr_expect_eq(n, 2);
	cr_expect_eq(v.t, JSON_ARR);
	cr_expect_eq(json_reader__end(&jr), 0);
}

Test(json_reader, syntax_errors_name_the_position_and_what_was_found)
{
	expect_error("[1,\n 2}", "t.json:2:3: not valid JSON: expected ',' or ']', found '}'");
	expect_error("{\"a\" 1}",
		     "t.json:1:6: not valid JSON: expected ':' after the key, found '1'");
	expect_error("{1: 2}", "t.json:1:2: not valid JSON: expected a key string, found '1'");
	expect_error("[1,",
		     "t.json:1:4: not valid JSON: expected a value, found the end of the file");
	expect_error("\"ab", "t.json:1:4: not valid JSON: expected '\"' to close the string, "
			     "found the end of the file");
	expect_error("\"a\x01\"", "t.json:1:3: not valid JSON: expected '\"' to close the string, "
				  "found byte 0x01");
	expect_error("\"\\x\"", "t.json:1:3: not valid JSON: expected an escape (\\\" \\\\ \\/ \\b "
				"\\f \\n \\r \\t \\uXXXX), found 'x'");
	expect_error("\"\\u12g4\"", "t.json:1:6: not valid JSON: expected 4 hex digits after \\u, "
				    "found 'g'");
	expect_error("01", "t.json:1:2: not valid JSON: unexpected data after the top-level value");
	expect_error("-",
		     "t.json:1:2: not valid JSON: expected a digit, found the end of the file");
	expect_error("1.", "t.json:1:3: not valid JSON: expected a digit after '.', found the end "
			   "of the file");
	expect_error("1e+", "t.json:1:4: not valid JSON: expected a digit in the exponent, found "
			    "the end of the file");
	expect_error("tru", "t.json:1:4: not valid JSON: expected 'true', found the end of the "
			    "file");
	expect_error("nul1", "t.json:1:4: not valid JSON: expected 'null', found '1'");
}

Test(json_reader, nesting_is_bounded)
{
	char text[2 * JSON_READER_MAX_DEPTH + 8];
	size_t n = 0;

	for (int i = 0; i <= JSON_READER_MAX_DEPTH; i++)
		text[n++] = '[';
	text[n] = '\0';
	expect_error(text, "t.json:1:257: not valid JSON: nested deeper than 256 levels");
}

Test(json_reader, a_bom_is_skipped_and_columns_count_after_it)
{
	start("\xef\xbb\xbf [x]");
	cr_assert_eq(json_reader__bom(&jr), 0);
	cr_expect_eq(jr.at.col, 1);
	struct json_value v;

	cr_expect_neq(json_reader__value(&jr, &v, 0), 0);
	cr_expect_str_eq(err, "t.json:1:3: not valid JSON: expected a value, found 'x'");
	start("\xef\xbb[]");
	cr_expect_neq(json_reader__bom(&jr), 0);
	cr_expect_str_eq(err, "t.json:1:3: not valid JSON: expected a UTF-8 byte-order mark, found "
			      "'['");
}

Test(json_reader, a_long_string_is_refused_in_the_callers_words)
{
	expect_error("\"0123456789abcdefg\"",
		     "t.json:1:2: a string longer than 16 bytes (why): not a test");
}

Test(json_reader, messages_are_one_terminal_safe_line)
{
	json_reader__init_buf(&jr, "?", 1, "a\nb\x1b", err, sizeof(err), &LIM);
	struct json_value v;

	cr_expect_neq(json_reader__value(&jr, &v, 0), 0);
	cr_expect_null(strchr(err, '\n'));
	cr_expect_null(strchr(err, '\x1b'));
}

/* Write text to a scratch file, gzip-compressed if gz; its path in path. */
static void put_file(char *path, size_t sz, const char *name, const char *text, bool gz)
{
	char dir[512];

	tu_scratch(dir, sizeof(dir), "json_reader");
	snprintf(path, sz, "%s/%s", dir, name);
	if (gz) {
		gzFile f = gzopen(path, "wb");

		cr_assert(f);
		cr_assert_eq(gzwrite(f, text, (unsigned)strlen(text)), (int)strlen(text));
		cr_assert_eq(gzclose(f), Z_OK);
	} else {
		cr_assert_eq(tu_spit(path, text, strlen(text)), 0);
	}
}

Test(json_reader, files_plain_and_gzip_read_alike)
{
	for (int gz = 0; gz < 2; gz++) {
		char path[600];
		struct json_value v;

		put_file(path, sizeof(path), gz ? "a.json.gz" : "a.json", "\n [\"x\", 42]", gz);
		cr_assert_eq(json_reader__open(&jr, path, err, sizeof(err), &LIM), 0, "%s", err);
		cr_assert_eq(json_reader__skip_ws(&jr), '[');
		cr_expect_eq(jr.at.line, 2);
		cr_expect_eq(jr.at.col, 2);
		cr_assert_eq(json_reader__value(&jr, &v, 0), 0, "%s", err);
		cr_expect_eq(v.t, JSON_ARR);
		cr_expect_eq(json_reader__end(&jr), 0, "%s", err);
		json_reader__release(&jr);
	}
}

Test(json_reader, a_directory_and_a_missing_file_are_refused)
{
	char dir[512], path[600];

	tu_scratch(dir, sizeof(dir), "json_reader");
	cr_expect_eq(json_reader__open(&jr, dir, err, sizeof(err), &LIM), -EISDIR);
	cr_expect(strstr(err, ": cannot read: Is a directory"), "%s", err);
	json_reader__release(&jr);
	snprintf(path, sizeof(path), "%s/none.json", dir);
	cr_expect_eq(json_reader__open(&jr, path, err, sizeof(err), &LIM), -ENOENT);
	cr_expect(strstr(err, ": cannot open: "), "%s", err);
}

Test(json_reader, a_gzip_bomb_is_refused)
{
	size_t n = (2u << 20) + 1;
	char *text = malloc(n + 1), path[600];
	struct json_value v;

	cr_assert(text);
	memset(text, ' ', n);
	text[n - 1] = '1';
	text[n] = '\0';
	put_file(path, sizeof(path), "bomb.json.gz", text, true);
	free(text);
	cr_assert_eq(json_reader__open(&jr, path, err, sizeof(err), &LIM), 0, "%s", err);
	cr_expect_neq(json_reader__value(&jr, &v, 0), 0);
	cr_expect(strstr(err, ": decompresses to more than 1048576 bytes (2 times the file, or 1 "
			      "MiB): not a test"),
		  "%s", err);
}
