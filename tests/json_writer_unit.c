// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* json_writer.c: escaping, nesting, errors, and cJSON_Print's layout in PRETTY mode. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

static struct json_writer *jw;

static void setup(void)
{
	jw = json_writer__new(NULL, 0);
	cr_assert(jw);
}

static void teardown(void)
{
	json_writer__free(jw);
}

TestSuite(json_writer, .init = setup, .fini = teardown);

static const char *text(void)
{
	cr_assert_eq(json_writer__error(jw), 0, "error %d", json_writer__error(jw));
	return json_writer__buf(jw, NULL);
}

Test(json_writer, escapes_quotes_backslashes_and_control_characters)
{
	json_writer__string(jw, NULL, "q\"b\\ \b\f\n\r\t \x01\x1f\x7f end");
	cr_expect_str_eq(text(), "\"q\\\"b\\\\ \\b\\f\\n\\r\\t \\u0001\\u001f\x7f end\"");
}

Test(json_writer, utf8_passes_through)
{
	json_writer__string(jw, NULL, "\xc2\xb5s \xe2\x82\xac \xf0\x9f\x94\xa5");
	cr_expect_str_eq(text(), "\"\xc2\xb5s \xe2\x82\xac \xf0\x9f\x94\xa5\"");
}

Test(json_writer, compact_nesting_and_scalars)
{
	json_writer__begin_object(jw, NULL);
	json_writer__uint(jw, "u", UINT64_MAX);
	json_writer__int(jw, "i", INT64_MIN);
	json_writer__double(jw, "d", 0.1);
	json_writer__double(jw, "third", 1.0 / 3);
	json_writer__double(jw, "nan", 0.0 / 0.0);
	json_writer__bool(jw, "t", true);
	json_writer__bool(jw, "f", false);
	json_writer__null(jw, "n");
	json_writer__string(jw, "s", NULL);
	json_writer__begin_array(jw, "a");
	json_writer__begin_array(jw, NULL);
	json_writer__end_array(jw);
	json_writer__begin_object(jw, NULL);
	json_writer__raw(jw, "r", "1.5");
	json_writer__end_object(jw);
	json_writer__uint(jw, NULL, 7);
	json_writer__end_array(jw);
	json_writer__begin_object(jw, "e");
	json_writer__end_object(jw);
	json_writer__end_object(jw);
	cr_expect_str_eq(text(), "{\"u\":18446744073709551615,\"i\":-9223372036854775808,"
				 "\"d\":0.1,\"third\":0.33333333333333331,\"nan\":null,"
				 "\"t\":true,\"f\":false,\"n\":null,\"s\":null,"
				 "\"a\":[[],{\"r\":1.5},7],\"e\":{}}");
}

Test(json_writer, misuse_is_a_sticky_einval)
{
	json_writer__begin_object(jw, NULL);
	json_writer__uint(jw, NULL, 1); /* a member without a key */
	cr_expect_eq(json_writer__error(jw), -EINVAL);
	json_writer__end_object(jw);
	cr_expect_eq(json_writer__error(jw), -EINVAL, "errors stick");
}

Test(json_writer, unbalanced_ends_are_errors)
{
	json_writer__begin_array(jw, NULL);
	cr_expect_eq(json_writer__error(jw), -EINVAL, "an array still open");
	json_writer__end_object(jw);
	cr_expect_eq(json_writer__error(jw), -EINVAL, "closing the wrong kind");
}

Test(json_writer, an_item_in_an_array_takes_no_key)
{
	json_writer__begin_array(jw, NULL);
	json_writer__uint(jw, "k", 1);
	cr_expect_eq(json_writer__error(jw), -EINVAL);
}

Test(json_writer, depth_is_bounded)
{
	for (int i = 0; i <= JSON_WRITER_MAX_DEPTH; i++)
		json_writer__begin_array(jw, NULL);
	cr_expect_eq(json_writer__error(jw), -EINVAL);
}

/* The same document built as a cJSON tree and with the writer. */
static char *via_cjson(void)
{
	cJSON *root = cJSON_CreateObject(), *o, *a, *row;
	char *s;

	cJSON_AddStringToObject(root, "file", "a \"quoted\"\tpath\\x\n\x02");
	cJSON_AddNullToObject(root, "title");
	cJSON_AddRawToObject(root, "pid", "7");
	cJSON_AddBoolToObject(root, "bklt", true);
	o = cJSON_AddObjectToObject(root, "units");
	cJSON_AddStringToObject(o, "time", "\xc2\xb5s");
	cJSON_AddObjectToObject(o, "nothing");
	cJSON_AddArrayToObject(root, "empty");
	a = cJSON_AddArrayToObject(root, "rows");
	for (int i = 0; i < 3; i++) {
		cJSON *fr, *inner;

		row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "site", "f  <-  g");
		cJSON_AddRawToObject(row, "tb", "80");
		fr = cJSON_AddArrayToObject(row, "frames");
		for (int j = 0; j < i; j++)
			cJSON_AddItemToArray(fr, cJSON_CreateString("0x1: fn (a.c:3)"));
		inner = cJSON_CreateObject();
		cJSON_AddRawToObject(inner, "x", "1");
		cJSON_AddItemToArray(fr, inner);
		cJSON_AddItemToArray(fr, cJSON_CreateArray());
		cJSON_AddItemToArray(a, row);
	}
	s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}

static void via_writer(void)
{
	json_writer__begin_object(jw, NULL);
	json_writer__string(jw, "file", "a \"quoted\"\tpath\\x\n\x02");
	json_writer__null(jw, "title");
	json_writer__uint(jw, "pid", 7);
	json_writer__bool(jw, "bklt", true);
	json_writer__begin_object(jw, "units");
	json_writer__string(jw, "time", "\xc2\xb5s");
	json_writer__begin_object(jw, "nothing");
	json_writer__end_object(jw);
	json_writer__end_object(jw);
	json_writer__begin_array(jw, "empty");
	json_writer__end_array(jw);
	json_writer__begin_array(jw, "rows");
	for (int i = 0; i < 3; i++) {
		json_writer__begin_object(jw, NULL);
		json_writer__string(jw, "site", "f  <-  g");
		json_writer__uint(jw, "tb", 80);
		json_writer__begin_array(jw, "frames");
		for (int j = 0; j < i; j++)
			json_writer__string(jw, NULL, "0x1: fn (a.c:3)");
		json_writer__begin_object(jw, NULL);
		json_writer__uint(jw, "x", 1);
		json_writer__end_object(jw);
		json_writer__begin_array(jw, NULL);
		json_writer__end_array(jw);
		json_writer__end_array(jw);
		json_writer__end_object(jw);
	}
	json_writer__end_array(jw);
	json_writer__end_object(jw);
}

Test(json_writer, pretty_is_cjson_print_byte_for_byte)
{
	char *want = via_cjson();

	json_writer__free(jw);
	jw = json_writer__new(NULL, JSON_WRITER_PRETTY);
	cr_assert(jw && want);
	via_writer();
	cr_expect_str_eq(text(), want);
	free(want);
}

Test(json_writer, file_output_matches_the_buffer)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer *fw = json_writer__new(f, JSON_WRITER_PRETTY);

	cr_assert(f && fw);
	json_writer__free(jw);
	jw = fw;
	via_writer();
	cr_expect_eq(json_writer__error(jw), 0);
	cr_expect_null(json_writer__buf(jw, NULL));
	fclose(f);
	jw = json_writer__new(NULL, JSON_WRITER_PRETTY);
	json_writer__free(fw);
	via_writer();
	cr_expect_str_eq(buf, text());
	free(buf);
}
