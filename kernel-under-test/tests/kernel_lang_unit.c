/* SPDX-License-Identifier: MIT */
/*
 * kernel_lang_unit.c - the language: syntax forms, expansion, control flow, functions,
 * pipelines, redirects, parse and validation errors, the recursion cap and the embedding
 * API. Table-driven: name, setup script, script, expected out, code, status, err substring.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_harness.h"


static const struct kcase quoting[] = {
	{ "dq interpolates", NULL, "X=hi; echo \"$X there\"", "hi there\n", 0, OK, "" },
	{ "sq literal", NULL, "X=hi; echo '$X'", "$X\n", 0, OK, "" },
	{ "backslash dollar", NULL, "X=hi; echo \\$X", "$X\n", 0, OK, "" },
	{ "dq escapes", NULL, "echo \"a\\\"b\\$c\"", "a\"b$c\n", 0, OK, "" },
	{ "braces", NULL, "X=ab; echo \"${X}c\"", "abc\n", 0, OK, "" },
	{ "default unset", NULL, "echo ${NOPE:-dflt}", "dflt\n", 0, OK, "" },
	{ "default empty", NULL, "E=''; echo ${E:-dflt}", "dflt\n", 0, OK, "" },
	{ "default set", NULL, "V=v; echo ${V:-dflt}", "v\n", 0, OK, "" },
	{ "default expands", NULL, "D=x; echo ${NOPE:-$D}", "x\n", 0, OK, "" },
	{ "length", NULL, "V=hello; echo ${#V}", "5\n", 0, OK, "" },
	{ "length utf8", NULL, "V='héllo'; echo ${#V}", "5\n", 0, OK, "" },
	{ "no word splitting", NULL, "V='a   b'; for x in \"$V\"; do echo \"[$x]\"; done", "[a   b]\n", 0, OK, "" },
	{ "var is one argument", NULL, "V='a b c'; f() { echo $#; }; f $V", "1\n", 0, OK, "" },
	{ "dollar question", NULL, "false; echo $?; true; echo $?", "1\n0\n", 0, OK, "" },
	{ "lone dollar", NULL, "echo a$ $", "a$ $\n", 0, OK, "" },
	{ "comment", NULL, "echo a # not this\n# nor this\necho b", "a\nb\n", 0, OK, "" },
	{ "empty script", NULL, "", "", 0, OK, "" },
	{ "semicolons and newlines", NULL, "echo a;echo b\n\necho c;", "a\nb\nc\n", 0, OK, "" },
	{ "line continuation", NULL, "echo a \\\n b", "a b\n", 0, OK, "" },
	{ "arith", NULL, "echo $(( 2 + 3 * 4 )) $((10 / 3)) $((7 % 3)) $((-(1+1)))", "14 3 1 -2\n", 0, OK, "" },
	{ "arith vars", NULL, "i=4; echo $((i * 2)) $(($i + 1))", "8 5\n", 0, OK, "" },
	{ "arith div zero", NULL, "echo $((1/0))", "", 1, OK, "division by zero" },
	{ "tilde with HOME", NULL, "HOME=/h; echo ~ ~/x", "/h /h/x\n", 0, OK, "" },
	{ "tilde without HOME", NULL, "echo ~", "~\n", 0, OK, "" },
	{ "pasting is a parse error (§2.1)", NULL, "d=.; cat $d/file0.txt", "", 2, KAISH_ERR_PARSE, "near '$d/file0.txt'" },
	{ "pasting: nothing runs (§2.1, §2.3)", NULL, "echo ran; echo x$y", "", 2, KAISH_ERR_PARSE, "glued" },
	{ "pasting braced (§2.1)", NULL, "X=a; echo ${X}c", "", 2, KAISH_ERR_PARSE, "glued" },
	{ "pasting subst (§2.1)", NULL, "echo $(echo a)b", "", 2, KAISH_ERR_PARSE, "glued" },
	{ "pasting arith (§2.1)", NULL, "echo n$((1+1))", "", 2, KAISH_ERR_PARSE, "glued" },
	{ "pasting redirect target (§2.1)", NULL, "d=.; echo hi > $d/f", "", 2, KAISH_ERR_PARSE, "glued" },
	{ "pasting in for items (§2.1)", NULL, "for x in a$y; do :; done", "", 2, KAISH_ERR_PARSE, "glued" },
	{ "pasting inside $( ) (§2.1)", NULL, "echo $(echo $HOME/x)", "", 2, KAISH_ERR_PARSE, "glued" },
	{ "quoted word is one token (§2.1)", NULL, "d=dir; echo \"$d/f\" \"x$d\"", "dir/f xdir\n", 0, OK, "" },
	{ "quoted expansion then glob (§2.1)", "mkdir d; touch d/a.txt", "d=d; echo \"$d\"/*.txt", "d/a.txt\n", 0, OK, "" },
	{ "NAME=$v word (§2.2 WordAssign)", NULL, "f() { local a=$1; echo $a; }; f z", "z\n", 0, OK, "" },
	{ "--name=$v word (§2.2 Named)", NULL, "V=x; f() { echo $1; }; f --k=$V", "--k=x\n", 0, OK, "" },
	{ "subscript PIPESTATUS (§2.1 ${u[k]})", NULL, "false | true | false; echo ${PIPESTATUS[1]} ${PIPESTATUS[2]}", "0 1\n", 0, OK, "" },
	{ "subscript key from a var (§2.1)", NULL, "i=0; false | true; echo ${PIPESTATUS[$i]}", "1\n", 0, OK, "" },
	{ "subscript out of range is unset (§2.1)", NULL, "true | true; echo \"[${PIPESTATUS[7]}]\" ${PIPESTATUS[7]:-none}", "[] none\n", 0, OK, "" },
	{ "subscript record field (§2.1, §3.3 6)", NULL, "for r in $(seq 1 2 | scatter | echo \"o$ITEM\" | gather); do echo ${r[out]} ${r[item]} ${r[ok]}; done", "o1 1 true\no2 2 true\n", 0, OK, "" },
	{ "slice (§2.1 ${xs[0:2]})", NULL, "true | false | true; echo ${PIPESTATUS[0:2]} ${PIPESTATUS[1:]}", "[0,1] [1,0]\n", 0, OK, "" },
	{ "subscript length (§2.1)", NULL, "for r in $(echo x | scatter | echo hello | gather); do echo ${#r[out]}; done", "5\n", 0, OK, "" },
	{ "unclosed subscript (§2.1)", NULL, "echo ${PIPESTATUS[0}", "", 2, KAISH_ERR_PARSE, "bad substitution" },
	{ "echo empty prints nothing", NULL, "echo; echo ''; echo -n a; echo b", "ab\n", 0, OK, "" },
};

static const struct kcase subst[] = {
	{ "nested", NULL, "echo $(echo $(echo deep))", "deep\n", 0, OK, "" },
	{ "trims newlines", NULL, "X=$(seq 1 2); echo \"[$X]\"", "[1\n2]\n", 0, OK, "" },
	{ "in dq", NULL, "echo \"<$(echo a b)>\"", "<a b>\n", 0, OK, "" },
	{ "scope restored", NULL, "X=1; Y=$(X=2; echo $X); echo $X $Y", "1 2\n", 0, OK, "" },
	{ "assignment status", NULL, "X=$(false); echo $?", "1\n", 0, OK, "" },
	{ "exit inside", NULL, "X=$(echo hi; exit 3); echo $? $X", "3 hi\n", 0, OK, "" },
	{ "for splits lines", NULL, "for i in $(seq 1 3); do echo \"<$i>\"; done", "<1>\n<2>\n<3>\n", 0, OK, "" },
	{ "for empty output", NULL, "for i in $(true); do echo x; done; echo done", "done\n", 0, OK, "" },
	{ "for keeps inner spaces", NULL, "for l in $(echo 'a b'; echo c); do echo \"[$l]\"; done", "[a b]\n[c]\n", 0, OK, "" },
	{ "stderr surfaces", NULL, "X=$(ls nosuch); echo \"[$X]\"", "[]\n", 0, OK, "nosuch" },
};

static const struct kcase control[] = {
	{ "if true", NULL, "if true; then echo y; else echo n; fi", "y\n", 0, OK, "" },
	{ "if false", NULL, "if false; then echo y; else echo n; fi", "n\n", 0, OK, "" },
	{ "elif", NULL, "x=2; if [[ $x == 1 ]]; then echo one; elif [[ $x == 2 ]]; then echo two; else echo other; fi", "two\n", 0, OK, "" },
	{ "if no branch is 0", NULL, "if false; then echo y; fi", "", 0, OK, "" },
	{ "multiline if", NULL, "if true\nthen\n  echo y\nfi", "y\n", 0, OK, "" },
	{ "for words", NULL, "for x in a b c; do echo $x; done", "a\nb\nc\n", 0, OK, "" },
	{ "for var does not survive", NULL, "for x in a; do :; done; echo \"[${x:-gone}]\"", "[gone]\n", 0, OK, "" },
	{ "for assigns survive", NULL, "for x in a b; do last=$x; done; echo $last", "b\n", 0, OK, "" },
	{ "while", NULL, "i=0; while [[ $i -lt 3 ]]; do echo $i; i=$((i+1)); done", "0\n1\n2\n", 0, OK, "" },
	{ "while not", NULL, "i=0; while ! [[ $i -ge 2 ]]; do i=$((i+1)); done; echo $i", "2\n", 0, OK, "" },
	{ "break", NULL, "for x in a b c; do if [[ $x == b ]]; then break; fi; echo $x; done", "a\n", 0, OK, "" },
	{ "continue", NULL, "for x in a b c; do if [[ $x == b ]]; then continue; fi; echo $x; done", "a\nc\n", 0, OK, "" },
	{ "break 2", NULL, "for x in 1 2; do for y in a b; do echo $x$y; break 2; done; done; echo end", "1a\nend\n", 0, OK, "" },
	{ "continue 2", NULL, "for x in 1 2; do for y in a b; do echo $x$y; continue 2; done; done", "1a\n2a\n", 0, OK, "" },
	{ "case glob", NULL, "case foo.txt in *.md) echo md;; *.txt) echo txt;; esac", "txt\n", 0, OK, "" },
	{ "case alternatives", NULL, "case b in a|b) echo ab;; *) echo other;; esac", "ab\n", 0, OK, "" },
	{ "case default", NULL, "case zzz in a) echo a;; *) echo star;; esac", "star\n", 0, OK, "" },
	{ "case no match", NULL, "case q in a) echo a;; esac; echo $?", "0\n", 0, OK, "" },
	{ "and", NULL, "true && echo yes; false && echo no; echo end", "yes\nend\n", 0, OK, "" },
	{ "or", NULL, "false || echo yes; true || echo no", "yes\n", 0, OK, "" },
	{ "chain", NULL, "false && echo a || echo b", "b\n", 0, OK, "" },
	{ "not", NULL, "! false && echo neg; ! true; echo $?", "neg\n1\n", 0, OK, "" },
	{ "brace group", NULL, "{ echo a; echo b; } | wc -l", "2\n", 0, OK, "" },
	{ "last status is code", NULL, "echo a; false", "a\n", 1, OK, "" },
	{ "exit", NULL, "echo a; exit 4; echo b", "a\n", 4, OK, "" },
	{ "errexit", NULL, "set -e; echo a; false; echo b", "a\n", 1, OK, "" },
	{ "errexit spares conditions", NULL, "set -e; if false; then :; fi; false || true; echo ok", "ok\n", 0, OK, "" },
	{ "errexit off again", NULL, "set -e; set +e; false; echo on", "on\n", 0, OK, "" },
};

static const struct kcase funcs[] = {
	{ "define and call", NULL, "f() { echo hi $1; }; f there", "hi there\n", 0, OK, "" },
	{ "function keyword", NULL, "function g { echo g; }; g", "g\n", 0, OK, "" },
	{ "args", NULL, "f() { echo $# \"$@\" $2; }; f a b c", "3 a b c b\n", 0, OK, "" },
	{ "return code", NULL, "f() { return 3; }; f; echo $?", "3\n", 0, OK, "" },
	{ "local stays local", NULL, "f() { local a=1; b=2; echo $a; }; f; echo \"[${a:-}] $b\"", "1\n[] 2\n", 0, OK, "" },
	{ "local outside", NULL, "local a=1", "", 1, OK, "local" },
	{ "shares caller scope", NULL, "X=1; f() { echo $X; X=2; }; f; echo $X", "1\n2\n", 0, OK, "" },
	{ "recursion bounded", NULL, "f() { if [[ $1 -gt 0 ]]; then echo $1; f $(( $1 - 1 )); fi; }; f 3", "3\n2\n1\n", 0, OK, "" },
	{ "recursion cap", NULL, "f() { f; }; f", "", 1, OK, "maximum recursion depth (48) exceeded" },
	{ "recursion cap stops script", NULL, "f() { f; }; f; echo after", "", 1, OK, "maximum recursion depth (48) exceeded" },
	{ "recursion cap in subst", NULL, "g() { echo \"x$(g)\"; }; g | wc -c; echo next", "25\nnext\n", 0, OK, "maximum recursion depth (48) exceeded" },
	{ "deep subst cap", NULL,
	  "s() { echo $(s); }; X=$(s); echo \"[$X]\"", "[]\n", 0, OK, "maximum recursion depth" },
	{ "function in pipeline", NULL, "f() { echo a; echo b; }; f | wc -l", "2\n", 0, OK, "" },
	{ "factorial via arith and subst", NULL,
	  "fact() { if [[ $1 -le 1 ]]; then echo 1; return; fi; echo $(( $1 * $(fact $(( $1 - 1 ))) )); }; fact 6",
	  "720\n", 0, OK, "" },
	{ "redefinition", NULL, "f() { echo 1; }; f() { echo 2; }; f", "2\n", 0, OK, "" },
	{ "persists across execute", "h() { echo kept; }", "h", "kept\n", 0, OK, "" },
};

static const struct kcase pipes_redirs[] = {
	{ "pipe", NULL, "echo hello | tr a-z A-Z", "HELLO\n", 0, OK, "" },
	{ "three stages", NULL, "seq 1 10 | grep 1 | wc -l", "2\n", 0, OK, "" },
	{ "pipe status is last", NULL, "false | true", "", 0, OK, "" },
	{ "pipefail", NULL, "set -o pipefail; false | true; echo $? $PIPESTATUS", "1 [1,0]\n", 0, OK, "" },
	{ "stage forks do not leak", NULL, "X=1; X=2 | true; echo $X", "1\n", 0, OK, "" },
	/* PIPESTATUS is kept as numbers and rendered where it is read */
	{ "ps unset before any command", NULL, "echo \"[$PIPESTATUS]\"", "[]\n", 0, OK, "" },
	{ "ps read inside $( )", NULL, "false | true; echo $(echo ${PIPESTATUS[0]}) ${PIPESTATUS[0]}", "1 1\n", 0, OK, "" },
	{ "ps $( ) keeps the caller's", NULL, "false | true | false; echo ${PIPESTATUS[1]} \"$(true | false)\" $PIPESTATUS", "0  [1,0,1]\n", 0, OK, "" },
	{ "ps stage fork copies it", NULL, "false | true; true | echo ${PIPESTATUS[0]} ${#PIPESTATUS}", "1 2\n", 0, OK, "" },
	{ "ps longer than inline", NULL, "false | true | true | true | true | true | true | true | true | false; echo $PIPESTATUS ${PIPESTATUS[9]} ${#PIPESTATUS}; echo $PIPESTATUS", "[1,0,0,0,0,0,0,0,0,1] 1 10\n[0]\n", 0, OK, "" },
	{ "ps assigned is replaced", NULL, "PIPESTATUS=5; echo $((PIPESTATUS + 1)) $PIPESTATUS", "1 [0]\n", 0, OK, "" },
	{ "ps of a function", NULL, "f() { return 3; }; f; echo $PIPESTATUS", "[3]\n", 0, OK, "" },
	{ "ps for-loop items", NULL, "true | false; for s in \"${PIPESTATUS[0]}\" \"${PIPESTATUS[1]}\"; do echo $s; done", "0\n1\n", 0, OK, "" },
	{ "write and read", NULL, "echo hi > f.txt; cat f.txt; cat < f.txt", "hi\nhi\n", 0, OK, "" },
	{ "append", NULL, "echo a > f; echo b >> f; cat f", "a\nb\n", 0, OK, "" },
	{ "stderr to file", NULL, "ls nosuch 2> e.txt; wc -l < e.txt", "1\n", 0, OK, "" },
	{ "stderr to stdout", NULL, "ls nosuch 2>&1 | wc -l", "1\n", 0, OK, "" },
	{ "stdout to stderr", NULL, "echo oops >&2", "", 0, OK, "oops" },
	{ "both", NULL, "{ echo o; ls nosuch; } &> b.txt; wc -l < b.txt", "2\n", 0, OK, "" },
	{ "dev null", NULL, "echo gone > /dev/null; ls nosuch 2>/dev/null; echo $?", "1\n", 0, OK, "" },
	{ "heredoc", NULL, "X=v; cat <<EOF\na $X\n  b $(echo c)\nEOF\necho after", "a v\n  b c\nafter\n", 0, OK, "" },
	{ "heredoc literal", NULL, "X=v; cat <<'EOF'\na $X\nEOF", "a $X\n", 0, OK, "" },
	{ "heredoc strip tabs", NULL, "cat <<-END\n\tx\n\tEND\necho y", "x\ny\n", 0, OK, "" },
	{ "heredoc in pipeline", NULL, "cat <<EOF | wc -l\n1\n2\nEOF", "2\n", 0, OK, "" },
	{ "two heredocs", NULL, "cat <<A; cat <<B\na\nA\nb\nB", "a\nb\n", 0, OK, "" },
	{ "heredoc line numbers", NULL, "cat <<EOF\n1\n2\nEOF\nfi", "", 2, KAISH_ERR_PARSE, "line 5" },
	{ "here string", NULL, "tr a-z A-Z <<< 'abc'", "ABC\n", 0, OK, "" },
	{ "redirect on compound", NULL, "for i in 1 2; do echo $i; done > l.txt; cat l.txt", "1\n2\n", 0, OK, "" },
	{ "missing input", NULL, "cat < nope.txt", "", 1, OK, "nope.txt" },
	{ "prefix assignment", NULL, "f() { echo $V; }; V=scoped f; echo \"[${V:-}]\"", "scoped\n[]\n", 0, OK, "" },
	{ "assign only", NULL, "A=1 B=2; echo $A$B", "12\n", 0, OK, "" },
	{ "glob", "mkdir d; touch d/b.txt d/a.txt d/c.md", "echo d/*.txt", "d/a.txt d/b.txt\n", 0, OK, "" },
	{ "glob quoted is literal", NULL, "echo '*.txt' \"*\"", "*.txt *\n", 0, OK, "" },
	{ "glob no match", NULL, "echo *.nothing", "", 1, OK, "no matches" },
	{ "glob off", NULL, "set +o glob; echo *.nothing", "*.nothing\n", 0, OK, "" },
};

static const struct kcase errors[] = {
	{ "unterminated quote", NULL, "echo \"abc", "", 2, KAISH_ERR_PARSE, "line 1: unterminated quote" },
	{ "backticks", NULL, "echo `date`", "", 2, KAISH_ERR_PARSE, "backticks" },
	{ "missing fi", NULL, "if true; then echo a", "", 2, KAISH_ERR_PARSE, "expected 'fi'" },
	{ "missing done", NULL, "for x in a; do echo", "", 2, KAISH_ERR_PARSE, "expected 'done'" },
	{ "stray then (§2.1 keywords)", NULL, "echo a\nthen", "", 2, KAISH_ERR_PARSE, "line 2: unexpected keyword near 'then'" },
	{ "stray done (§2.1 keywords)", NULL, "if true; then done; fi", "", 2, KAISH_ERR_PARSE, "near 'done'" },
	{ "quoted keyword is a word (§2.1)", NULL, "echo 'then' fi", "then fi\n", 0, OK, "" },
	{ "unbalanced subst", NULL, "echo $(echo a", "", 2, KAISH_ERR_PARSE, "" "line 1" },
	{ "error line number", NULL, "echo a\necho b\nif", "", 2, KAISH_ERR_PARSE, "line 3" },
	{ "stray paren", NULL, "echo a )", "", 2, KAISH_ERR_PARSE, "near ')'" },
	{ "until unsupported", NULL, "until true; do :; done", "", 2, KAISH_ERR_PARSE, "until" },
	{ "heredoc unterminated", NULL, "cat <<EOF\nx\n", "", 2, KAISH_ERR_PARSE, "unterminated heredoc" },
	{ "heredoc no delimiter", NULL, "cat <<", "", 2, KAISH_ERR_PARSE, "heredoc delimiter" },
	{ "deep nesting bounded", NULL,
	  "echo $(echo $(echo $(echo $(echo $(echo $(echo $(echo $(echo $(echo $(echo $(echo x)))))))))))",
	  "x\n", 0, OK, "" },
	{ "unknown command runs, exits 127 (§1.4, §2.3.7)", NULL, "echo start; nosuchcmd; echo \"rc=$?\"", "start\nrc=127\n", 0, OK, "command not found: nosuchcmd" },
	{ "unknown command last: code 127 (§1.4)", NULL, "echo a; nosuchcmd", "a\n", 127, OK, "nosuchcmd" },
	{ "unknown command and set -e (§2.3.7)", NULL, "set -e; echo a; nosuch; echo b", "a\n", 127, OK, "nosuch" },
	{ "unknown in subst is empty (§2.3.9)", NULL, "X=$(nosuch); echo \"[$X] $?\"", "[] 127\n", 0, OK, "nosuch" },
	{ "unknown in uncalled function (§2.3.4 warning)", NULL, "f() { nosuch; }", "", 0, OK, "" },
	{ "unknown in called function (§2.3.7)", NULL, "f() { nosuch; }; f; echo $?", "127\n", 0, OK, "nosuch" },
	{ "validation error: nothing runs (§2.3.4)", NULL, "echo ran; grep '(' x", "", 2, KAISH_ERR_VALIDATION, "invalid regex" },
	{ "later function is known", NULL, "f() { g; }; g() { echo g; }; f", "g\n", 0, OK, "" },
	{ "bad grep regex", NULL, "grep '(' x", "", 2, KAISH_ERR_VALIDATION, "invalid regex" },
	{ "bad sed regex", NULL, "echo a | sed 's/(/x/'", "", 2, KAISH_ERR_VALIDATION, "invalid regex" },
	{ "bad sed command", NULL, "echo a | sed 'k'", "", 2, KAISH_ERR_VALIDATION, "unknown command" },
	{ "bad =~ regex", NULL, "[[ a =~ '(' ]]", "", 2, KAISH_ERR_VALIDATION, "invalid regex" },
	{ "seq increment zero", NULL, "seq 1 0 5", "", 2, KAISH_ERR_VALIDATION, "increment" },
	{ "break outside loop", NULL, "break", "", 2, KAISH_ERR_VALIDATION, "'break' outside a loop" },
	{ "continue in function", NULL, "for x in a; do f() { continue; }; done", "", 2, KAISH_ERR_VALIDATION, "outside a loop" },
	{ "E012 bare var in for", NULL, "V='a b'; for x in $V; do echo $x; done", "", 2, KAISH_ERR_VALIDATION, "E012" },
	{ "runtime seq zero", NULL, "Z=0; seq 1 $Z 3", "", 2, OK, "increment" },
	{ "runtime not found", NULL, "C=nosuch; $C", "", 127, OK, "command not found" },
	{ "bad set option", NULL, "set -o bogus", "", 1, OK, "bogus" },
};

/* --- issue #36: assertions of kaish's integration tests, one table per upstream file, the
 * upstream test name in each comment. Expectations are the upstream assertions. --- */

/* tests/heredoc_tests.rs */
static const struct kcase up_heredoc[] = {
	/* crlf_body_preserves_carriage_returns */
	{ "crlf body kept", NULL, "cat <<EOF\r\nhello\r\nEOF", "hello\r\n", 0, OK, "" },
	/* bare_cr_body_preserves_carriage_returns */
	{ "bare cr body kept", NULL, "cat <<EOF\rhello\rEOF", "hello\r", 0, OK, "" },
	/* crlf_terminated_delimiter_still_matches */
	{ "EOF\\r\\n closes", NULL, "cat <<EOF\nhello\nEOF\r\n", "hello\n", 0, OK, "" },
	/* bare_cr_terminated_delimiter_still_matches */
	{ "EOF\\r closes", NULL, "cat <<EOF\nhello\nEOF\r", "hello\n", 0, OK, "" },
	/* dash_heredoc_strips_source_tabs_not_var_tabs */
	{ "<<- keeps var tabs", NULL, "X=\"\tval\"\ncat <<-EOF\n\t$X\n\tafter\nEOF", "\tval\nafter\n", 0, OK, "" },
	/* dash_heredoc_var_at_line_start_terminates_strip_run */
	{ "<<- mid-line tab kept", NULL, "X=hi\ncat <<-EOF\n$X\tkept\nEOF", "hi\tkept\n", 0, OK, "" },
	/* unterminated_heredoc_errors */
	{ "unterminated names EOF", NULL, "cat <<EOF\nhello", "", 2, KAISH_ERR_PARSE, "unterminated heredoc, expected near 'EOF'" },
	/* unterminated_heredoc_with_dash_form_errors */
	{ "unterminated <<- names DONE", NULL, "cat <<-DONE\n\thi", "", 2, KAISH_ERR_PARSE, "DONE" },
	/* nested_command_substitution_in_body */
	{ "$( ) in body", NULL, "cat <<EOF\nvia $(echo nested)\nEOF", "via nested\n", 0, OK, "" },
	/* nested_pipeline_command_substitution_in_body */
	{ "pipeline $( ) in body", NULL, "cat <<EOF\n$(echo -n HELLO | tr A-Z a-z) world\nEOF", "hello world\n", 0, OK, "" },
};

/* tests/pipefail_tests.rs */
static const struct kcase up_pipefail[] = {
	/* pipestatus_reports_every_stage */
	{ "ps false|true", NULL, "false | true; echo \"${PIPESTATUS[0]},${PIPESTATUS[1]}\"", "1,0\n", 0, OK, "" },
	{ "ps true|false", NULL, "true | false; echo \"${PIPESTATUS[0]},${PIPESTATUS[1]}\"", "0,1\n", 0, OK, "" },
	{ "ps test -f|false", NULL, "test -f | false; echo \"${PIPESTATUS[0]},${PIPESTATUS[1]}\"", "2,1\n", 0, OK, "needs an operand" },
	{ "ps false|test -f", NULL, "false | test -f; echo \"${PIPESTATUS[0]},${PIPESTATUS[1]}\"", "1,2\n", 0, OK, "needs an operand" },
	{ "ps three", NULL, "true | true | true; echo \"${PIPESTATUS[0]},${PIPESTATUS[1]},${PIPESTATUS[2]}\"", "0,0,0\n", 0, OK, "" },
	/* pipestatus_length_matches_the_stage_count */
	{ "ps one stage false", NULL, "false; echo \"${PIPESTATUS[0]},${#PIPESTATUS}\"", "1,1\n", 0, OK, "" },
	{ "ps one stage true", NULL, "true; echo \"${PIPESTATUS[0]},${#PIPESTATUS}\"", "0,1\n", 0, OK, "" },
	{ "ps length 2", NULL, "false | true; echo ${#PIPESTATUS}", "2\n", 0, OK, "" },
	/* the_default_is_still_the_last_stages_status */
	{ "default last stage 0", NULL, "false | true", "", 0, OK, "" },
	{ "default last stage 1", NULL, "true | false", "", 1, OK, "" },
	{ "default cat missing | wc", NULL, "cat /nonexistent | wc -l", "0\n", 0, OK, "nonexistent" },
	/* pipefail_takes_the_rightmost_nonzero */
	{ "pf false|true", NULL, "set -o pipefail; false | true", "", 1, OK, "" },
	{ "pf true|true", NULL, "set -o pipefail; true | true", "", 0, OK, "" },
	{ "pf false|false", NULL, "set -o pipefail; false | false", "", 1, OK, "" },
	{ "pf test -f|false", NULL, "set -o pipefail; test -f | false", "", 1, OK, "needs an operand" },
	{ "pf false|test -f", NULL, "set -o pipefail; false | test -f", "", 2, OK, "needs an operand" },
	{ "pf test -f|false|true", NULL, "set -o pipefail; test -f | false | true", "", 1, OK, "needs an operand" },
	{ "pf test -f|true|true", NULL, "set -o pipefail; test -f | true | true", "", 2, OK, "needs an operand" },
	{ "pf cat missing | wc", NULL, "set -o pipefail; cat /nonexistent | wc -l", "0\n", 1, OK, "nonexistent" },
	/* pipefail_turns_off_again */
	{ "pf off again", NULL, "set -o pipefail; set +o pipefail; false | true", "", 0, OK, "" },
	/* set_dash_o_reports_pipefail */
	{ "set -o lists pipefail on", NULL, "set -o pipefail; set -o | grep pipefail", "pipefail\ton\n", 0, OK, "" },
	/* pipefail_is_no_longer_an_unknown_option */
	{ "pf accepted", NULL, "set -o pipefail; echo ALIVE", "ALIVE\n", 0, OK, "" },
	{ "unknown option named", NULL, "set -o nosuchoption", "", 1, OK, "nosuchoption" },
	/* reading_pipestatus_replaces_it */
	{ "reading replaces", NULL, "false | true; echo ${#PIPESTATUS}; echo \"again=$PIPESTATUS\"", "2\nagain=[0]\n", 0, OK, "" },
};

/* tests/test_builtin_tests.rs (fixture: file.txt, sub/) */
#define TB_SETUP "echo hi > file.txt; mkdir sub"
static const struct kcase up_test_builtin[] = {
	/* string_emptiness */
	{ "-z empty", NULL, "test -z \"\"", "", 0, OK, "" },
	{ "-z x", NULL, "test -z x", "", 1, OK, "" },
	{ "-n x", NULL, "test -n x", "", 0, OK, "" },
	{ "-n empty", NULL, "test -n \"\"", "", 1, OK, "" },
	/* one_arg_string_truthiness */
	{ "one arg", NULL, "test x", "", 0, OK, "" },
	{ "one empty arg", NULL, "test \"\"", "", 1, OK, "" },
	/* string_equality */
	{ "a = a", NULL, "test a = a", "", 0, OK, "" },
	{ "a = b", NULL, "test a = b", "", 1, OK, "" },
	{ "a == a", NULL, "test a == a", "", 0, OK, "" },
	{ "a != b", NULL, "test a != b", "", 0, OK, "" },
	/* flag_shaped_operands_survive */
	{ "-n = -n", NULL, "test -n = -n", "", 0, OK, "" },
	{ "x = -f", NULL, "test x = -f", "", 1, OK, "" },
	{ "-f = -f", NULL, "test -f = -f", "", 0, OK, "" },
	/* numeric_integer */
	{ "08 -eq 8", NULL, "test 08 -eq 8", "", 0, OK, "" },
	{ "3 -gt 5", NULL, "test 3 -gt 5", "", 1, OK, "" },
	/* numeric_negative_operands */
	{ "0 -gt -5", NULL, "test 0 -gt -5", "", 0, OK, "" },
	{ "-5 -lt 0", NULL, "test -5 -lt 0", "", 0, OK, "" },
	/* numeric_floats_allowed, builtin_shadows_external_test */
	{ "1.5 -gt 1", NULL, "test 1.5 -gt 1", "", 0, OK, "" },
	{ "1.0 -eq 1", NULL, "test 1.0 -eq 1", "", 0, OK, "" },
	{ "2.5 -lt 2", NULL, "test 2.5 -lt 2", "", 1, OK, "" },
	/* numeric_non_numeric_is_loud */
	{ "abc -eq 5", NULL, "test abc -eq 5", "", 2, OK, "abc" },
	/* file_tests */
	{ "-e file", TB_SETUP, "test -e file.txt", "", 0, OK, "" },
	{ "-e nope", TB_SETUP, "test -e nope", "", 1, OK, "" },
	{ "-f sub", TB_SETUP, "test -f sub", "", 1, OK, "" },
	{ "-d sub", TB_SETUP, "test -d sub", "", 0, OK, "" },
	/* negation */
	{ "! -f nope", TB_SETUP, "test ! -f nope", "", 0, OK, "" },
	{ "! -f file", TB_SETUP, "test ! -f file.txt", "", 1, OK, "" },
	{ "! a = a", NULL, "test ! a = a", "", 1, OK, "" },
	{ "! -z x", NULL, "test ! -z x", "", 0, OK, "" },
	/* arity_errors_are_loud */
	{ "no args", NULL, "test", "", 1, OK, "" },
	{ "-f alone", NULL, "test -f", "", 2, OK, "-f" },
	{ "-z alone", NULL, "test -z", "", 2, OK, "-z" },
	{ "! alone", NULL, "test !", "", 2, OK, "!" },
	{ "two barewords", NULL, "test a b", "", 2, OK, "a" },
	/* arity_edge_cases */
	{ "! ! x", NULL, "test ! ! x", "", 0, OK, "" },
	{ "! !", NULL, "test ! !", "", 2, OK, "!" },
	{ "! = x", NULL, "test ! = x", "", 2, OK, "=" },
	{ "= = =", NULL, "test = = =", "", 0, OK, "" },
	{ "-f -f", NULL, "test -f -f", "", 1, OK, "" },
	/* compound_operators_are_refused */
	{ "-a refused", TB_SETUP, "test -f file.txt -a -f sub", "", 2, KAISH_ERR_VALIDATION, "E020" },
	{ "-o refused", TB_SETUP, "test a = a -o b = b", "", 2, KAISH_ERR_VALIDATION, "E020" },
	/* shell_chaining_is_still_a_compound_path */
	{ "&& chain", TB_SETUP, "test -f file.txt && test -d sub && echo both", "both\n", 0, OK, "" },
	{ "|| chain", TB_SETUP, "test -f nope || echo fallback", "fallback\n", 0, OK, "" },
	/* test_as_if_condition */
	{ "if test", TB_SETUP, "if test -f file.txt; then echo present; else echo absent; fi", "present\n", 0, OK, "" },
};

/* tests/cmdsubst_control_structures_tests.rs */
static const struct kcase up_cmdsubst_ctl[] = {
	/* unquoted_for_loop_inside_cmdsubst_runs */
	{ "for in $( )", NULL, "echo $(for f in a b; do echo $f; done)", "a\nb\n", 0, OK, "" },
	/* unquoted_while_loop_inside_cmdsubst_runs */
	{ "while in $( )", NULL, "x=$(i=0; while [[ $i -lt 3 ]]; do echo $i; i=$((i+1)); done); echo \"[$x]\"", "[0\n1\n2]\n", 0, OK, "" },
	/* unquoted_if_else_inside_cmdsubst_runs */
	{ "if in $( )", NULL, "x=$(if true; then echo yep; else echo nope; fi); echo \"[$x]\"", "[yep]\n", 0, OK, "" },
	/* unquoted_case_inside_cmdsubst_runs */
	{ "case in $( )", NULL, "x=$(case dog in cat) echo meow;; dog) echo woof;; esac); echo \"[$x]\"", "[woof]\n", 0, OK, "" },
	/* unquoted_nested_cmdsubst_with_inner_control_structure_runs */
	{ "nested for in $( )", NULL, "echo $(echo $(for f in a b; do echo $f; done))", "a\nb\n", 0, OK, "" },
	/* quoted_for_loop_inside_cmdsubst_still_runs */
	{ "quoted for in $( )", NULL, "out=\"$(for f in a b; do echo $f; done)\"; echo \"$out\"", "a\nb\n", 0, OK, "" },
};

/* tests/set_option_tests.rs */
static const struct kcase up_set_option[] = {
	/* set_o_trash_still_enables, set_o_flag_split_path_still_enables_known_option */
	{ "set lists trash", NULL, "set -o trash; set", "set -o trash\n", 0, OK, "" },
	/* set_plus_o_trash_still_disables */
	{ "set +o trash", NULL, "set -o trash; set +o trash; set", "", 0, OK, "" },
	/* set_o_glob_still_works, set_plus_o_glob_still_works */
	{ "set -o glob", NULL, "set -o glob; echo ran", "ran\n", 0, OK, "" },
	{ "set +o glob", NULL, "set +o glob; echo ran", "ran\n", 0, OK, "" },
	/* set_o_unknown_name_fails_loudly (output-limit is not an option here, see README) */
	{ "unknown names the valid set", NULL, "set -o bogusname", "", 1, OK, "valid names are errexit, glob, pipefail, trash" },
	/* set_o_unknown_name_stops_sequential_execution */
	{ "unknown stops set -e", NULL, "set -e; set -o bogusname; echo ran", "", 1, OK, "bogusname" },
	/* set_plus_o_unknown_name_fails_loudly */
	{ "+o unknown", NULL, "set +o bogusname", "", 1, OK, "bogusname" },
	/* set_o_pipefail_is_accepted_and_takes_effect */
	{ "pipefail takes effect", "set -o pipefail", "false | true", "", 1, OK, "" },
};

/* tests/pwd_tracking_tests.rs (/usr does not exist in the memory `/`: /u is made) */
static const struct kcase up_pwd[] = {
	/* pwd_variable_agrees_with_the_pwd_builtin */
	{ "PWD after cd", NULL, "cd /tmp; echo $PWD", "/tmp\n", 0, OK, "" },
	{ "PWD = pwd", NULL, "cd /tmp; echo \"$PWD|$(pwd)\"", "/tmp|/tmp\n", 0, OK, "" },
	/* oldpwd_is_this_sessions_previous_directory */
	{ "OLDPWD", "mkdir /u", "cd /tmp; cd /u; echo $OLDPWD", "/tmp\n", 0, OK, "" },
	{ "PWD|OLDPWD", "mkdir /u", "cd /tmp; cd /u; echo \"$PWD|$OLDPWD\"", "/u|/tmp\n", 0, OK, "" },
	/* cd_dash_agrees_with_oldpwd */
	{ "cd -", "mkdir /u", "cd /tmp; cd /u; cd - > /dev/null; echo $PWD", "/tmp\n", 0, OK, "" },
	{ "cd - prints", "mkdir /u", "cd /tmp; cd /u; cd -", "/tmp\n", 0, OK, "" },
	/* oldpwd_is_absent_until_the_first_cd */
	{ "OLDPWD unset", NULL, "echo \"[${OLDPWD:-unset}]\"", "[unset]\n", 0, OK, "" },
	/* a_failed_cd_leaves_them_alone */
	{ "failed cd", NULL, "cd /tmp; cd /definitely-not-a-directory-here; echo \"$PWD\"", "/tmp\n", 0, OK, "definitely" },
};

/* tests/validation_tests.rs */
static const struct kcase up_validation[] = {
	/* validation_blocks_break_outside_loop */
	{ "break", NULL, "break", "", 2, KAISH_ERR_VALIDATION, "loop" },
	/* validation_blocks_continue_outside_loop */
	{ "continue", NULL, "continue", "", 2, KAISH_ERR_VALIDATION, "loop" },
	/* validation_blocks_return_outside_function */
	{ "return", NULL, "echo ran; return", "", 2, KAISH_ERR_VALIDATION, "function" },
	/* validation_blocks_invalid_regex */
	{ "grep regex", NULL, "grep '[' /dev/null", "", 2, KAISH_ERR_VALIDATION, "" "line 1" },
	/* validation_blocks_seq_zero_increment */
	{ "seq zero", NULL, "seq 1 0 10", "", 2, KAISH_ERR_VALIDATION, "" "line 1" },
	/* validation_blocks_scatter_without_gather */
	{ "scatter without gather", NULL, "seq 1 3 | scatter | echo hi", "", 2, KAISH_ERR_VALIDATION, "E014" },
	/* validation_allows_scatter_with_gather (rows are JSONL here) */
	{ "scatter with gather", NULL, "seq 1 3 | scatter | echo \"$ITEM\" | gather --lines", "1\n2\n3", 0, OK, "" },
	/* validation_allows_break_inside_loop */
	{ "break in loop", NULL, "for i in 1 2 3; do if [[ $i == 2 ]]; then break; fi; echo $i; done", "1\n", 0, OK, "" },
	/* validation_allows_quoted_glob_patterns */
	{ "quoted pattern literal", NULL, "echo \"*.txt\"", "*.txt\n", 0, OK, "" },
	/* validation_bare_glob_no_match */
	{ "bare glob no match", NULL, "ls *.txt", "", 1, OK, "no matches" },
};

/* tests/scatter_gather_jsonl_tests.rs */
static const struct kcase up_sg_jsonl[] = {
	/* lines_mode_emits_raw_outputs_in_item_order */
	{ "--lines order", NULL, "seq 1 3 | scatter | echo $ITEM | gather --lines", "1\n2\n3", 0, OK, "" },
	/* lines_mode_hard_errors_on_any_failure */
	{ "--lines failure hint", NULL, "seq 1 2 | scatter --as N | echo $N | grep 2 | gather --lines", "", 123, OK, "--lines" },
};

/* tests/string_slice_tests.rs */
static const struct kcase up_slice[] = {
	/* a_slice_takes_the_half_open_range */
	{ "0:5", NULL, "v=\"abcdefghij\"; echo \"[${v[0:5]}]\"", "[abcde]\n", 0, OK, "" },
	/* a_slice_starting_mid_string_is_end_exclusive */
	{ "2:5", NULL, "v=\"abcdefghij\"; echo \"[${v[2:5]}]\"", "[cde]\n", 0, OK, "" },
	/* an_omitted_start_means_the_beginning */
	{ ":3", NULL, "v=\"abcdefghij\"; echo \"[${v[:3]}]\"", "[abc]\n", 0, OK, "" },
	/* an_omitted_end_means_the_rest */
	{ "7:", NULL, "v=\"abcdefghij\"; echo \"[${v[7:]}]\"", "[hij]\n", 0, OK, "" },
	/* a_negative_start_counts_from_the_end */
	{ "-3:", NULL, "v=\"abcdefghij\"; echo \"[${v[-3:]}]\"", "[hij]\n", 0, OK, "" },
	/* a_negative_end_trims_from_the_end */
	{ ":-2", NULL, "v=\"abcdefghij\"; echo \"[${v[:-2]}]\"", "[abcdefgh]\n", 0, OK, "" },
	/* an_over_long_end_clamps_to_the_string */
	{ "0:99", NULL, "v=\"abc\"; echo \"[${v[0:99]}]\"", "[abc]\n", 0, OK, "" },
	/* an_inverted_range_is_empty_not_an_error */
	{ "4:2", NULL, "v=\"abcdef\"; echo \"[${v[4:2]}]\"", "[]\n", 0, OK, "" },
	/* slicing_counts_characters_not_bytes */
	{ "utf8 0:2", NULL, "v=\"日本語です\"; echo \"[${v[0:2]}]\"", "[日本]\n", 0, OK, "" },
	/* a_negative_slice_also_counts_characters */
	{ "utf8 -2:", NULL, "v=\"日本語です\"; echo \"[${v[-2:]}]\"", "[です]\n", 0, OK, "" },
	/* the_list_slice_still_behaves_exactly_as_before (a list from PIPESTATUS here) */
	{ "list slice", NULL, "true | false | true | true | false; echo \"[${PIPESTATUS[1:3]}]\"", "[[1,0]]\n", 0, OK, "" },
	/* the_bash_substring_form_is_a_loud_error_naming_the_kaish_form */
	{ "bash ${v:0:5}", NULL, "v=\"abcdefghij\"; echo \"[${v:0:5}]\"", "", 2, KAISH_ERR_PARSE, "[0:5]" },
	/* the_bash_form_with_an_omitted_offset_names_the_right_kaish_slice */
	{ "bash ${v::5}", NULL, "v=\"abcdefghij\"; echo \"[${v::5}]\"", "", 2, KAISH_ERR_PARSE, "[0:5]" },
	/* the_bash_form_does_not_silently_collapse_a_path */
	{ "bash ${d:0:4}/file", NULL, "d=\"/tmp/somedir\"; echo \"[${d:0:4}/file]\"", "", 2, KAISH_ERR_PARSE, "[0:4]" },
};

/* tests/compound_into_pipe_tests.rs */
static const struct kcase up_compound_pipe[] = {
	/* nested for loops into a pipe */
	{ "nested for | cat", NULL, "for f in a b; do for g in 1 2; do echo \"$f$g\"; done; done | cat", "a1\na2\nb1\nb2\n", 0, OK, "" },
	/* scatter_gather_refuses_a_compound_stage_by_name */
	{ "scatter refuses compound", NULL, "for f in a b; do echo $f; done | scatter | echo x | gather", "", 2, OK, "scatter/gather cannot share a pipeline" },
};

/* tests/quoted_cmdsubst_error_tests.rs */
static const struct kcase up_quoted_subst[] = {
	/* malformed_cmdsubst_in_quotes_is_loud */
	{ "malformed quoted", NULL, "echo \"$(if true; echo 1; fi)\"", "", 2, KAISH_ERR_PARSE, "" "line 1" },
	/* malformed_cmdsubst_unquoted_still_loud */
	{ "malformed unquoted", NULL, "echo $(if true; echo 1; fi)", "", 2, KAISH_ERR_PARSE, "" "line 1" },
	/* valid_cmdsubst_in_quotes_runs */
	{ "valid quoted", NULL, "echo \"$(echo ok)\"", "ok\n", 0, OK, "" },
	/* plain_text_with_cmdsubst_interpolation_runs */
	{ "interpolation", NULL, "echo \"pre $(echo mid) post\"", "pre mid post\n", 0, OK, "" },
	/* unterminated_cmdsubst_in_quotes_is_loud */
	{ "unterminated quoted", NULL, "echo \"pre $(echo hi\"", "", 2, KAISH_ERR_PARSE, "unterminated command substitution, expected ')'" },
	/* unterminated_cmdsubst_unquoted_matches_message */
	{ "unterminated unquoted", NULL, "echo $(echo hi", "", 2, KAISH_ERR_PARSE, "unterminated command substitution, expected ')'" },
};

/* tests/cmdsubst_swallow_siblings_tests.rs */
static const struct kcase up_swallow[] = {
	/* unterminated $( in an unquoted heredoc body */
	{ "heredoc unterminated $(", NULL, "cat <<EOF\npre $(echo hi\nEOF\n", "", 2, KAISH_ERR_PARSE, "unterminated command substitution, expected ')'" },
	/* malformed_cmdsubst_in_heredoc_is_loud */
	{ "heredoc malformed $( )", NULL, "cat <<EOF\npre $(if true; echo 1; fi)\nEOF\n", "", 2, KAISH_ERR_PARSE, "" "line" },
	/* unterminated $( in a ${VAR:-WORD} default */
	{ "default unterminated $(", NULL, "echo ${x:-$(echo hi}", "", 2, KAISH_ERR_PARSE, "unterminated" },
	/* malformed_cmdsubst_in_default_word_is_loud */
	{ "default malformed $( )", NULL, "echo ${x:-$(if true; echo 1; fi)}", "", 2, KAISH_ERR_PARSE, "" "line" },
};

/* tests/shell_compat_tests.rs, tests/shell_bugs_tests.rs: the kaish/bash differences */
static const struct kcase up_shell[] = {
	/* env prefix: the prefix is visible to the command's own arguments (kaish, not bash) */
	{ "prefix visible to args", NULL, "FOO=bar echo $FOO", "bar\n", 0, OK, "" },
	{ "prefix scoped to the command", NULL, "FOO=bar echo $FOO; echo \"[$FOO]\"", "bar\n[]\n", 0, OK, "" },
	/* local with spaces: local x = value */
	{ "local spaced", NULL, "f() { local x = 5; echo $x; }; f", "5\n", 0, OK, "" },
	{ "local plain", NULL, "f() { local x=5; echo $x; }; f", "5\n", 0, OK, "" },
	/* token pasting is refused and named */
	{ "token pasting named", NULL, "d=.; cat $d/f", "", 2, KAISH_ERR_PARSE, "token pasting" },
};

/* tests/hash_word_tests.rs */
static const struct kcase up_hash_word[] = {
	/* hash_in_word_does_not_swallow_the_rest_of_the_line */
	{ "abc#3", NULL, "echo \"bare:\" abc#3; echo \"two:\" x", "bare: abc#3\ntwo: x\n", 0, OK, "" },
	/* short_id_shaped_argument_survives_intact */
	{ "short id", NULL, "echo 2d25fb02#3", "2d25fb02#3\n", 0, OK, "" },
	/* spaced_hash_still_comments_the_rest_of_the_line */
	{ "spaced #", NULL, "echo one #two\necho three", "one\nthree\n", 0, OK, "" },
	/* hash_after_a_variable_reference_is_a_loud_error */
	{ "$x#3", NULL, "x=q; echo $x#3; echo second", "", 2, KAISH_ERR_PARSE, "start of a word; quote the word (\"$x#3\")" },
	/* hash_after_a_closing_paren_is_a_loud_error */
	{ "$( )#3", NULL, "echo $(echo a)#3", "", 2, KAISH_ERR_PARSE, "start of a word" },
	/* arithmetic_after_a_mid_word_hash_still_expands */
	{ "abc# $((1+2))", NULL, "echo abc# $((1+2))", "abc# 3\n", 0, OK, "" },
	/* heredoc_after_a_mid_word_hash_still_collects */
	{ "heredoc after #", NULL, "cat <<EOF # a#b\nbody\nEOF", "body\n", 0, OK, "" },
	/* hash_glued_to_an_arithmetic_expansion_is_a_loud_error */
	{ "$(( ))#3", NULL, "echo $((1+2))#3", "", 2, KAISH_ERR_PARSE, "start of a word" },
	/* quoting_keeps_a_leading_hash_literal */
	{ "quoted #", NULL, "echo \"#3\" '#4'", "#3 #4\n", 0, OK, "" },
	/* hash_after_a_quoted_string_is_a_loud_error */
	{ "\"abc\"#3", NULL, "echo \"abc\"#3; echo second", "", 2, KAISH_ERR_PARSE, "start of a word" },
	{ "'abc'#3", NULL, "echo 'abc'#3", "", 2, KAISH_ERR_PARSE, "start of a word" },
	{ "x=\"a\"#3", NULL, "x=\"a\"#3", "", 2, KAISH_ERR_PARSE, "start of a word" },
	{ "quoted # inside is kept", NULL, "echo \"a\\\"#b\" 'c#'d", "a\"#b c#d\n", 0, OK, "" },
	/* hash_in_an_assignment_target_is_rejected, a_dotted_or_hashed_target_reports_one_code
	 * (ascii_name_class_tests.rs) */
	{ "abc#3=5 is E018", NULL, "abc#3=5; echo ran", "", 2, KAISH_ERR_VALIDATION, "E018 'abc#3' is not a valid assignment target" },
	{ "E018 in a prefix", NULL, "x=1 abc#3=5 echo hi", "", 2, KAISH_ERR_VALIDATION, "E018" },
	{ "user.email=x is E017", NULL, "user.email=x", "", 2, KAISH_ERR_VALIDATION, "E017 'user.email' is not a valid assignment target" },
	/* trailing_hash_stays_in_the_word, repeated_hashes_stay_in_the_word,
	 * hash_in_a_path_stays_in_the_path, hash_after_a_separator_is_a_comment */
	{ "abc# 3", NULL, "echo abc# 3 a#b#c /foo/bar#1; echo x;#c", "abc# 3 a#b#c /foo/bar#1\nx\n", 0, OK, "" },
	/* each_accept_set_member_opens_a_comment: `#` after | && < ( is a comment, never the
	 * mid-word error (the scripts are incomplete on purpose) */
	{ "|# comment", NULL, "echo a |# c", "", 2, KAISH_ERR_PARSE, "expected a command" },
	{ "&&# comment", NULL, "true &&# c\necho a", "a\n", 0, OK, "" },
	{ "<# comment", NULL, "echo a <# c", "", 2, KAISH_ERR_PARSE, "file name" },
};

/* tests/shell_compat_tests.rs: every kaish row but printf's (an absent builtin); the exact
 * out satisfies the row's eq/kaish_eq (trimmed), contains, absent and exit clauses */
static const struct kcase up_shell_compat[] = {
	/* cmdsubst_and_chain */
	{ "cmdsubst_and_chain", NULL, "echo $(true && echo hi)", "hi\n", 0, OK, "" },
	/* cmdsubst_and_chain_short_circuits */
	{ "cmdsubst_and_chain_short_circuits", NULL, "echo $(false && echo nope)", "", 0, OK, "" },
	/* cmdsubst_or_chain */
	{ "cmdsubst_or_chain", NULL, "echo $(false || echo fallback)", "fallback\n", 0, OK, "" },
	/* cmdsubst_chain_in_string_interpolation */
	{ "cmdsubst_chain_in_string_interpolation", NULL, "echo \"result: $(false || echo recovered)\"", "result: recovered\n", 0, OK, "" },
	/* braced_last_exit_code_after_success */
	{ "braced_last_exit_code_after_success", NULL, "true; echo ${?}", "0\n", 0, OK, "" },
	/* braced_last_exit_code_after_failure */
	{ "braced_last_exit_code_after_failure", NULL, "false; echo ${?}", "1\n", 0, OK, "" },
	/* exit_code_in_arithmetic */
	{ "exit_code_in_arithmetic", NULL, "false; echo $(( $? + 10 ))", "11\n", 0, OK, "" },
	/* exit_code_in_arithmetic_after_success */
	{ "exit_code_in_arithmetic_after_success", NULL, "true; echo $(( $? * 5 ))", "0\n", 0, OK, "" },
	/* braced_exit_code_in_arithmetic */
	{ "braced_exit_code_in_arithmetic", NULL, "false; echo $(( ${?} + 5 ))", "6\n", 0, OK, "" },
	/* exit_code_in_string_interpolation */
	{ "exit_code_in_string_interpolation", NULL, "false; echo \"exit code: $?\"", "exit code: 1\n", 0, OK, "" },
	/* braced_exit_code_in_string_interpolation */
	{ "braced_exit_code_in_string_interpolation", NULL, "false; echo \"exit code: ${?}\"", "exit code: 1\n", 0, OK, "" },
	/* colon_exits_zero */
	{ "colon_exits_zero", NULL, ": ; echo $?", "0\n", 0, OK, "" },
	/* colon_ignores_its_arguments */
	{ "colon_ignores_its_arguments", NULL, ": one two three; echo $?", "0\n", 0, OK, "" },
	/* colon_stands_in_for_an_empty_branch */
	{ "colon_stands_in_for_an_empty_branch", NULL, "if false; then echo taken; else :; fi; echo $?", "0\n", 0, OK, "" },
	/* colon_stands_in_for_an_empty_loop_body */
	{ "colon_stands_in_for_an_empty_loop_body", NULL, "for i in a b; do :; done; echo done", "done\n", 0, OK, "" },
	/* colon_stands_in_for_an_empty_function_body */
	{ "colon_stands_in_for_an_empty_function_body", NULL, "f() { :; }; f; echo $?", "0\n", 0, OK, "" },
	/* colon_runs_the_and_chain */
	{ "colon_runs_the_and_chain", NULL, ": && echo AND", "AND\n", 0, OK, "" },
	/* colon_inside_a_word_is_not_a_command */
	{ "colon_inside_a_word_is_not_a_command", NULL, "echo a:b", "a:b\n", 0, OK, "" },
	/* colon_in_an_assignment_value_is_not_a_command */
	{ "colon_in_an_assignment_value_is_not_a_command", NULL, "x=host:8080; echo $x", "host:8080\n", 0, OK, "" },
	/* colon_inside_command_substitution */
	{ "colon_inside_command_substitution", NULL, "echo \"[$(:)]\"", "[]\n", 0, OK, "" },
	/* colon_as_a_pipeline_stage */
	{ "colon_as_a_pipeline_stage", NULL, ": | cat; echo rc=$?", "rc=0\n", 0, OK, "" },
	/* colon_as_a_case_arm_body */
	{ "colon_as_a_case_arm_body", NULL, "case a in a) : ;; esac; echo $?", "0\n", 0, OK, "" },
	/* colon_ignores_flag_shaped_operands */
	{ "colon_ignores_flag_shaped_operands", NULL, ": -x --nope; echo $?", "0\n", 0, OK, "" },
	/* nested_command_substitution */
	{ "nested_command_substitution", NULL, "echo $(echo $(echo hello))", "hello\n", 0, OK, "" },
	/* deeply_nested_command_substitution */
	{ "deeply_nested_command_substitution", NULL, "echo $(echo $(echo $(echo deep)))", "deep\n", 0, OK, "" },
	/* cmd_subst_with_true */
	{ "cmd_subst_with_true", NULL, "VAR=$(true); echo \"exit: $?\"", "exit: 0\n", 0, OK, "" },
	/* cmd_subst_with_false */
	{ "cmd_subst_with_false", NULL, "VAR=$(false); echo \"exit: $?\"", "exit: 1\n", 0, OK, "" },
	/* assignment_failed_subst_fires_or_fallback */
	{ "assignment_failed_subst_fires_or_fallback", NULL, "x=\"$(false)\" || echo FIRED", "FIRED\n", 0, OK, "" },
	/* assignment_ok_subst_holds_or_fallback */
	{ "assignment_ok_subst_holds_or_fallback", NULL, "x=\"$(true)\" || echo FIRED", "", 0, OK, "" },
	/* assignment_failed_subst_gates_and_chain */
	{ "assignment_failed_subst_gates_and_chain", NULL, "x=\"$(false)\" && echo RAN", "", 1, OK, "" },
	/* assignment_plain_resets_stale_status */
	{ "assignment_plain_resets_stale_status", NULL, "false; x=5; echo $?", "0\n", 0, OK, "" },
	/* assignment_last_subst_wins_success */
	{ "assignment_last_subst_wins_success", NULL, "x=\"$(false)$(true)\"; echo $?", "0\n", 0, OK, "" },
	/* assignment_last_subst_wins_failure */
	{ "assignment_last_subst_wins_failure", NULL, "x=\"$(true)$(false)\"; echo $?", "1\n", 0, OK, "" },
	/* assignment_nested_subst_outer_status_wins */
	{ "assignment_nested_subst_outer_status_wins", NULL, "x=$(echo $(false)); echo $?", "0\n", 0, OK, "" },
	/* assignment_subst_body_ends_in_failed_assignment */
	{ "assignment_subst_body_ends_in_failed_assignment", NULL, "x=\"$(y=$(false))\"; echo $?", "1\n", 0, OK, "" },
	/* assignment_with_command_name_takes_command_status */
	{ "assignment_with_command_name_takes_command_status", NULL, "x=$(false) true; echo $?", "0\n", 0, OK, "" },
	/* assignment_failed_subst_trips_errexit */
	{ "assignment_failed_subst_trips_errexit", NULL, "set -e; x=$(false); echo unreachable", "", 1, OK, "" },
	/* assignment_failed_subst_in_or_chain_skips_errexit */
	{ "assignment_failed_subst_in_or_chain_skips_errexit", NULL, "set -e; x=$(false) || x=FALLBACK; echo \"x=$x\"", "x=FALLBACK\n", 0, OK, "" },
	/* export_assignment_takes_command_status */
	{ "export_assignment_takes_command_status", NULL, "export x=$(false); echo $?", "0\n", 0, OK, "" },
	/* export_assignment_holds_or_fallback */
	{ "export_assignment_holds_or_fallback", NULL, "export x=$(false) || echo FIRED", "", 0, OK, "" },
	/* export_assignment_runs_and_chain */
	{ "export_assignment_runs_and_chain", NULL, "export x=$(false) && echo OK", "OK\n", 0, OK, "" },
	/* assignment_subst_body_outer_statement_wins */
	{ "assignment_subst_body_outer_statement_wins", NULL, "x=\"$(y=$(false); true)\"; echo $?", "0\n", 0, OK, "" },
	/* assignment_subst_body_failing_last_statement_wins */
	{ "assignment_subst_body_failing_last_statement_wins", NULL, "x=\"$(y=$(true); false)\"; echo $?", "1\n", 0, OK, "" },
	/* bare_subst_does_not_leak_into_later_assignment */
	{ "bare_subst_does_not_leak_into_later_assignment", NULL, "true $(false); x=5; echo $?", "0\n", 0, OK, "" },
	/* pipeline_subst_does_not_leak_into_later_assignment */
	{ "pipeline_subst_does_not_leak_into_later_assignment", NULL, "echo \"$(false)\" | cat; x=5; echo $?", "0\n", 0, OK, "" },
	/* subst_updates_exit_status_within_the_same_word */
	{ "subst_updates_exit_status_within_the_same_word", NULL, "false; echo \"$(true) $?\"", " 0\n", 0, OK, "" },
	/* failed_subst_updates_exit_status_within_the_same_word */
	{ "failed_subst_updates_exit_status_within_the_same_word", NULL, "true; echo \"$(false) $?\"", " 1\n", 0, OK, "" },
	/* exit_status_before_a_subst_in_the_same_word_is_the_prior_statement */
	{ "exit_status_before_a_subst_in_the_same_word_is_the_prior_statement", NULL, "true; echo \"[$?:$(false)]\"", "[0:]\n", 0, OK, "" },
	/* assignment_ok_subst_does_not_trip_errexit */
	{ "assignment_ok_subst_does_not_trip_errexit", NULL, "set -e; x=$(true); echo reached", "reached\n", 0, OK, "" },
	/* if_with_no_branch_taken_clears_stale_status */
	{ "if_with_no_branch_taken_clears_stale_status", NULL, "false; if false; then true; fi; echo $?", "0\n", 0, OK, "" },
	/* while_with_zero_iterations_clears_stale_status */
	{ "while_with_zero_iterations_clears_stale_status", NULL, "false; while false; do true; done; echo $?", "0\n", 0, OK, "" },
	/* for_with_zero_iterations_clears_stale_status */
	{ "for_with_zero_iterations_clears_stale_status", NULL, "for i in $(false); do true; done; echo $?", "0\n", 0, OK, "" },
	/* case_with_no_matching_branch_clears_stale_status */
	{ "case_with_no_matching_branch_clears_stale_status", NULL, "false; case a in b) true;; esac; echo $?", "0\n", 0, OK, "" },
	/* while_broken_on_first_iteration_clears_stale_status */
	{ "while_broken_on_first_iteration_clears_stale_status", NULL, "false; while true; do break; done; echo $?", "0\n", 0, OK, "" },
	/* for_broken_on_first_iteration_clears_stale_status */
	{ "for_broken_on_first_iteration_clears_stale_status", NULL, "false; for i in a; do break; done; echo $?", "0\n", 0, OK, "" },
	/* if_else_branch_status_survives */
	{ "if_else_branch_status_survives", NULL, "if false; then true; else false; fi; echo $?", "1\n", 0, OK, "" },
	/* for_body_status_survives */
	{ "for_body_status_survives", NULL, "for i in a; do false; done; echo $?", "1\n", 0, OK, "" },
	/* case_matched_branch_status_survives */
	{ "case_matched_branch_status_survives", NULL, "case a in a) false;; esac; echo $?", "1\n", 0, OK, "" },
	/* while_body_status_survives */
	{ "while_body_status_survives", NULL, "x=0; while [[ $x -eq 0 ]]; do x=1; false; done; echo $?", "1\n", 0, OK, "" },
	/* case_matched_empty_branch_clears_stale_status */
	{ "case_matched_empty_branch_clears_stale_status", NULL, "false; case a in a) ;; esac; echo $?", "0\n", 0, OK, "" },
	/* cmd_subst_in_string */
	{ "cmd_subst_in_string", NULL, "echo \"inner: $(echo nested)\"", "inner: nested\n", 0, OK, "" },
	/* cmd_subst_in_string_with_var */
	{ "cmd_subst_in_string_with_var", NULL, "VAL=world; echo \"hello $(echo $VAL)\"", "hello world\n", 0, OK, "" },
	/* var_in_default_with_cmd_subst */
	{ "var_in_default_with_cmd_subst", NULL, "echo \"${UNSET:-$(echo computed)}\"", "computed\n", 0, OK, "" },
	/* return_does_not_leak_to_capture */
	{ "return_does_not_leak_to_capture", NULL, "f() {\n    echo output\n    return 5\n}\nX=$(f)\necho \"captured: [$X]\"\n", "captured: [output]\n", 0, OK, "" },
	/* return_sets_exit_code */
	{ "return_sets_exit_code", NULL, "f() { return 42; }\nf\necho $?\n", "42\n", 0, OK, "" },
	/* cmd_subst_in_return */
	{ "cmd_subst_in_return", NULL, "f() { return $(echo 42); }\nf\necho $?\n", "42\n", 0, OK, "" },
	/* return_without_value */
	{ "return_without_value", NULL, "f() { echo hi; return; }\nX=$(f)\necho \"got: [$X]\"\n", "got: [hi]\n", 0, OK, "" },
	/* positional_params_arithmetic_add */
	{ "positional_params_arithmetic_add", NULL, "add() {\n    echo $(($1 + $2))\n}\nadd 3 4\n", "7\n", 0, OK, "" },
	/* positional_params_arithmetic_mul */
	{ "positional_params_arithmetic_mul", NULL, "mul() {\n    echo $(($1 * $2))\n}\nmul 5 6\n", "30\n", 0, OK, "" },
	/* export_with_value */
	{ "export_with_value", NULL, "export FOO=\"bar\"; echo $FOO", "bar\n", 0, OK, "" },
	/* export_multiple_vars */
	{ "export_multiple_vars", NULL, "export A=1; export B=2; echo \"$A $B\"", "1 2\n", 0, OK, "" },
	/* env_prefix_does_not_leak */
	{ "env_prefix_does_not_leak", NULL, "FOO=bar echo hi; echo \"[$FOO]\"", "hi\n[]\n", 0, OK, "" },
	/* env_prefix_multiple_do_not_leak */
	{ "env_prefix_multiple_do_not_leak", NULL, "A=1 B=2 echo hi; echo \"[$A$B]\"", "hi\n[]\n", 0, OK, "" },
	/* plain_assignment_still_persists */
	{ "plain_assignment_still_persists", NULL, "FOO=bar; echo $FOO", "bar\n", 0, OK, "" },
	/* nested_var_default_all_unset */
	{ "nested_var_default_all_unset", NULL, "echo \"${A:-${B:-deep}}\"", "deep\n", 0, OK, "" },
	/* nested_var_default_outer_set */
	{ "nested_var_default_outer_set", NULL, "A=outer; echo \"${A:-${B:-deep}}\"", "outer\n", 0, OK, "" },
	/* nested_var_default_middle_set */
	{ "nested_var_default_middle_set", NULL, "B=middle; echo \"${A:-${B:-deep}}\"", "middle\n", 0, OK, "" },
	/* deeply_nested_var_defaults */
	{ "deeply_nested_var_defaults", NULL, "echo \"${A:-${B:-${C:-deepest}}}\"", "deepest\n", 0, OK, "" },
	/* cmd_subst_in_test_eq */
	{ "cmd_subst_in_test_eq", NULL, "[[ $(echo hello) == \"hello\" ]] && echo \"match\" || echo \"nope\"", "match\n", 0, OK, "" },
	/* cmd_subst_in_test_neq */
	{ "cmd_subst_in_test_neq", NULL, "[[ $(echo hello) != \"world\" ]] && echo \"diff\" || echo \"same\"", "diff\n", 0, OK, "" },
	/* cmd_subst_in_case */
	{ "cmd_subst_in_case", NULL, "case $(echo hello) in\n    hello) echo \"matched\" ;;\n    *) echo \"nope\" ;;\nesac\n", "matched\n", 0, OK, "" },
	/* case_triple_dash_matches */
	{ "case_triple_dash_matches", NULL, "x=\"---\"; case $x in\n    ---) echo \"match\" ;;\n    *) echo \"nope\" ;;\nesac", "match\n", 0, OK, "" },
	/* case_dash_alternation_matches */
	{ "case_dash_alternation_matches", NULL, "x=\"--help\"; case $x in\n    -h|--help) echo \"match\" ;;\n    *) echo \"nope\" ;;\nesac", "match\n", 0, OK, "" },
	/* case_dash_pattern_star_fallback_still_works */
	{ "case_dash_pattern_star_fallback_still_works", NULL, "x=\"other\"; case $x in\n    ---) echo \"dash\" ;;\n    *) echo \"fallback\" ;;\nesac", "fallback\n", 0, OK, "" },
	/* compound_and_both_true */
	{ "compound_and_both_true", NULL, "[[ -d / && -d /tmp ]] && echo \"both\"", "both\n", 0, OK, "" },
	/* compound_and_one_false */
	{ "compound_and_one_false", NULL, "[[ -d / && -f /nonexistent_kaish_test ]] && echo \"both\" || echo \"failed\"", "failed\n", 0, OK, "" },
	/* compound_or_first_true */
	{ "compound_or_first_true", NULL, "[[ -d / || -f /nonexistent_kaish_test ]] && echo \"one\"", "one\n", 0, OK, "" },
	/* compound_or_second_true */
	{ "compound_or_second_true", NULL, "[[ -f /nonexistent_kaish_test || -d / ]] && echo \"one\"", "one\n", 0, OK, "" },
	/* compound_or_both_false */
	{ "compound_or_both_false", NULL, "[[ -f /nonexistent_kaish_test || -f /also_nonexistent_kaish ]] && echo \"yes\" || echo \"no\"", "no\n", 0, OK, "" },
	/* compound_not_true */
	{ "compound_not_true", NULL, "[[ ! -f /nonexistent_kaish_test ]] && echo \"correct\"", "correct\n", 0, OK, "" },
	/* compound_not_false */
	{ "compound_not_false", NULL, "[[ ! -d / ]] && echo \"yes\" || echo \"no\"", "no\n", 0, OK, "" },
	/* compound_double_not */
	{ "compound_double_not", NULL, "[[ ! ! -d / ]] && echo \"yes\" || echo \"no\"", "yes\n", 0, OK, "" },
	/* compound_string_tests */
	{ "compound_string_tests", NULL, "VAR=\"\"; [[ -z \"$VAR\" || -n \"default\" ]] && echo \"ok\"", "ok\n", 0, OK, "" },
	/* compound_with_comparison */
	{ "compound_with_comparison", NULL, "X=5; [[ $X -gt 3 && $X -lt 10 ]] && echo \"in range\"", "in range\n", 0, OK, "" },
	/* compound_in_if */
	{ "compound_in_if", NULL, "X=5\nif [[ $X -gt 0 && $X -lt 10 ]]; then\n    echo valid\nelse\n    echo invalid\nfi\n", "valid\n", 0, OK, "" },
	/* numeric_ge_multidigit_unquoted */
	{ "numeric_ge_multidigit_unquoted", NULL, "X=15; [[ $X -ge 2 ]] && echo ok || echo nope", "ok\n", 0, OK, "" },
	/* numeric_ge_multidigit_quoted */
	{ "numeric_ge_multidigit_quoted", NULL, "X=15; [[ \"$X\" -ge 2 ]] && echo ok || echo nope", "ok\n", 0, OK, "" },
	/* numeric_ge_string_literals */
	{ "numeric_ge_string_literals", NULL, "[[ \"15\" -ge \"2\" ]] && echo ok || echo nope", "ok\n", 0, OK, "" },
	/* numeric_lt_multidigit_via_cmd_subst */
	{ "numeric_lt_multidigit_via_cmd_subst", NULL, "COUNT=$(echo 5); [[ \"$COUNT\" -lt 10 ]] && echo ok || echo nope", "ok\n", 0, OK, "" },
	/* numeric_gt_two_quoted_strings */
	{ "numeric_gt_two_quoted_strings", NULL, "[[ \"15\" -gt \"2\" ]] && echo ok || echo nope", "ok\n", 0, OK, "" },
	/* numeric_le_two_quoted_strings */
	{ "numeric_le_two_quoted_strings", NULL, "[[ \"2\" -le \"15\" ]] && echo ok || echo nope", "ok\n", 0, OK, "" },
	/* numeric_eq_leading_zero_string */
	{ "numeric_eq_leading_zero_string", NULL, "[[ \"01\" -eq \"1\" ]] && echo ok || echo nope", "ok\n", 0, OK, "" },
	/* numeric_ne_quoted_strings */
	{ "numeric_ne_quoted_strings", NULL, "[[ \"2\" -ne \"15\" ]] && echo ok || echo nope", "ok\n", 0, OK, "" },
	/* string_eq_leading_zero_vs_int_literal */
	{ "string_eq_leading_zero_vs_int_literal", NULL, "X=\"01\"; [[ \"$X\" == 1 ]] && echo same || echo diff", "diff\n", 0, OK, "" },
	/* string_eq_leading_zero_vs_quoted */
	{ "string_eq_leading_zero_vs_quoted", NULL, "X=\"01\"; [[ \"$X\" == \"1\" ]] && echo same || echo diff", "diff\n", 0, OK, "" },
	/* string_eq_quoted_vs_int_literal_agree */
	{ "string_eq_quoted_vs_int_literal_agree", NULL, "X=\"1\"; [[ \"$X\" == 1 ]] && [[ \"$X\" == \"1\" ]] && echo agree || echo split", "agree\n", 0, OK, "" },
	/* numeric_eq_handles_what_string_eq_does_not */
	{ "numeric_eq_handles_what_string_eq_does_not", NULL, "X=\"01\"; [[ \"$X\" -eq 1 ]] && echo numeric || echo lex", "numeric\n", 0, OK, "" },
	/* compound_short_circuit_or */
	{ "compound_short_circuit_or", NULL, "[[ -d / || $(cat /nonexistent_file) == \"x\" ]] && echo \"yes\" || echo \"no\"", "yes\n", 0, OK, NULL },
	/* compound_short_circuit_and */
	{ "compound_short_circuit_and", NULL, "[[ -f /nonexistent_kaish_test && $(cat /nonexistent_file) == \"x\" ]] && echo \"yes\" || echo \"no\"", "no\n", 0, OK, NULL },
	/* compound_not_with_and */
	{ "compound_not_with_and", NULL, "[[ ! -f /nonexistent_kaish_test && -d / ]] && echo \"both\"", "both\n", 0, OK, "" },
	/* compound_precedence */
	{ "compound_precedence", NULL, "[[ -f /nonexistent_kaish_test || -d / && -d /tmp ]] && echo \"yes\" || echo \"no\"", "yes\n", 0, OK, "" },
	/* colon_in_unquoted_arg */
	{ "colon_in_unquoted_arg", NULL, "echo foo::bar", "foo::bar\n", 0, OK, "" },
	/* colon_port_in_arg */
	{ "colon_port_in_arg", NULL, "echo host:8080", "host:8080\n", 0, OK, "" },
	/* colon_in_variable_assignment */
	{ "colon_in_variable_assignment", NULL, "PATH=/usr/bin:/usr/local/bin\necho $PATH", "/usr/bin:/usr/local/bin\n", 0, OK, "" },
	/* pipeline_large_output_no_deadlock */
	{ "pipeline_large_output_no_deadlock", NULL, "seq 1 20000 | wc -l", "20000\n", 0, OK, "" },
	/* pipeline_three_stage_large_output_no_deadlock */
	{ "pipeline_three_stage_large_output_no_deadlock", NULL, "seq 1 20000 | grep '1' | wc -l", "13439\n", 0, OK, "" },
	/* cmd_subst_variable_isolation */
	{ "cmd_subst_variable_isolation", NULL, "X=outer\nset_inner() { X=inner; echo $X; }\nY=$(set_inner)\necho $X\n", "outer\n", 0, OK, "" },
	/* for_loop_cleanup_after_body_failure */
	{ "for_loop_cleanup_after_body_failure", NULL, "for i in 1 2 3; do\n    false\ndone\nfor j in a b c; do\n    echo $j\ndone\n", "a\nb\nc\n", 0, OK, "" },
	/* errexit_after_and_chain */
	{ "errexit_after_and_chain", NULL, "set -e\ntrue && true\nfalse\necho \"should not reach\"\n", "", 1, OK, "" },
	/* errexit_after_or_chain */
	{ "errexit_after_or_chain", NULL, "set -e\nfalse || true\nfalse\necho \"should not reach\"\n", "", 1, OK, "" },
	/* errexit_suppressed_inside_and_chain_left */
	{ "errexit_suppressed_inside_and_chain_left", NULL, "set -e\nfalse && echo right\necho reached\n", "reached\n", 0, OK, "" },
	/* false_exits_one */
	{ "false_exits_one", NULL, "false", "", 1, OK, "" },
	/* explicit_exit_code */
	{ "explicit_exit_code", NULL, "exit 7", "", 7, OK, "" },
	/* command_subst_no_implicit_split */
	{ "command_subst_no_implicit_split", NULL, "for x in $(echo \"a b c\"); do echo \"[$x]\"; done", "[a b c]\n", 0, OK, "" },
	/* for_loop_variable_scoping */
	{ "for_loop_variable_scoping", NULL, "for i in 1 2 3; do\n    true\ndone\necho \"after: [$i]\"\n", "after: []\n", 0, OK, "" },
	/* default_word_double_quoted_strips_quotes */
	{ "default_word_double_quoted_strips_quotes", NULL, "echo ${NAME:-\"default\"}", "default\n", 0, OK, "" },
	/* default_word_single_quoted_strips_quotes */
	{ "default_word_single_quoted_strips_quotes", NULL, "echo ${NAME:-'default'}", "default\n", 0, OK, "" },
	/* default_word_bare_unchanged */
	{ "default_word_bare_unchanged", NULL, "echo ${NAME:-default}", "default\n", 0, OK, "" },
	/* default_word_double_quoted_with_spaces */
	{ "default_word_double_quoted_with_spaces", NULL, "echo ${NAME:-\"a b c\"}", "a b c\n", 0, OK, "" },
	/* default_word_double_quoted_interpolates */
	{ "default_word_double_quoted_interpolates", NULL, "X=hi; echo ${NAME:-\"$X there\"}", "hi there\n", 0, OK, "" },
	/* default_word_single_quoted_suppresses_interpolation */
	{ "default_word_single_quoted_suppresses_interpolation", NULL, "X=hi; echo ${NAME:-'$X there'}", "$X there\n", 0, OK, "" },
	/* default_word_set_value_wins_over_quoted_default */
	{ "default_word_set_value_wins_over_quoted_default", NULL, "NAME=actual; echo ${NAME:-\"default\"}", "actual\n", 0, OK, "" },
	/* default_word_double_quoted_escaped_quotes_literal */
	{ "default_word_double_quoted_escaped_quotes_literal", NULL, "echo ${NAME:-\"hello \\\"world\\\"\"}", "hello \"world\"\n", 0, OK, "" },
	/* default_word_escaped_backslash_before_quote */
	{ "default_word_escaped_backslash_before_quote", NULL, "echo ${NAME:-\"a\\\\\"}", "a\\\n", 0, OK, "" },
	/* default_word_mixed_single_and_escaped_double_quotes */
	{ "default_word_mixed_single_and_escaped_double_quotes", NULL, "echo ${NAME:-\"it's \\\"quoted\\\"\"}", "it's \"quoted\"\n", 0, OK, "" },
	/* default_word_double_quoted_backslash_before_squote_literal */
	{ "default_word_double_quoted_backslash_before_squote_literal", NULL, "echo ${NAME:-\"a\\'b\"}", "a\\'b\n", 0, OK, "" },
	/* default_word_single_quoted_strips_delimiters */
	{ "default_word_single_quoted_strips_delimiters", NULL, "echo ${NAME:-'x'}", "x\n", 0, OK, "" },
	/* default_word_single_quoted_no_interpolation */
	{ "default_word_single_quoted_no_interpolation", NULL, "echo ${NAME:-'$HOME'}", "$HOME\n", 0, OK, "" },
	/* default_word_single_quoted_backslash_literal */
	{ "default_word_single_quoted_backslash_literal", NULL, "echo ${NAME:-'a\\b'}", "a\\b\n", 0, OK, "" },
	/* default_word_single_quote_embed_idiom */
	{ "default_word_single_quote_embed_idiom", NULL, "echo ${NAME:-'it'\\''s'}", "it's\n", 0, OK, "" },
	/* break_2_preserves_inner_output */
	{ "break_2_preserves_inner_output", NULL, "for i in 1 2; do for j in a b; do echo \"$j\"; break 2; done; done", "a\n", 0, OK, "" },
	/* break_1_preserves_output */
	{ "break_1_preserves_output", NULL, "for i in 1 2 3; do echo \"$i\"; break; done", "1\n", 0, OK, "" },
	/* break_2_preserves_outer_and_inner_output */
	{ "break_2_preserves_outer_and_inner_output", NULL, "for i in x y; do echo \"outer$i\"; for j in a b; do echo \"inner$j\"; break 2; done; done", "outerx\ninnera\n", 0, OK, "" },
	/* continue_2_preserves_inner_output */
	{ "continue_2_preserves_inner_output", NULL, "for i in 1 2; do for j in a b; do echo \"i${i}j${j}\"; continue 2; done; done", "i1ja\ni2ja\n", 0, OK, "" },
	/* unset_is_silent */
	{ "unset_is_silent", NULL, "X=1; unset X; echo done", "done\n", 0, OK, "" },
	/* standalone_test_failure_writes_status */
	{ "standalone_test_failure_writes_status", NULL, "[[ 1 = 2 ]]; echo $?", "1\n", 0, OK, "" },
	/* standalone_test_success_writes_status */
	{ "standalone_test_success_writes_status", NULL, "false; [[ 1 = 1 ]]; echo $?", "0\n", 0, OK, "" },
	/* standalone_test_status_captured_in_var */
	{ "standalone_test_status_captured_in_var", NULL, "[[ a = b ]]; ok=$?; echo $ok", "1\n", 0, OK, "" },
	/* failing_test_gates_and_chain */
	{ "failing_test_gates_and_chain", NULL, "[[ 1 = 2 ]] && echo skipped; echo done", "done\n", 0, OK, "" },
	/* failing_test_statement_trips_errexit */
	{ "failing_test_statement_trips_errexit", NULL, "set -e; [[ 1 = 2 ]]; echo unreachable", "", 1, OK, "" },
	/* hash_mid_word_is_literal */
	{ "hash_mid_word_is_literal", NULL, "echo abc#3", "abc#3\n", 0, OK, "" },
	/* hash_mid_word_does_not_swallow_the_line */
	{ "hash_mid_word_does_not_swallow_the_line", NULL, "echo abc#3; echo two", "abc#3\ntwo\n", 0, OK, "" },
	/* hash_in_path_is_literal */
	{ "hash_in_path_is_literal", NULL, "echo /foo/bar#1", "/foo/bar#1\n", 0, OK, "" },
	/* repeated_hashes_are_literal */
	{ "repeated_hashes_are_literal", NULL, "echo a#b#c", "a#b#c\n", 0, OK, "" },
	/* trailing_hash_belongs_to_the_word */
	{ "trailing_hash_belongs_to_the_word", NULL, "echo abc# 3", "abc# 3\n", 0, OK, "" },
	/* spaced_hash_starts_a_comment */
	{ "spaced_hash_starts_a_comment", NULL, "echo abc #3", "abc\n", 0, OK, "" },
	/* hash_after_semicolon_starts_a_comment */
	{ "hash_after_semicolon_starts_a_comment", NULL, "echo a;#c", "a\n", 0, OK, "" },
	/* quoted_leading_hash_is_literal */
	{ "quoted_leading_hash_is_literal", NULL, "echo '#3'", "#3\n", 0, OK, "" },
};

/* tests/shell_bugs_tests.rs: the kaish-only rows (not VFS `/v`, find, split, list/record
 * literals, kaish-clear, Kernel::fork, `. file`; the top-level return is an api test) */
static const struct kcase up_shell_bugs[] = {
	/* test_braced_vs_unbraced_exit_code_equivalence */
	{ "braced $? equals $?", NULL, "false; a=$?; false; b=${?}; echo $a $b", "1 1\n", 0, OK, "" },
	/* test_pid_in_arithmetic */
	{ "$$ in arithmetic", NULL, "x=$(( $$ % 100000 )); [[ $x -ge 0 ]] && echo nonneg", "nonneg\n", 0, OK, "" },
	/* test_braced_current_pid, test_braced_vs_unbraced_pid_equivalence */
	{ "${$} is $$ and positive", NULL, "[[ ${$} -gt 0 ]] && [[ \"${$}\" == \"$$\" ]] && echo same", "same\n", 0, OK, "" },
	/* test_local_variable_scoping */
	{ "local scoping", NULL, "x=outer\nf() {\n    local x = inner\n    echo \"in func: $x\"\n}\nf\necho \"after func: $x\"\n", "in func: inner\nafter func: outer\n", 0, OK, "" },
	/* test_local_does_not_affect_outer_scope */
	{ "local leaves outer", NULL, "count=0\nincrement() {\n    local count = 99\n}\nincrement\necho $count\n", "0\n", 0, OK, "" },
	/* test_non_local_modifies_outer_scope */
	{ "non-local modifies outer", NULL, "count=0\nincrement() {\n    count=99\n}\nincrement\necho $count\n", "99\n", 0, OK, "" },
	/* test_local_with_command_substitution */
	{ "local = $( )", NULL, "val=original\nf() {\n    local val = $(echo \"from_cmd\")\n    echo \"local: $val\"\n}\nf\necho \"outer: $val\"\n", "local: from_cmd\nouter: original\n", 0, OK, "" },
	/* test_positional_params_arithmetic_with_variable */
	{ "local in arithmetic with $1", NULL, "calc() {\n    local base = 10\n    echo $(($base + $1))\n}\ncalc 5\n", "15\n", 0, OK, "" },
	/* test_for_loop_with_seq_returns_array */
	{ "for over $(seq)", NULL, "for num in $(seq 1 3); do\n    echo \"number $num\"\ndone\n", "number 1\nnumber 2\nnumber 3\n", 0, OK, "" },
	/* test_stdout_to_stderr_redirect_1_ampersand_2 */
	{ "1>&2", NULL, "echo error 1>&2", "", 0, OK, "error" },
	/* test_stdout_to_stderr_redirect_ampersand_2 */
	{ ">&2", NULL, "echo warning >&2", "", 0, OK, "warning" },
	/* test_cmd_subst_cwd_isolation */
	{ "$( ) cd does not leak", NULL, "go_root() { cd /; pwd; }\nX=$(go_root)\n[[ \"$(pwd)\" != / ]] && echo isolated\n", "isolated\n", 0, OK, "" },
	/* test_cmd_subst_in_string_cwd_isolation */
	{ "\"$( )\" cd does not leak", NULL, "go_root() { cd /; pwd; }\necho \"dir: $(go_root)\"\n[[ \"$(pwd)\" != / ]] && echo isolated\n", "dir: /\nisolated\n", 0, OK, "" },
	/* test_cmd_subst_captures_output_correctly */
	{ "$( ) captures after cd", NULL, "go_root() { cd /; pwd; }\nX=$(go_root)\necho \"captured: $X\"\n", "captured: /\n", 0, OK, "" },
	/* test_argv_digit_leading_hex_passes_through */
	{ "digit-leading hex", NULL, "echo 019dda1c \"msg\"", "019dda1c msg\n", 0, OK, "" },
	/* test_argv_digit_leading_uuid_passes_through */
	{ "uuid bareword", NULL, "echo 019dda1c-5b3f-7000-abcd-0123456789ab", "019dda1c-5b3f-7000-abcd-0123456789ab\n", 0, OK, "" },
	/* test_argv_dot_prefixed_simple */
	{ ".parent", NULL, "echo .parent \"msg\"", ".parent msg\n", 0, OK, "" },
	/* test_argv_dot_prefixed_chained */
	{ ".parent.parent", NULL, "echo .parent.parent", ".parent.parent\n", 0, OK, "" },
	/* test_argv_dot_prefixed_hidden_file */
	{ ".gitignore", NULL, "echo .gitignore", ".gitignore\n", 0, OK, "" },
	/* test_bang_binds_tighter_than_or */
	{ "! A || B (A false)", NULL, "if [[ ! \"a\" == \"b\" || \"a\" == \"a\" ]]; then echo Y; else echo N; fi", "Y\n", 0, OK, "" },
	{ "! A || B (A true)", NULL, "if [[ ! \"a\" == \"a\" || \"b\" == \"b\" ]]; then echo Y; else echo N; fi", "Y\n", 0, OK, "" },
	/* test_bang_binds_tighter_than_and */
	{ "! A && B (A true)", NULL, "if [[ ! \"a\" == \"a\" && \"b\" == \"b\" ]]; then echo Y; else echo N; fi", "N\n", 0, OK, "" },
	{ "! A && B (A false)", NULL, "if [[ ! \"a\" == \"b\" && \"b\" == \"b\" ]]; then echo Y; else echo N; fi", "Y\n", 0, OK, "" },
	/* test_bang_single_term_unaffected */
	{ "! a==b", NULL, "if [[ ! \"a\" == \"b\" ]]; then echo Y; else echo N; fi", "Y\n", 0, OK, "" },
	{ "! a==a", NULL, "if [[ ! \"a\" == \"a\" ]]; then echo Y; else echo N; fi", "N\n", 0, OK, "" },
	{ "! ! a==a", NULL, "if [[ ! ! \"a\" == \"a\" ]]; then echo Y; else echo N; fi", "Y\n", 0, OK, "" },
	/* test_double_dash_protects_internal_hyphen_word */
	{ "-- -not-a-flag", NULL, "echo -- -not-a-flag", "-not-a-flag\n", 0, OK, "" },
	/* test_double_dash_protects_multiple_dash_words */
	{ "-- -a-b -c-d", NULL, "echo -- -a-b -c-d", "-a-b -c-d\n", 0, OK, "" },
	/* test_double_dash_allows_bareword_assignment */
	{ "-- a=b", NULL, "echo -- a=b", "a=b\n", 0, OK, "" },
	/* test_double_dash_allows_multiple_bareword_assignments */
	{ "-- a=b c=d", NULL, "echo -- a=b c=d", "a=b c=d\n", 0, OK, "" },
	/* test_local_assignment_propagates_subst_status (and `}` with no `;` before it) */
	{ "local x=$(false) status", NULL, "f() { local x=$(false) }; f; echo $?", "1\n", 0, OK, "" },
	{ "local x=$(true) status", NULL, "f() { local x=$(true) }; f; echo $?", "0\n", 0, OK, "" },
	{ "local last subst wins", NULL, "f() { local a=$(false) b=$(true); }; f; echo $?", "0\n", 0, OK, "" },
	{ "local under set -e", NULL, "set -e; f() { local x=$(false); echo no; }; f; echo after", "", 1, OK, "" },
	/* test_local_assignment_or_fallback_fires */
	{ "local x=\"$(false)\" || fires", NULL, "f() { local x=\"$(false)\" || echo FIRED }; f", "FIRED\n", 0, OK, "" },
	/* test_errexit_preserves_builtin_error_message */
	{ "set -e keeps the message", NULL, "set -e; wc --bogus-flag-xyz", "", 2, OK, "wc" },
	{ "without set -e, same", NULL, "wc --bogus-flag-xyz", "", 2, OK, "wc" },
	/* test_errexit_preserves_message_for_missing_file */
	{ "set -e; cat /nope", NULL, "set -e; cat /nope", "", 1, OK, "/nope" },
	/* test_errexit_preserves_message_in_for_loop_body */
	{ "set -e in a for body", NULL, "set -e\nfor x in a; do\n    echo pre\n    wc --bogus-flag-xyz\n    echo SHOULD_NOT_RUN\ndone\necho ALSO_NOT_RUN", "pre\n", 2, OK, "wc" },
	/* test_errexit_preserves_message_in_while_loop_body */
	{ "set -e in a while body", NULL, "set -e\ni=0\nwhile [[ $i -lt 1 ]]; do\n    echo pre\n    wc --bogus-flag-xyz\n    echo SHOULD_NOT_RUN\n    i=1\ndone\necho ALSO_NOT_RUN", "pre\n", 2, OK, "wc" },
	/* test_errexit_still_aborts_statement_list */
	{ "set -e aborts the list", NULL, "set -e; wc --bogus-flag-xyz; echo SHOULD_NOT_RUN", "", 2, OK, "wc" },
	/* test_errexit_success_continues */
	{ "set -e success continues", NULL, "set -e; true; echo CONTINUED", "CONTINUED\n", 0, OK, "" },
	/* test_exit_n_carries_no_message_of_its_own */
	{ "exit 3 no message", NULL, "echo hi; exit 3", "hi\n", 3, OK, "" },
	/* test_return_n_carries_no_message_of_its_own */
	{ "return 3 no message", NULL, "f() { echo hi; return 3; }; f", "hi\n", 3, OK, "" },
	/* `}` closes a brace body without a `;` (the form the rows above use) */
	{ "{ cmd } no ;", NULL, "{ echo a }; f() { echo b }; f; echo }", "a\nb\n}\n", 0, OK, "" },
};

Test(upstream, hash_word_tests) { RUN(up_hash_word); }
Test(upstream, heredoc_tests) { RUN(up_heredoc); }
Test(upstream, pipefail_tests) { RUN(up_pipefail); }
Test(upstream, test_builtin_tests) { RUN(up_test_builtin); }
Test(upstream, cmdsubst_control_structures_tests) { RUN(up_cmdsubst_ctl); }
Test(upstream, set_option_tests) { RUN(up_set_option); }
Test(upstream, pwd_tracking_tests) { RUN(up_pwd); }
Test(upstream, validation_tests) { RUN(up_validation); }
Test(upstream, scatter_gather_jsonl_tests) { RUN(up_sg_jsonl); }
Test(upstream, string_slice_tests) { RUN(up_slice); }
Test(upstream, compound_into_pipe_tests) { RUN(up_compound_pipe); }
Test(upstream, quoted_cmdsubst_error_tests) { RUN(up_quoted_subst); }
Test(upstream, cmdsubst_swallow_siblings_tests) { RUN(up_swallow); }
Test(upstream, shell_compat_and_bugs_tests) { RUN(up_shell); }
Test(upstream, shell_compat_tests) { RUN(up_shell_compat); }
Test(upstream, shell_bugs_tests) { RUN(up_shell_bugs); }

Test(lang, quoting_and_expansion) { RUN(quoting); }
Test(lang, command_substitution) { RUN(subst); }
Test(lang, control_flow) { RUN(control); }
Test(lang, functions) { RUN(funcs); }
Test(lang, pipelines_and_redirects) { RUN(pipes_redirs); }
Test(lang, parse_and_validation_errors) { RUN(errors); }

/* --- output limit (agent preset: 8 KiB per result) ------------------------------------------ */

struct limit_case {
	const char *name;
	const char *script;
	size_t out_len;	  /* exact length of out */
	const char *tail; /* suffix of out */
	int code, orig;	  /* code and original_code */
	bool spill;	  /* did_spill */
};

/* `seq 1 1500` prints 6,393 B, under the limit; `seq 1 3000` 13,893 B, over it: cut to
 * 1 KiB head + the 58 B marker line + 512 B tail. */
static const struct limit_case limits[] = {
	{ "two statements under the limit each (§2.3 6, §4.2)", "seq 1 1500; seq 1 1500", 12786,
	  "1499\n1500\n", 0, 0, false },
	{ "loop body statements (§2.3 6)", "for i in 1 2 3; do seq 1 1500; done", 19179,
	  "1500\n", 0, 0, false },
	{ "one statement over, then more (§4.2)", "seq 1 3000; echo after", 1024 + 58 + 512 + 6,
	  "3000\nafter\n", 0, 0, true },
	{ "last statement over: code 3 (§1.4, §4.2)", "echo a; seq 1 3000", 2 + 1024 + 58 + 512,
	  "2999\n3000\n", 3, 0, true },
	{ "pipeline result, not its stages (§2.3 6)", "seq 1 3000 | wc -l", 5, "3000\n", 0, 0,
	  false },
};

Test(lang, output_limit_per_statement)
{
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		const struct limit_case *c = &limits[i];
		char *dir = kh_mkfixture(false);
		kaish_kernel *k = kh_kernel(dir);
		kaish_result r;
		cr_assert_eq(kh_exec(k, c->script, &r), KAISH_OK, "%s", c->name);
		cr_expect_eq(r.out_len, c->out_len, "%s: %zu bytes, want %zu", c->name, r.out_len,
			     c->out_len);
		size_t tl = strlen(c->tail);
		cr_expect(r.out_len >= tl && !strcmp(r.out + r.out_len - tl, c->tail),
			  "%s: out ends [%s]", c->name, r.out_len > 20 ? r.out + r.out_len - 20 : r.out);
		cr_expect_eq(r.code, c->code, "%s: code %d", c->name, r.code);
		cr_expect_eq(r.original_code, c->orig, "%s: original_code %d", c->name,
			     r.original_code);
		cr_expect_eq(r.did_spill, c->spill, "%s: did_spill %d", c->name, r.did_spill);
		cr_expect_eq(strstr(r.out, "[output truncated:") != NULL, c->spill, "%s", c->name);
		kaish_result_free(&r);
		kaish_kernel_free(k);
		kh_rmtree(dir);
		free(dir);
	}
}

/* --- API ------------------------------------------------------------------------------------ */

static void count_trace(void *ctx, const char *ev)
{
	(*(int *)ctx)++;
}

Test(api, vars_cwd_trace_data)
{
	char *dir = kh_mkfixture(false);
	kaish_config *cfg = kaish_config_agent_with_root(dir);
	cr_assert_eq(kaish_config_set_var(cfg, "GREETING", "hey"), 0);
	cr_assert_eq(kaish_config_set_name(cfg, "t"), 0);
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	cr_assert_not_null(k);
	kaish_result r;
	cr_assert_eq(kh_exec(k, "echo $GREETING; X=set", &r), KAISH_OK);
	cr_expect_str_eq(r.out, "hey\n");
	kaish_result_free(&r);
	char *x = kaish_get_var(k, "X");
	cr_expect_str_eq(x, "set");
	free(x);
	cr_assert_eq(kh_exec(k, "false | true", &r), KAISH_OK);
	kaish_result_free(&r);
	x = kaish_get_var(k, "PIPESTATUS"); /* rendered from the kept numbers */
	cr_expect_str_eq(x, "[1,0]");
	free(x);
	cr_expect_eq(kaish_set_var(k, "PIPESTATUS", "[7]"), 0);
	x = kaish_get_var(k, "PIPESTATUS");
	cr_expect_str_eq(x, "[7]");
	free(x);
	cr_expect_null(kaish_get_var(k, "HOME"), "hermetic: no process env");
	cr_expect_eq(kaish_set_var(k, "Y", "why"), 0);
	cr_assert_eq(kh_exec(k, "echo $Y; mkdir sub; cd sub", &r), KAISH_OK);
	cr_expect_str_eq(r.out, "why\n");
	kaish_result_free(&r);
	char *cwd = kaish_cwd(k), *real = realpath(dir, NULL);
	cr_expect(strncmp(cwd, real, strlen(real)) == 0 && !strcmp(cwd + strlen(real), "/sub"), "%s", cwd);
	free(cwd);
	free(real);
	int events = 0;
	kaish_set_trace(k, count_trace, &events);
	cr_assert_eq(kh_exec(k, "echo a; echo b", &r), KAISH_OK);
	cr_expect_gt(events, 2);
	kaish_result_free(&r);
	kaish_set_trace(k, NULL, NULL);
	cr_assert_eq(kh_exec(k, "seq 1 3", &r), KAISH_OK);
	cr_expect_str_eq(r.data, "[1,2,3]");
	cr_expect_not(r.data_is_value);
	kaish_result_free(&r);
	cr_assert_eq(kh_exec(k, "seq 1 2 | scatter | echo $ITEM | gather", &r), KAISH_OK);
	cr_expect(r.data && r.data[0] == '[' && r.data_is_value);
	kaish_result_free(&r);
	kaish_kernel_free(k);
	kh_rmtree(dir);
	free(dir);
}

Test(api, bad_root_and_isolated)
{
	kaish_config *cfg = kaish_config_agent_with_root("/nonexistent/kaish/root");
	char *msg = NULL;
	cr_expect_null(kaish_kernel_new(cfg, &msg));
	cr_expect_not_null(msg);
	free(msg);
	kaish_config_free(cfg);
	cfg = kaish_config_isolated();
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	cr_assert_not_null(k);
	kaish_result r;
	/* §4.2 other modes: NoLocal is a memory filesystem at `/` (and /tmp). */
	cr_assert_eq(kh_exec(k, "pwd; echo hi > f; cat /f; ls /; cat nosuch", &r), KAISH_OK);
	cr_expect_str_eq(r.out, "/\nhi\nf\ntmp\n");
	cr_expect_eq(r.code, 1);
	cr_expect(strstr(r.err, "nosuch: No such file") != NULL, "%s", r.err);
	kaish_result_free(&r);
	kaish_kernel_free(k);
	kaish_result_free(NULL);
	kaish_kernel_free(NULL);
	kaish_config_free(NULL);
}

/* shell_bugs_tests.rs test_top_level_return_keeps_prior_output_and_stops_execution */
Test(api, skip_validation_top_level_return)
{
	char *dir = kh_mkfixture(false);
	kaish_config *cfg = kaish_config_agent_with_root(dir);
	kaish_config_set_skip_validation(cfg, true);
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	kaish_result r;
	cr_assert_eq(kh_exec(k, "echo setup-ok; return 0; echo after", &r), KAISH_OK);
	cr_expect_eq(r.code, 0);
	cr_expect_str_eq(r.out, "setup-ok\n");
	kaish_result_free(&r);
	kaish_kernel_free(k);
	kh_rmtree(dir);
	free(dir);
}

Test(api, skip_validation_and_errexit_config)
{
	char *dir = kh_mkfixture(false);
	kaish_config *cfg = kaish_config_agent_with_root(dir);
	kaish_config_set_skip_validation(cfg, true);
	kaish_config_set_errexit(cfg, true);
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	kaish_result r;
	cr_assert_eq(kh_exec(k, "echo a; nosuch; echo b", &r), KAISH_OK);
	cr_expect_eq(r.code, 127);
	cr_expect_str_eq(r.out, "a\n");
	kaish_result_free(&r);
	kaish_kernel_free(k);
	kh_rmtree(dir);
	free(dir);
}

struct conc {
	kaish_kernel *k;
	int bad;
};

static void *hammer(void *arg)
{
	struct conc *c = arg;
	for (int i = 0; i < 20; i++) {
		kaish_result r;
		if (kaish_execute(c->k, "X=$(echo v); echo $X", &r) != KAISH_OK || strcmp(r.out, "v\n"))
			c->bad++;
		kaish_result_free(&r);
	}
	return NULL;
}

Test(api, concurrent_callers_are_serialized)
{
	char *dir = kh_mkfixture(false);
	kaish_kernel *k = kh_kernel(dir);
	struct conc c = { .k = k };
	pthread_t t[3];
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, KAISH_RECOMMENDED_STACK_SIZE);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], &attr, hammer, &c);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_attr_destroy(&attr);
	cr_expect_eq(c.bad, 0);
	kaish_kernel_free(k);
	kh_rmtree(dir);
	free(dir);
}

static kaish_kernel *timeout_kernel(const char *dir, unsigned long ms)
{
	kaish_config *cfg = kaish_config_agent_with_root(dir);
	kaish_config_set_request_timeout(cfg, ms);
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	return k;
}

Test(api, request_timeout)
{
	char *dir = kh_mkfixture(false);
	kaish_kernel *k = timeout_kernel(dir, 100);
	const char *scripts[] = {
		"echo before; while true; do :; done; echo never",
		"X=$(while true; do :; done); echo never",
		"for i in $(seq 1 1000000); do :; done; echo never",
		"spin() { while true; do :; done; }; echo x | spin | cat; echo never",
		"spin() { while true; do :; done; }; seq 1 3 | scatter | spin | gather; echo never",
	};
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		kaish_result r;
		cr_assert_eq(kh_exec(k, scripts[i], &r), KAISH_OK);
		cr_expect_eq(r.code, KAISH_EXIT_TIMEOUT, "%s: code %d", scripts[i], r.code);
		cr_expect(strstr(r.out, "never") == NULL, "%s: %s", scripts[i], r.out);
		cr_expect(strstr(r.err, "kaish: timed out\n") != NULL, "%s: %s", scripts[i], r.err);
		kaish_result_free(&r);
	}
	/* The next call gets a fresh deadline. */
	kaish_result r;
	cr_assert_eq(kh_exec(k, "echo ok", &r), KAISH_OK);
	cr_expect_eq(r.code, 0);
	kaish_result_free(&r);
	kaish_kernel_free(k);
	kh_rmtree(dir);
	free(dir);
}

struct cancel_job {
	kaish_kernel *k;
	kaish_result r;
};

static void *cancel_runner(void *arg)
{
	struct cancel_job *j = arg;
	kaish_execute(j->k, "while true; do :; done", &j->r);
	return NULL;
}

Test(api, cancel)
{
	char *dir = kh_mkfixture(false);
	struct cancel_job j = { .k = kh_kernel(dir) };
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, KAISH_RECOMMENDED_STACK_SIZE);
	cr_assert_eq(pthread_create(&t, &attr, cancel_runner, &j), 0);
	/* A cancel that lands before kaish_execute starts is forgotten by it (each call starts
	 * afresh), and a slow host may start the thread late: cancel until the call returns. */
	do {
		usleep(50 * 1000);
		kaish_cancel(j.k);
	} while (pthread_tryjoin_np(t, NULL) == EBUSY);
	pthread_attr_destroy(&attr);
	cr_expect_eq(j.r.code, KAISH_EXIT_CANCELLED);
	cr_expect_str_eq(j.r.err, "kaish: cancelled\n");
	kaish_result_free(&j.r);
	kaish_result r;
	cr_assert_eq(kh_exec(j.k, "echo fresh", &r), KAISH_OK);
	cr_expect_str_eq(r.out, "fresh\n");
	kaish_result_free(&r);
	kaish_kernel_free(j.k);
	kh_rmtree(dir);
	free(dir);
}
