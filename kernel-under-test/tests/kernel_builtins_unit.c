/* SPDX-License-Identifier: MIT */
/*
 * kernel_builtins_unit.c - every builtin, table-driven (toybox style): name, setup script,
 * script, expected out, exit code, status, err substring.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_harness.h"


#define FILES "printf_unused=1; echo 'b 2' > t.txt; echo 'a 1' >> t.txt; echo 'c 3' >> t.txt"
#define TREE "mkdir -p src/sub; echo 'TODO one' > src/a.txt; echo 'nothing' > src/b.txt; " \
	     "echo 'todo two' > src/sub/c.txt; echo 'TODO hidden' > src/.h.txt"

static const struct kcase echo_seq[] = {
	{ "echo", NULL, "echo hello world", "hello world\n", 0, OK, "" },
	{ "echo -n", NULL, "echo -n a b", "a b", 0, OK, "" },
	{ "echo --", NULL, "echo -- -n", "-n\n", 0, OK, "" },
	{ "echo help", NULL, "echo --help | head -n 1", "Usage: echo [-n] [ARG]...\n", 0, OK, "" },
	{ "seq last", NULL, "seq 3", "1\n2\n3\n", 0, OK, "" },
	{ "seq first last", NULL, "seq 3 5", "3\n4\n5\n", 0, OK, "" },
	{ "seq inc", NULL, "seq 1 2 7", "1\n3\n5\n7\n", 0, OK, "" },
	{ "seq down", NULL, "seq 3 -1 1", "3\n2\n1\n", 0, OK, "" },
	{ "seq empty", NULL, "seq 5 1", "", 0, OK, "" },
	{ "seq sep", NULL, "seq -s , 3", "1,2,3\n", 0, OK, "" },
	{ "seq pad", NULL, "seq -w 8 10", "08\n09\n10\n", 0, OK, "" },
	{ "seq float", NULL, "seq 1.5 0.5 3", "1.5\n2\n2.5\n3\n", 0, OK, "" },
	{ "seq bad", NULL, "seq x", "", 2, KAISH_ERR_VALIDATION, "invalid floating point" },
	{ "seq loop count", NULL, "n=0; for i in $(seq 1 50); do n=$((n+1)); done; echo $n", "50\n", 0, OK, "" },
};

static const struct kcase grep_cases[] = {
	{ "grep file", TREE, "grep TODO src/a.txt", "TODO one\n", 0, OK, "" },
	{ "grep no match", TREE, "grep zzz src/a.txt", "", 1, OK, "" },
	{ "grep -n", TREE, "grep -n one src/a.txt", "1:TODO one\n", 0, OK, "" },
	{ "grep -i", TREE, "grep -i todo src/sub/c.txt", "todo two\n", 0, OK, "" },
	{ "grep -v", TREE, "grep -v TODO src/a.txt src/b.txt", "src/b.txt:nothing\n", 0, OK, "" },
	{ "grep -c", TREE, "grep -c o src/a.txt", "1\n", 0, OK, "" },
	{ "grep -r hides hidden", TREE, "grep -r TODO src", "src/a.txt:TODO one\n", 0, OK, "" },
	{ "grep -ri", TREE, "grep -ri todo src", "src/a.txt:TODO one\nsrc/sub/c.txt:todo two\n", 0, OK, "" },
	{ "grep -rl", TREE, "grep -rli todo .", "./src/a.txt\n./src/sub/c.txt\n", 0, OK, "" },
	{ "grep -rn dot", TREE, "cd src; grep -rn two .", "./sub/c.txt:1:todo two\n", 0, OK, "" },
	{ "grep gitignore", TREE "; echo 'sub/' > src/.gitignore", "grep -ril todo src", "src/a.txt\n", 0, OK, "" },
	{ "grep gitignore file glob", TREE "; echo '*.txt' > .gitignore", "grep -ril todo .", "", 1, OK, "" },
	{ "grep gitignore negation", TREE "; printf_x=1; echo '*.txt' > .gitignore; echo '!a.txt' >> .gitignore",
	  "grep -ril todo .", "./src/a.txt\n", 0, OK, "" },
	{ "grep -E alternation", TREE, "grep -E 'one|two' src/a.txt src/sub/c.txt",
	  "src/a.txt:TODO one\nsrc/sub/c.txt:todo two\n", 0, OK, "" },
	{ "grep -F", NULL, "echo 'a.b' > f; echo axb >> f; grep -F a.b f", "a.b\n", 0, OK, "" },
	{ "grep -w", NULL, "echo 'cat concat' > f; echo 'concat' >> f; grep -w cat f", "cat concat\n", 0, OK, "" },
	{ "grep -o", NULL, "echo 'ab ab' | grep -o ab", "ab\nab\n", 0, OK, "" },
	{ "grep -q", TREE, "grep -q TODO src/a.txt; echo $?", "0\n", 0, OK, "" },
	{ "grep stdin", NULL, "seq 1 12 | grep 1", "1\n10\n11\n12\n", 0, OK, "" },
	{ "grep -e", NULL, "echo -x | grep -e -x", "-x\n", 0, OK, "" },
	{ "grep missing file", NULL, "grep a nofile", "", 2, OK, "nofile" },
	{ "grep dir without -r", TREE, "grep a src", "", 2, OK, "Is a directory" },
	{ "grep \\d", NULL, "echo 'a1' | grep '\\d'", "a1\n", 0, OK, "" },
};

static const struct kcase sed_cases[] = {
	{ "sed first", NULL, "echo 'foo foo' | sed 's/foo/X/'", "X foo\n", 0, OK, "" },
	{ "sed g", NULL, "echo 'foo foo' | sed 's/foo/X/g'", "X X\n", 0, OK, "" },
	{ "sed N", NULL, "echo 'foo foo foo' | sed 's/foo/X/2'", "foo X foo\n", 0, OK, "" },
	{ "sed i", NULL, "echo Foo | sed 's/foo/bar/i'", "bar\n", 0, OK, "" },
	{ "sed &", NULL, "echo ab | sed 's/b/[&]/'", "a[b]\n", 0, OK, "" },
	{ "sed groups ERE", NULL, "echo ab | sed 's/(a)(b)/\\2\\1/'", "ba\n", 0, OK, "" },
	{ "sed groups BRE", NULL, "echo ab | sed 's/\\(a\\)\\(b\\)/\\2\\1/'", "ba\n", 0, OK, "" },
	{ "sed delim", NULL, "echo a/b | sed 's|/|-|'", "a-b\n", 0, OK, "" },
	{ "sed -n p", NULL, "seq 5 | sed -n 2p", "2\n", 0, OK, "" },
	{ "sed d", NULL, "seq 3 | sed 2d", "1\n3\n", 0, OK, "" },
	{ "sed $", NULL, "seq 3 | sed -n '$p'", "3\n", 0, OK, "" },
	{ "sed /re/d", NULL, "seq 12 | sed '/1/d'", "2\n3\n4\n5\n6\n7\n8\n9\n", 0, OK, "" },
	{ "sed q", NULL, "seq 5 | sed 2q", "1\n2\n", 0, OK, "" },
	{ "sed -e -e", NULL, "echo abc | sed -e s/a/1/ -e s/c/3/", "1b3\n", 0, OK, "" },
	{ "sed ; script", NULL, "echo abc | sed 's/a/1/;s/b/2/'", "12c\n", 0, OK, "" },
	{ "sed s///p -n", NULL, "printf_x=1; seq 3 | sed -n 's/2/two/p'", "two\n", 0, OK, "" },
	{ "sed line range (§3.2 sed, issue 21)", NULL, "seq 1 40 | sed '2,39d'", "1\n40\n", 0, OK, "" },
	{ "sed regex range (§3.2 sed)", NULL, "sed '/a/,/b/d' <<EOF\nx\na\n1\nb\n2\na\nb\ny\nEOF", "x\n2\ny\n", 0, OK, "" },
	{ "sed range to $ (§3.2 sed)", NULL, "seq 1 5 | sed -n '4,$p'", "4\n5\n", 0, OK, "" },
	{ "sed range end before start: one line (§3.2 sed)", NULL, "seq 1 5 | sed '3,1d'", "1\n2\n4\n5\n", 0, OK, "" },
	{ "sed range end looked for after start (§3.2 sed)", NULL, "seq 1 6 | sed '2,/[0-9]/d'", "1\n4\n5\n6\n", 0, OK, "" },
	{ "sed regex to line range (§3.2 sed)", NULL, "seq 1 6 | sed -n '/2/,4p'", "2\n3\n4\n", 0, OK, "" },
	{ "sed range reopens (§3.2 sed)", NULL, "seq 1 12 | sed -n '/^1/,/^1/p'", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", 0, OK, "" },
	{ "sed range with s (§3.2 sed)", NULL, "seq 1 4 | sed '2,3s/^/x/'", "1\nx2\nx3\n4\n", 0, OK, "" },
	{ "sed range missing end (§2.3 4 validator)", NULL, "seq 1 3 | sed '2,d'", "", 2, KAISH_ERR_VALIDATION, "unexpected `,'" },
	{ "sed file", FILES, "sed 's/ .*//' t.txt", "b\na\nc\n", 0, OK, "" },
	{ "sed -i", FILES, "sed -i 's/a 1/A/' t.txt; cat t.txt", "b 2\nA\nc 3\n", 0, OK, "" },
	{ "sed no newline kept", NULL, "echo -n abc | sed s/b/B/", "aBc", 0, OK, "" },
	{ "sed missing script", NULL, "sed", "", 2, KAISH_ERR_VALIDATION, "missing script" },
};

static const struct kcase text_cases[] = {
	{ "wc -l stdin", NULL, "seq 10 | wc -l", "10\n", 0, OK, "" },
	{ "wc default", NULL, "echo 'a b' | wc", "1 2 4\n", 0, OK, "" },
	{ "wc -w", NULL, "echo 'a b c' | wc -w", "3\n", 0, OK, "" },
	{ "wc -c", NULL, "echo abc | wc -c", "4\n", 0, OK, "" },
	{ "wc aligned", NULL, "seq 100 | wc", "100 100 292\n", 0, OK, "" },
	{ "wc files", FILES, "wc -l t.txt t.txt", "3 t.txt\n3 t.txt\n6 total\n", 0, OK, "" },
	{ "wc file", FILES, "wc -l t.txt", "3 t.txt\n", 0, OK, "" },
	{ "cat", FILES, "cat t.txt", "b 2\na 1\nc 3\n", 0, OK, "" },
	{ "cat concat", FILES, "cat t.txt t.txt | wc -l", "6\n", 0, OK, "" },
	{ "cat stdin", NULL, "echo x | cat", "x\n", 0, OK, "" },
	{ "cat dash", FILES, "echo x | cat - t.txt | head -n 2", "x\nb 2\n", 0, OK, "" },
	{ "cat missing", NULL, "cat nope", "", 1, OK, "nope" },
	{ "head", NULL, "seq 20 | head", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", 0, OK, "" },
	{ "head -n", NULL, "seq 5 | head -n 2", "1\n2\n", 0, OK, "" },
	{ "head -N", NULL, "seq 5 | head -3", "1\n2\n3\n", 0, OK, "" },
	{ "head -c", NULL, "echo abcdef | head -c 3", "abc", 0, OK, "" },
	{ "tail", NULL, "seq 5 | tail -n 2", "4\n5\n", 0, OK, "" },
	{ "tail +N", NULL, "seq 5 | tail -n +4", "4\n5\n", 0, OK, "" },
	{ "tail no final newline", NULL, "echo -n 'a\nb' | tail -n 1", "b", 0, OK, "" },
	{ "tail more than lines", NULL, "seq 2 | tail -n 5", "1\n2\n", 0, OK, "" },
	{ "sort", FILES, "sort t.txt", "a 1\nb 2\nc 3\n", 0, OK, "" },
	{ "sort -r", FILES, "sort -r t.txt", "c 3\nb 2\na 1\n", 0, OK, "" },
	{ "sort -n", NULL, "echo 10 > n; echo 9 >> n; echo 100 >> n; sort -n n", "9\n10\n100\n", 0, OK, "" },
	{ "sort -u", NULL, "echo 'b\na\nb' | sort -u", "a\nb\n", 0, OK, "" },
	{ "uniq", NULL, "echo 'a\na\nb\na' | uniq", "a\nb\na\n", 0, OK, "" },
	{ "uniq -c", NULL, "echo 'a\na\nb' | uniq -c", "      2 a\n      1 b\n", 0, OK, "" },
	{ "uniq -d", NULL, "echo 'a\na\nb' | uniq -d", "a\n", 0, OK, "" },
	{ "cut -f", NULL, "echo 'a:b:c' | cut -d : -f 2,3", "b:c\n", 0, OK, "" },
	{ "cut range", NULL, "echo 'a:b:c:d' | cut -d: -f2-", "b:c:d\n", 0, OK, "" },
	{ "cut -c", NULL, "echo abcdef | cut -c 2-4", "bcd\n", 0, OK, "" },
	{ "cut no list (builtin_kernel: cut_without_field_or_char_spec_errors)", NULL, "echo a | cut", "", 1, OK, "cut: must specify either -f or -c" },
	{ "tr", NULL, "echo hello | tr a-z A-Z", "HELLO\n", 0, OK, "" },
	{ "tr -d", NULL, "echo hello | tr -d l", "heo\n", 0, OK, "" },
	{ "tr newline", NULL, "echo 'a b' | tr ' ' '\\n'", "a\nb\n", 0, OK, "" },
};

static const struct kcase fs_cases[] = {
	{ "cd / is the memory root (§4.2)", NULL, "cd /; pwd; ls", "/\ntmp\n", 0, OK, "" },
	{ "pwd", NULL, "mkdir d; cd d; pwd | grep -c '^/tmp/kaish-test-.*/d$'", "1\n", 0, OK, "" },
	{ "mkdir and ls", NULL, "mkdir d; touch d/b d/a; ls d", "a\nb\n", 0, OK, "" },
	{ "ls hidden", NULL, "touch .h v; ls", "v\n", 0, OK, "" },
	{ "ls -a", NULL, "touch .h v; ls -a", ".h\nv\n", 0, OK, "" },
	{ "ls -l", NULL, "echo abc > f; ls -l | wc -l", "1\n", 0, OK, "" },
	{ "ls file", NULL, "touch f; ls f", "f\n", 0, OK, "" },
	{ "ls missing", NULL, "ls nope", "", 1, OK, "ls: cannot access 'nope'" },
	{ "mkdir exists", NULL, "mkdir d; mkdir d", "", 1, OK, "exists" },
	{ "mkdir -p", NULL, "mkdir -p a/b/c; mkdir -p a/b; ls a/b", "c\n", 0, OK, "" },
	{ "mkdir missing parent", NULL, "mkdir x/y", "", 1, OK, "" "x/y" },
	{ "touch", NULL, "touch f; test -f f && echo yes", "yes\n", 0, OK, "" },
	{ "rm file", NULL, "touch f; rm f; ls", "", 0, OK, "" },
	{ "rm dir needs -r", NULL, "mkdir d; rm d", "", 1, OK, "Is a directory" },
	{ "rm -r", NULL, "mkdir -p d/e; touch d/e/f; rm -r d; ls", "", 0, OK, "" },
	{ "rm -f missing", NULL, "rm -f nope; echo $?", "0\n", 0, OK, "" },
	{ "rm missing", NULL, "rm nope", "", 1, OK, "nope" },
	{ "rm root refused", NULL, "rm -rf .", "", 1, OK, "" "." },
	{ "cd and pwd", NULL, "mkdir d; cd d; touch x; cd ..; ls d", "x\n", 0, OK, "" },
	{ "cd not dir", NULL, "touch f; cd f", "", 1, OK, "Not a directory" },
	{ "cd HOME", NULL, "mkdir h; HOME=h; cd; ls ..", "h\n", 0, OK, "" },
};

static const struct kcase misc_cases[] = {
	{ "test -f", NULL, "touch f; test -f f && echo y", "y\n", 0, OK, "" },
	{ "test -d", NULL, "mkdir d; test -d d && test ! -f d && echo y", "y\n", 0, OK, "" },
	{ "test -e missing", NULL, "test -e nope; echo $?", "1\n", 0, OK, "" },
	{ "test -z -n", NULL, "test -z '' && test -n x && echo y", "y\n", 0, OK, "" },
	{ "test strings", NULL, "test a = a && test a != b && echo y", "y\n", 0, OK, "" },
	{ "test ints", NULL, "test 2 -lt 10 && test 3 -ge 3 && test 1 -ne 2 && echo y", "y\n", 0, OK, "" },
	{ "test -a -o refused (E020, test_builtin_tests)", NULL, "test a = a -a b = c -o 1 -eq 1 && echo y", "", 2, KAISH_ERR_VALIDATION, "E020" },
	{ "test bad int", NULL, "test a -lt 2", "", 2, OK, "integer" },
	{ "test empty", NULL, "test", "", 1, OK, "" },
	{ "[[ glob ==", NULL, "[[ foo.txt == *.txt ]] && echo y", "y\n", 0, OK, "" },
	{ "[[ !=", NULL, "[[ a != b ]] && echo y", "y\n", 0, OK, "" },
	{ "[[ =~", NULL, "[[ abc =~ ^a.c$ ]] && echo y; [[ abd =~ ^a.c$ ]]; echo $?", "y\n1\n", 0, OK, "" },
	{ "[[ && || ( )", NULL, "[[ ( 1 -lt 2 ) && ! -z x || a == b ]] && echo y", "y\n", 0, OK, "" },
	{ "[[ < >", NULL, "[[ a < b ]] && [[ b > a ]] && echo y", "y\n", 0, OK, "" },
	{ "[[ -f var", NULL, "touch f; F=f; [[ -f $F ]] && echo y", "y\n", 0, OK, "" },
	{ "export", NULL, "export A=1 B; echo $A \"[$B]\"", "1 []\n", 0, OK, "" },
	{ "export bad", NULL, "export 1x=2", "", 1, OK, "identifier" },
	{ "unset", NULL, "A=1; unset A; echo \"[${A:-}]\"", "[]\n", 0, OK, "" },
	{ "set --", NULL, "set -- a b; echo $# $1 $2", "2 a b\n", 0, OK, "" },
	{ "set lists the options in force", NULL, "ZZ=1; set -o trash; set", "set -o trash\n", 0, OK, "" },
	{ "true false colon", NULL, "true; echo $?; false; echo $?; :; echo $?", "0\n1\n0\n", 0, OK, "" },
	{ "help on builtin", NULL, "grep --help | head -n 1", "Usage: grep [OPTION]... PATTERN [FILE]...\n", 0, OK, "" },
};

static const struct kcase scatter_cases[] = {
	{ "scatter text items", NULL, "echo 'a\n\nb' | scatter | echo $ITEM | gather",
	  "{\"i\":0,\"item\":\"a\",\"ok\":true,\"code\":0,\"out\":\"a\",\"err\":\"\"}\n"
	  "{\"i\":1,\"item\":\"b\",\"ok\":true,\"code\":0,\"out\":\"b\",\"err\":\"\"}", 0, OK, "" },
	{ "scatter typed items", NULL, "seq 1 2 | scatter --as N | echo $N | gather",
	  "{\"i\":0,\"item\":1,\"ok\":true,\"code\":0,\"out\":\"1\",\"err\":\"\"}\n"
	  "{\"i\":1,\"item\":2,\"ok\":true,\"code\":0,\"out\":\"2\",\"err\":\"\"}", 0, OK, "" },
	{ "scatter --as=", NULL, "seq 1 2 | scatter --as=V --limit=1 | echo \"v$V\" | gather --lines", "v1\nv2", 0, OK, "" },
	{ "scatter limit 1 order", NULL, "seq 1 5 | scatter --limit 1 | echo $ITEM | gather --lines", "1\n2\n3\n4\n5", 0, OK, "" },
	{ "scatter many in order", NULL, "seq 1 40 | scatter | echo $ITEM | gather --lines | tail -n 2", "39\n40", 0, OK, "" },
	{ "scatter failure", NULL, "echo 'a\nb\nc' | scatter | test $ITEM != b | gather",
	  "{\"i\":0,\"item\":\"a\",\"ok\":true,\"code\":0,\"out\":\"\",\"err\":\"\"}\n"
	  "{\"i\":1,\"item\":\"b\",\"ok\":false,\"code\":1,\"out\":\"\",\"err\":\"\"}\n"
	  "{\"i\":2,\"item\":\"c\",\"ok\":true,\"code\":0,\"out\":\"\",\"err\":\"\"}",
	  123, OK, "gather: 1 of 3 worker(s) failed: b" },
	{ "scatter --lines failure", NULL, "seq 1 3 | scatter | test $ITEM -lt 2 | gather --lines", "", 123, OK, "2 of 3" },
	{ "scatter worker err", NULL, "echo x | scatter | ls nope | gather",
	  "{\"i\":0,\"item\":\"x\",\"ok\":false,\"code\":1,\"out\":\"\",\"err\":\"ls: cannot access 'nope': No such file or directory\"}",
	  123, OK, "gather: 1 of 1 worker(s) failed: x" },
	{ "scatter multi stage", NULL, "seq 1 2 | scatter | echo $ITEM | tr 12 ab | gather --lines", "a\nb", 0, OK, "" },
	{ "scatter post gather", NULL, "seq 1 3 | scatter | echo $ITEM | gather | wc -l", "2\n", 0, OK, "" },
	{ "scatter no items", NULL, "echo '' | scatter | echo $ITEM | gather", "", 0, OK, "" },
	{ "scatter worker scope", NULL, "X=outer; seq 1 2 | scatter | echo $X$ITEM | gather --lines; echo $X", "outer1\nouter2outer\n", 0, OK, "" },
	{ "scatter cmdsubst binds rows", NULL, "for r in $(seq 1 2 | scatter | echo $ITEM | gather); do echo \"$r\" | cut -c 1-6; done",
	  "{\"i\":0\n{\"i\":1\n", 0, OK, "" },
	{ "gather --lines in $( ) is text (§3.3 6)", NULL, "x=$(seq 1 2 | scatter | echo \"o$ITEM\" | gather --lines); echo \"$x\"", "o1\no2\n", 0, OK, "" },
	{ "for over gather --lines: lines (§2.1, §3.3 6)", NULL, "for l in $(seq 1 2 | scatter | echo \"o$ITEM\" | gather --lines); do echo \"[$l]\"; done", "[o1]\n[o2]\n", 0, OK, "" },
	{ "scatter --timeout: the worker's row (§3.3 2, §3.3 6)", NULL,
	  "w() { if [[ $1 == 2 ]]; then while true; do :; done; fi; echo \"d$1\"; }; seq 1 3 | scatter --timeout 500ms | w \"$ITEM\" | gather",
	  "{\"i\":0,\"item\":1,\"ok\":true,\"code\":0,\"out\":\"d1\",\"err\":\"\"}\n"
	  "{\"i\":1,\"item\":2,\"ok\":false,\"code\":124,\"out\":\"\",\"err\":\"scatter: worker timed out\",\"timed_out\":true}\n"
	  "{\"i\":2,\"item\":3,\"ok\":true,\"code\":0,\"out\":\"d3\",\"err\":\"\"}",
	  123, OK, "gather: 1 of 3 worker(s) failed: 2" },
	{ "scatter --timeout=: every worker (§3.3 2)", NULL,
	  "spin() { while true; do :; done; }; seq 1 2 | scatter --timeout=100ms | spin | gather --lines; echo \"rc=$?\"",
	  "rc=123\n", 0, OK, "gather: 2 of 2 worker(s) failed: 1, 2" },
	{ "scatter --timeout forms (§3.3 2)", NULL,
	  "for d in 30 5s 500ms 2m 1h; do x=$(echo i | scatter --timeout $d | echo \"$d\" | gather --lines); echo \"$x\"; done",
	  "30\n5s\n500ms\n2m\n1h\n", 0, OK, "" },
	{ "scatter bad --timeout (§3.3 2)", NULL, "seq 1 2 | scatter --timeout 5x | echo | gather", "", 2, OK, "invalid --timeout '5x'" },
	{ "scatter --timeout needs a value (§3.3 2)", NULL, "seq 1 2 | scatter --timeout | echo x | gather", "", 2, OK, "missing value" },
	{ "scatter bad as", NULL, "seq 1 2 | scatter --as 1x | echo | gather", "", 2, OK, "invalid variable" },
	{ "scatter bad limit", NULL, "seq 1 2 | scatter --limit x | echo | gather", "", 2, OK, "limit" },
	{ "scatter compound stage", NULL, "seq 1 2 | scatter | { echo a; } | gather", "", 2, OK, "compound" },
	{ "scatter standalone refused (E014, validation_tests)", NULL, "seq 1 2 | scatter --as X", "", 2, KAISH_ERR_VALIDATION, "E014" },
	{ "gather standalone", NULL, "echo hi | gather", "hi\n", 0, OK, "" },
	{ "gather --json", NULL, "seq 1 2 | scatter | echo $ITEM | gather --json | head -n 4",
	  "[\n  {\n    \"i\": 0,\n    \"item\": 1,\n", 0, OK, "" },
};


/*
 * Issue #36, text half: the assertions of kaish's integration tests, one table per upstream
 * file (crates/kaish-kernel/tests/<file>_tests.rs), the upstream test name in each case's
 * name. Expectations come from the upstream assertions: where upstream trims the output
 * (common::run) the case spells the exact bytes, newline included. Input upstream writes with
 * printf or execute_with_options' stdin is given here with echo -n and a quoted literal.
 * Tests of builtins this kernel lacks (awk, printf, split, jq, base64, xxd, tac, stat, cp, mv,
 * find, tee, ln, glob, checksum, date, source) are not carried over.
 */
#define BRE_T "echo -n 'foo line\nbar line\nbaz line\n' > t.txt"

static const struct kcase grep_bre_alternation[] = {
	{ "bre_alternation_matches_either_branch", BRE_T, "grep 'foo\\|bar' t.txt", "foo line\nbar line\n", 0, OK, "" },
	{ "bre_alternation_three_terms", "echo -n 'alpha\nbeta\ngamma\ndelta\n' > t.txt", "grep -c 'alpha\\|gamma\\|delta' t.txt", "3\n", 0, OK, "" },
	{ "bre_group_and_quantifier", "echo -n 'abcabc\nxyz\n' > t.txt", "grep '\\(abc\\)\\+' t.txt", "abcabc\n", 0, OK, "" },
	{ "bre_interval", "echo -n 'aa\na\naaa\n' > t.txt", "grep -c 'a\\{2\\}' t.txt", "2\n", 0, OK, "" },
	{ "ere_bare_pipe_still_works", "echo -n 'foo\nbar\nbaz\n' > t.txt", "grep 'foo|bar' t.txt", "foo\nbar\n", 0, OK, "" },
	{ "extended_mode_backslash_pipe_is_literal", "echo -n 'foo|bar\nfoo\nbar\n' > t.txt", "grep -E 'foo\\|bar' t.txt", "foo|bar\n", 0, OK, "" },
	{ "non_meta_escape_preserved", "echo -n 'a.b\naxb\n' > t.txt", "grep 'a\\.b' t.txt", "a.b\n", 0, OK, "" },
	{ "fixed_strings_pipe_stays_literal", "echo -n 'a|b\nab\n' > t.txt", "grep -F 'a|b' t.txt", "a|b\n", 0, OK, "" },
	{ "fixed_strings_backslash_pipe_is_verbatim_text", "echo -n 'a\\|b\na|b\na\nb\n' > t.txt", "grep -F 'a\\|b' t.txt", "a\\|b\n", 0, OK, "" },
	{ "rewritten_meta_compile_error_carries_dialect_hint (GNU BRE)", "echo 'smiley :)' > t.txt", "grep ':\\)' t.txt", "", 2, KAISH_ERR_VALIDATION, "GNU BRE" },
	{ "rewritten_meta_compile_error_carries_dialect_hint ([)])", "echo 'smiley :)' > t.txt", "grep ':\\)' t.txt", "", 2, KAISH_ERR_VALIDATION, "[)]" },
	{ "rewritten_meta_compile_error_carries_dialect_hint (-E)", "echo 'smiley :)' > t.txt", "grep ':\\)' t.txt", "", 2, KAISH_ERR_VALIDATION, "use -E for strict ERE" },
	{ "extended_mode_bare_ere_alternation_works", "echo -n 'foo\nbar\nbaz\n' > t.txt", "grep -E 'foo|bar' t.txt", "foo\nbar\n", 0, OK, "" },
};

/* awk's cases need awk, which this kernel does not have. */
static const struct kcase sed_awk_bre_dialect[] = {
	{ "sed_bre_alternation_default", NULL, "echo -n 'cat\ndog\nfish\n' | sed 's/cat\\|dog/X/'", "X\nX\nfish\n", 0, OK, "" },
	{ "sed_bre_capture_groups_default", NULL, "echo ab | sed 's/\\(a\\)\\(b\\)/\\2\\1/'", "ba\n", 0, OK, "" },
	{ "sed_extended_flag_makes_pipe_literal", NULL, "echo -n 'cat|dog\ncat\n' | sed -E 's/cat\\|dog/X/'", "X\ncat\n", 0, OK, "" },
	{ "sed_dash_r_alias_makes_pipe_literal", NULL, "echo -n 'cat|dog\ncat\n' | sed -r 's/cat\\|dog/X/'", "X\ncat\n", 0, OK, "" },
	{ "rewritten_meta_compile_errors_carry_dialect_hint (sed, GNU BRE)", NULL, "echo x | sed 's/a\\)/X/'", "", 2, KAISH_ERR_VALIDATION, "GNU BRE" },
	{ "rewritten_meta_compile_errors_carry_dialect_hint (sed, -E/-r)", NULL, "echo x | sed 's/a\\)/X/'", "", 2, KAISH_ERR_VALIDATION, "-E/-r" },
};

static const struct kcase glued_short_flag[] = {
	{ "cut_glued_field_selects_column", NULL, "echo 'a,b,c' | cut -d ',' -f1", "a\n", 0, OK, "" },
	{ "cut_glued_field_range", NULL, "echo 'a,b,c,d' | cut -d ',' -f1-3", "a,b,c\n", 0, OK, "" },
	{ "head_glued_byte_count", NULL, "echo 'hello world' | head -c5", "hello", 0, OK, "" },
	{ "tail_glued_byte_count", NULL, "echo 'hello' | tail -c3", "lo\n", 0, OK, "" },
	{ "grep_glued_after_context", "echo -n 'match\nafter\nother\n' > f.txt", "grep -A1 match f.txt", "match\nafter\n", 0, OK, "" },
	{ "combined_bools_then_glued_value_flag", "echo -n 'alpha\nMATCH\nbeta\n' > f.txt", "grep -inA1 match f.txt", "2:MATCH\n3-beta\n", 0, OK, "" },
	{ "combined_bools_then_value_flag_takes_next_positional", "echo -n 'alpha\nMATCH\nbeta\n' > f.txt", "grep -inC 1 match f.txt", "1-alpha\n2:MATCH\n3-beta\n", 0, OK, "" },
	{ "glued_first_char_repeatable_accumulates", NULL, "seq 1 3 | sed -e1d -e2d", "3\n", 0, OK, "" },
	{ "combined_bool_flags_still_split", "echo -n x > visible.txt", "ls -la | grep -c 'visible.txt$'", "1\n", 0, OK, "" },
};

#define FOUR "echo -n 'alpha\nbeta\ncherry\ndate\n'"
#define SIX "echo -n 'a,b,c\nnodelim\nx,y,z\n'"

static const struct kcase builtin_fidelity[] = {
	{ "tail_plus_n_starts_from_line_n", NULL, FOUR " | tail -n +2", "beta\ncherry\ndate\n", 0, OK, "" },
	{ "tail_plus_one_is_whole_input", NULL, "echo -n 'alpha\nbeta\ncherry\n' | tail -n +1", "alpha\nbeta\ncherry\n", 0, OK, "" },
	{ "tail_plus_n_past_end_is_empty", NULL, "echo -n 'alpha\nbeta\n' | tail -n +9", "", 0, OK, "" },
	{ "tail_plain_n_means_last_n", NULL, FOUR " | tail -n 2", "cherry\ndate\n", 0, OK, "" },
	{ "tail_explicit_negative_n_means_last_n", NULL, FOUR " | tail -n -2", "cherry\ndate\n", 0, OK, "" },
	{ "tail_explicit_negative_c_means_last_bytes", NULL, "echo -n 'abcdef\n' | tail -c -3", "ef\n", 0, OK, "" },
	{ "head_negative_n_drops_last_n", NULL, FOUR " | head -n -1", "alpha\nbeta\ncherry\n", 0, OK, "" },
	{ "head_negative_n_dropping_all_is_empty", NULL, "echo -n 'alpha\nbeta\n' | head -n -9", "", 0, OK, "" },
	{ "head_positive_n_still_means_first_n (-n 2)", NULL, FOUR " | head -n 2", "alpha\nbeta\n", 0, OK, "" },
	{ "head_positive_n_still_means_first_n (-2)", NULL, "echo -n 'alpha\nbeta\ncherry\n' | head -2", "alpha\nbeta\n", 0, OK, "" },
	{ "cut_passes_through_line_without_delimiter", NULL, SIX " | cut -d, -f2", "b\nnodelim\ny\n", 0, OK, "" },
	{ "cut_s_suppresses_line_without_delimiter", NULL, SIX " | cut -s -d, -f2", "b\ny\n", 0, OK, "" },
	{ "wc_lines_is_bare_number_with_newline", NULL, "echo -n 'a\nb\n' | wc -l", "2\n", 0, OK, "" },
	{ "wc_lines_counts_newlines_not_final_unterminated_line", NULL, "echo -n 'a\nb' | wc -l", "1\n", 0, OK, "" },
	{ "wc_words_and_bytes_single_count (-w)", NULL, "echo -n 'one two three\nfour five\n' | wc -w", "5\n", 0, OK, "" },
	{ "wc_words_and_bytes_single_count (-c)", NULL, "echo -n 'hello world\n' | wc -c", "12\n", 0, OK, "" },
	{ "wc_all_counts_right_justified_space_separated", NULL, "echo -n 'one two three\nfour five\n' | wc", " 2  5 24\n", 0, OK, "" },
	{ "tr_complement_delete_keeps_only_set", NULL, "echo -n 'a1b2c3\n' | tr -cd '[:digit:]'", "123", 0, OK, "" },
	{ "tr_complement_long_flag", NULL, "echo -n 'a1b2c3\n' | tr --complement --delete '[:alpha:]'", "abc", 0, OK, "" },
	{ "tr_complement_translate_maps_non_set", NULL, "echo -n 'ab12cd\n' | tr -c 'a-z' '_'", "ab__cd_", 0, OK, "" },
	{ "tr_complement_squeeze_only_squeezes_the_replacement", NULL, "echo -n 'xx12\n' | tr -cs 'a-z' 'xyz'", "xxz", 0, OK, "" },
	{ "tr_plain_delete_still_works", NULL, "echo -n 'a1b2c3\n' | tr -d '0-9'", "abc\n", 0, OK, "" },
	{ "unquoted_comma_field_list_works", NULL, "echo -n 'a:b:c\n' | cut -d: -f 1,3", "a:c\n", 0, OK, "" },
	{ "quoted_comma_field_list_works", NULL, "echo -n 'a:b:c\n' | cut -d: -f \"1,3\"", "a:c\n", 0, OK, "" },
	{ "sort_version_orders_numeric_runs_by_value", NULL, "echo -n 'v1.10\nv1.2\nv1.9\n' | sort -V", "v1.2\nv1.9\nv1.10\n", 0, OK, "" },
	{ "sort_version_multi_component", NULL, "echo -n '1.0.10\n1.0.2\n1.0.1\n1.10.0\n' | sort -V", "1.0.1\n1.0.2\n1.0.10\n1.10.0\n", 0, OK, "" },
	{ "sort_version_reverse", NULL, "echo -n 'v1.10\nv1.2\nv1.9\n' | sort -rV", "v1.10\nv1.9\nv1.2\n", 0, OK, "" },
	{ "sort_version_prefix_sorts_first", NULL, "echo -n 'v1.0\nv1\n' | sort -V", "v1\nv1.0\n", 0, OK, "" },
	{ "sort_version_unique_dedups", NULL, "echo -n '1.10\n1.2\n1.2\n1.10\n' | sort -Vu", "1.2\n1.10\n", 0, OK, "" },
	{ "sort_version_no_digits_is_lexical", NULL, "echo -n 'banana\napple\ncherry\n' | sort -V", "apple\nbanana\ncherry\n", 0, OK, "" },
	{ "head_empty_pipe_emits_no_newline", NULL, "true | head", "", 0, OK, "" },
};

#define TOUCH2 "echo -n 'alpha\n' > a.txt; echo -n 'beta\n' > b.txt"
#define F12 "echo -n 'a\nb\n' > f1.txt; echo -n 'c\nd\ne\n' > f2.txt"

static const struct kcase builtin_kernel[] = {
	{ "cat_concatenates_multiple_files_in_order", TOUCH2, "cat a.txt b.txt", "alpha\nbeta\n", 0, OK, "" },
	{ "cat_concatenates_bytes_verbatim_no_inserted_newline", "echo -n 'alpha\nbanana\n' > a.txt; echo -n 'beta\n' > b.txt", "cat a.txt b.txt", "alpha\nbanana\nbeta\n", 0, OK, "" },
	{ "cat_joins_file_without_trailing_newline", "echo -n x > c.txt; echo -n 'y\n' > d.txt", "cat c.txt d.txt", "xy\n", 0, OK, "" },
	{ "cat_glob_concatenates_all_matches", "echo first > one.log; echo second > two.log", "cat *.log", "first\nsecond\n", 0, OK, "" },
	{ "wc_multi_file_reports_each_and_total", F12, "wc -l f1.txt f2.txt", "2 f1.txt\n3 f2.txt\n5 total\n", 0, OK, "" },
	{ "dot_argument_is_literal_not_source", NULL, "echo .", ".\n", 0, OK, "" },
	{ "ls_dot_lists_current_directory", "touch here.txt", "ls .", "here.txt\n", 0, OK, "" },
	{ "rm_glob_removes_only_matches", "touch x.tmp y.tmp keep.txt", "rm *.tmp; ls", "keep.txt\n", 0, OK, "" },
	{ "sort_orders_lines", "echo -n 'charlie\nalpha\nbravo\n' > lines.txt", "sort lines.txt", "alpha\nbravo\ncharlie\n", 0, OK, "" },
	{ "cut_selects_field", "echo -n 'one,two,three\n' > csv.txt", "cut -d ',' -f 2 csv.txt", "two\n", 0, OK, "" },
	{ "head_and_tail_bound_lines (head)", "echo -n 'l1\nl2\nl3\nl4\nl5\n' > five.txt", "head -n 2 five.txt", "l1\nl2\n", 0, OK, "" },
	{ "head_and_tail_bound_lines (tail)", "echo -n 'l1\nl2\nl3\nl4\nl5\n' > five.txt", "tail -n 2 five.txt", "l4\nl5\n", 0, OK, "" },
	{ "tr_translates_from_pipeline", NULL, "echo hello | tr l L", "heLLo\n", 0, OK, "" },
	{ "uniq_collapses_adjacent_duplicates", "echo -n 'a\na\nb\na\n' > d.txt", "uniq d.txt", "a\nb\na\n", 0, OK, "" },
	{ "sed_substitutes_from_stdin", NULL, "echo hello | sed 's/l/L/g'", "heLLo\n", 0, OK, "" },
	{ "grep_searches_all_files_and_prefixes_filenames", "echo -n 'match here\nother\n' > a.txt; echo -n 'no\nmatch too\n' > b.txt", "grep match a.txt b.txt", "a.txt:match here\nb.txt:match too\n", 0, OK, "" },
	{ "grep_line_numbers_restart_per_file", "echo -n 'alpha\nneedle here\n' > a.txt; echo -n 'needle first\nbeta\ngamma\n' > b.txt", "grep -n needle a.txt b.txt", "a.txt:2:needle here\nb.txt:1:needle first\n", 0, OK, "" },
	{ "grep_glob_searches_all_matched_files", "echo needle > one.log; echo needle > two.log; echo needle > skip.txt", "grep needle *.log", "one.log:needle\ntwo.log:needle\n", 0, OK, "" },
	{ "sort_merges_and_orders_multiple_files", "echo -n 'b\nd\n' > f1.txt; echo -n 'a\nc\n' > f2.txt", "sort f1.txt f2.txt", "a\nb\nc\nd\n", 0, OK, "" },
	{ "head_multi_file_emits_filename_headers", "echo -n '1a\n1b\n' > f1.txt; echo -n '2a\n2b\n' > f2.txt", "head -n 1 f1.txt f2.txt", "==> f1.txt <==\n1a\n\n==> f2.txt <==\n2a\n", 0, OK, "" },
	{ "wc_no_flag_reports_lines_words_bytes_per_file_plus_total", F12, "wc f1.txt f2.txt", " 2  2  4 f1.txt\n 3  3  6 f2.txt\n 5  5 10 total\n", 0, OK, "" },
	{ "uniq_count_flag_prefixes_counts", NULL, "echo -n 'a\na\nb\n' | uniq -c", "      2 a\n      1 b\n", 0, OK, "" },
	{ "tr_deletes_quoted_range_from_stdin", NULL, "echo a1b2c3 | tr -d '0-9'", "abc\n", 0, OK, "" },
	{ "tr_translates_letter_range", NULL, "echo hello | tr a-z A-Z", "HELLO\n", 0, OK, "" },
	{ "cat_missing_file_errors_with_name", NULL, "cat nope.txt", "", 1, OK, "nope.txt" },
	{ "wc_missing_file_errors_with_name", NULL, "wc nope.txt", "", 1, OK, "nope.txt" },
	{ "sort_missing_file_errors_with_name", NULL, "sort nope.txt", "", 1, OK, "nope.txt" },
	{ "cut_without_field_or_char_spec_errors", "echo 'a b c' > data.txt", "cut data.txt", "", 1, OK, "-f or -c" },
	{ "head_unknown_flag_is_clap_usage_error", "echo x > data.txt", "head --bogus data.txt", "", 2, OK, "bogus" },
	{ "grep_missing_pattern_only_no_match_is_exit_1", "echo hello > data.txt", "grep zzz data.txt", "", 1, OK, "" },
};

static const struct kcase tr_escape[] = {
	{ "tr_escape_newline_to_space", NULL, "echo -n 'line1\nline2\nline3' | tr '\\n' ' '", "line1 line2 line3", 0, OK, "" },
	{ "tr_escape_space_to_newline", NULL, "echo -n 'a b c' | tr ' ' '\\n'", "a\nb\nc", 0, OK, "" },
	{ "tr_escape_tab_to_space", NULL, "echo -n 'a\tb\tc' | tr '\\t' ' '", "a b c", 0, OK, "" },
	{ "tr_escape_backslash_to_slash", NULL, "echo -n 'a\\b\\c' | tr '\\\\' '/'", "a/b/c", 0, OK, "" },
	{ "tr_escape_octal_newline_to_space", NULL, "echo -n 'x\ny\nz' | tr '\\012' ' '", "x y z", 0, OK, "" },
	{ "tr_escape_in_set2", NULL, "echo -n 'a b c' | tr ' ' '\\t'", "a\tb\tc", 0, OK, "" },
	{ "tr_range_still_works_after_escape_fix", NULL, "echo -n hello | tr 'a-z' 'A-Z'", "HELLO", 0, OK, "" },
	{ "tr_char_class_still_works_after_escape_fix", NULL, "echo -n abc123 | tr -d '[:digit:]'", "abc", 0, OK, "" },
};

static const struct kcase operand_errors[] = {
	{ "grep_reports_missing_explicit_operand", "echo -n 'hello\nworld\n' > real.txt", "grep hello real.txt typo.txt", "real.txt:hello\n", 2, OK, "typo.txt" },
	{ "grep_recursive_does_not_error_on_race", "echo needle > a.txt; echo haystack > b.txt", "grep -r needle .", "./a.txt:needle\n", 0, OK, "" },
	{ "ls_reports_inaccessible_explicit_operand", "echo -n x > real.txt", "ls real.txt gone.txt", "real.txt\n", 1, OK, "ls: cannot access 'gone.txt'" },
	{ "ls_glob_tolerates_no_match_race", "echo x > a.log; echo y > b.log", "ls *.log", "a.log\nb.log\n", 0, OK, "" },
};

/* Beyond the upstream assertions: the edges of what the above added. */
static const struct kcase text_edges[] = {
	{ "grep -B and -- between groups", NULL, "seq 1 20 | grep -B2 '^1[05]'", "8\n9\n10\n--\n13\n14\n15\n", 0, OK, "" },
	{ "grep --context= across files", "echo -n 'a\nx\n' > f; echo -n 'x\na\n' > g", "grep --context=1 a f g", "f:a\nf-x\n--\ng-x\ng:a\n", 0, OK, "" },
	{ "grep bad context", NULL, "echo a | grep -A x a", "", 2, KAISH_ERR_VALIDATION, "invalid context length" },
	{ "grep -e -e: either pattern", NULL, "seq 1 20 | grep -e 5 -e 9", "5\n9\n15\n19\n", 0, OK, "" },
	{ "grep -F -e -e", NULL, "echo -n 'a|b\nb\nc\n' | grep -F -e 'a|' -e c", "a|b\nc\n", 0, OK, "" },
	{ "grep ERE unmatched ) is an error", NULL, "echo a | grep -E 'a)'", "", 2, KAISH_ERR_VALIDATION, "Unmatched )" },
	{ "grep -E keeps \\+ literal", NULL, "echo -n 'a+\naa\n' | grep -E 'a\\+'", "a+\n", 0, OK, "" },
	{ "sed -ne glued", NULL, "seq 1 3 | sed -ne2p", "2\n", 0, OK, "" },
	{ "sed --expression=", NULL, "seq 1 3 | sed --expression=1d --expression 2d", "3\n", 0, OK, "" },
	{ "head -c -N refused", NULL, "echo abc | head -c -1", "", 2, OK, "negative -c is not supported" },
	{ "head -n -N no final newline", NULL, "echo -n 'a\nb\nc' | head -n -1", "a\nb\n", 0, OK, "" },
	{ "tail multi-file headers", "echo -n '1a\n1b\n' > f1.txt; echo -n '2a\n2b\n' > f2.txt", "tail -n 1 f1.txt f2.txt", "==> f1.txt <==\n1b\n\n==> f2.txt <==\n2b\n", 0, OK, "" },
	{ "head multi-file missing one", "echo -n '1a\n' > f1.txt", "head f1.txt nope f1.txt", "==> f1.txt <==\n1a\n\n==> f1.txt <==\n1a\n", 1, OK, "head: nope:" },
	{ "cut multi-char delimiter", NULL, "echo a | cut -d ab -f 1", "", 1, OK, "delimiter must be a single character" },
	{ "cut -sd glued cluster", NULL, "echo -n 'a,b\nc\n' | cut -sd, -f2", "b\n", 0, OK, "" },
	{ "tr unknown class is an error", NULL, "echo x | tr -d '[:foo:]'", "", 1, OK, "invalid character class 'foo'" },
	{ "tr reversed range is an error", NULL, "echo x | tr z-a x", "", 1, OK, "reverse collating" },
	{ "tr -s squeezes SET1", NULL, "echo 'a  b   c' | tr -s ' '", "a b c\n", 0, OK, "" },
	{ "tr classes translate", NULL, "echo 'Hi 42' | tr '[:lower:][:digit:]' '[:upper:]#'", "HI ##\n", 0, OK, "" },
	{ "tr missing SET2", NULL, "echo x | tr a", "", 1, OK, "SET2 required" },
	{ "tr \\a \\v octal", NULL, "echo -n abc | tr 'abc' '\\101\\102\\103'", "ABC", 0, OK, "" },
};

Test(builtins, echo_and_seq) { RUN(echo_seq); }
Test(builtins, grep) { RUN(grep_cases); }
Test(builtins, sed) { RUN(sed_cases); }
Test(builtins, text) { RUN(text_cases); }
Test(builtins, filesystem) { RUN(fs_cases); }
Test(builtins, test_vars_set) { RUN(misc_cases); }
Test(builtins, scatter_gather) { RUN(scatter_cases); }
Test(builtins, upstream_grep_bre_alternation) { RUN(grep_bre_alternation); }
Test(builtins, upstream_sed_awk_bre_dialect) { RUN(sed_awk_bre_dialect); }
Test(builtins, upstream_glued_short_flag) { RUN(glued_short_flag); }
Test(builtins, upstream_builtin_fidelity) { RUN(builtin_fidelity); }
Test(builtins, upstream_builtin_kernel) { RUN(builtin_kernel); }
Test(builtins, upstream_tr_escape) { RUN(tr_escape); }
Test(builtins, upstream_operand_errors) { RUN(operand_errors); }
Test(builtins, text_edges) { RUN(text_edges); }
