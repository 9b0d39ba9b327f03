/* SPDX-License-Identifier: MIT */
/*
 * bi_table.h - the entry points, static checks and usage texts the registry in bi_table.c
 * lists; each bi_*.c (and scatter.c) defines its own.
 */
#ifndef KAISH_BI_TABLE_H
#define KAISH_BI_TABLE_H

#include "builtins.h"

int bi_echo(struct bi_ctx *c, int argc, char **argv);
int bi_seq(struct bi_ctx *c, int argc, char **argv);
int bi_seq_check(int argc, char **argv, char **msg);
int bi_grep(struct bi_ctx *c, int argc, char **argv);
int bi_grep_check(int argc, char **argv, char **msg);
int bi_sed(struct bi_ctx *c, int argc, char **argv);
int bi_sed_check(int argc, char **argv, char **msg);
int bi_wc(struct bi_ctx *c, int argc, char **argv);
int bi_cat(struct bi_ctx *c, int argc, char **argv);
int bi_head(struct bi_ctx *c, int argc, char **argv);
int bi_tail(struct bi_ctx *c, int argc, char **argv);
int bi_sort(struct bi_ctx *c, int argc, char **argv);
int bi_uniq(struct bi_ctx *c, int argc, char **argv);
int bi_cut(struct bi_ctx *c, int argc, char **argv);
int bi_tr(struct bi_ctx *c, int argc, char **argv);
int bi_ls(struct bi_ctx *c, int argc, char **argv);
int bi_mkdir(struct bi_ctx *c, int argc, char **argv);
int bi_rm(struct bi_ctx *c, int argc, char **argv);
int bi_touch(struct bi_ctx *c, int argc, char **argv);
int bi_pwd(struct bi_ctx *c, int argc, char **argv);
int bi_cd(struct bi_ctx *c, int argc, char **argv);
int bi_test(struct bi_ctx *c, int argc, char **argv);
int bi_test_check(int argc, char **argv, char **msg);
int bi_export(struct bi_ctx *c, int argc, char **argv);
int bi_set(struct bi_ctx *c, int argc, char **argv);
int bi_unset(struct bi_ctx *c, int argc, char **argv);
int bi_scatter(struct bi_ctx *c, int argc, char **argv);
int bi_gather(struct bi_ctx *c, int argc, char **argv);

extern const char bi_echo_usage[], bi_seq_usage[], bi_grep_usage[], bi_sed_usage[],
	bi_wc_usage[], bi_cat_usage[], bi_head_usage[], bi_tail_usage[], bi_sort_usage[],
	bi_uniq_usage[], bi_cut_usage[], bi_tr_usage[], bi_ls_usage[], bi_mkdir_usage[],
	bi_rm_usage[], bi_touch_usage[], bi_pwd_usage[], bi_cd_usage[], bi_test_usage[],
	bi_export_usage[], bi_set_usage[], bi_unset_usage[], bi_scatter_usage[],
	bi_gather_usage[];

#endif /* KAISH_BI_TABLE_H */
