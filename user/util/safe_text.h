/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * safe_text - text that came from the target (symbol names, paths, units read back from a
 * profile), made safe to show. Two places need it:
 *  - a terminal: a traced program can name a function "\e]52;c;...\a" or "\e[2J", and root's
 *    terminal would obey. Control characters (C0, DEL, C1) and bytes that are not UTF-8 are
 *    shown as \xHH instead; valid printable UTF-8 passes unchanged;
 *  - JSON: strict parsers reject bytes that are not UTF-8. Every JSON writer replaces each
 *    such byte by U+FFFD, written as the escape \ufffd (dhat_writer.c, json_writer.c), the
 *    same way every time.
 */
#ifndef TRACER_SAFE_TEXT_H
#define TRACER_SAFE_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if the bytes there are not one
 * (overlong forms, surrogates and code points above U+10FFFF are invalid; a NUL byte inside
 * a sequence ends it, so reading never passes a terminator). */
size_t safe_text__utf8_len(const unsigned char *p);

/* Write s to f for a terminal: control characters and invalid bytes as \xHH (NULL is
 * written "(null)", as printf would). */
void safe_text__fputs_term(FILE *f, const char *s);

/* s made terminal-safe into dst (dst_sz > 0), truncated (at a character) to fit. */
void safe_text__copy_term(char *dst, size_t dst_sz, const char *s);

/* How many safe_text__term() results of one thread are valid at once. */
#define SAFE_TEXT_TERM_SLOTS 8

/*
 * s made terminal-safe (as safe_text__copy_term, at most 4 KiB) in one of
 * SAFE_TEXT_TERM_SLOTS rotating buffers of the calling thread, for a log line's arguments:
 * elog("cannot open %s", safe_text__term(path)). NULL gives "(null)".
 */
const char *safe_text__term(const char *s);

/*
 * s made safe as a part of a file name into dst (dst_sz > 0): printable ASCII letters,
 * digits and "+,-.=@_" kept, every other byte (a '/', a space, a control character, UTF-8)
 * as '_'; a leading '-' or '.' (an option, a hidden file, "..") as '_' too; "" as "_".
 * The tracer names profiles after the images it traced, whose names are the target's.
 */
void safe_text__file_name(char *dst, size_t dst_sz, const char *s);

#endif
