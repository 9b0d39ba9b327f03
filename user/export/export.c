// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export - the front door of the exporters: names, suffixes and file creation per format,
 * then a call into export_pprof.c, export_folded.c, export_svg.c or export_timeline.c.
 * Nothing below calls back here.
 */
#include "export.h"

#include <errno.h>
#include <string.h>

#include "dhat_reader.h"
#include "output.h"
#include "recorded_skip.h"

struct format_info {
	const char *name, *alias; /* --format values */
	const char *suffix;	  /* next to the DHAT file: PATH.json -> PATH<suffix> */
	unsigned output_flags;	  /* output__open flags ("-" is stdout for every format) */
};

static const struct format_info formats[EXPORT_FMT_CNT] = {
	[EXPORT_FMT_PPROF] = { "pprof", NULL, ".pb.gz", OUTPUT_GZIP },
	[EXPORT_FMT_FOLDED] = { "folded", "collapsed", ".folded", 0 },
	[EXPORT_FMT_SVG] = { "svg", "flamegraph", ".svg", 0 },
	[EXPORT_FMT_TIMELINE] = { "timeline", NULL, ".timeline.svg", 0 },
};

int export_format__parse(const char *s, enum export_format *fmt)
{
	if (!s)
		return -EINVAL;
	for (int i = 0; i < EXPORT_FMT_CNT; i++) {
		if (!strcmp(s, formats[i].name) || (formats[i].alias && !strcmp(s, formats[i].alias))) {
			*fmt = (enum export_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *export_format__suffix(enum export_format fmt)
{
	return fmt >= 0 && fmt < EXPORT_FMT_CNT ? formats[fmt].suffix : NULL;
}

bool export_format__from_profile(enum export_format fmt)
{
	return fmt == EXPORT_FMT_PPROF || fmt == EXPORT_FMT_FOLDED || fmt == EXPORT_FMT_SVG;
}

/* The exporter of fmt, writing src to out. */
static int dispatch(enum export_format fmt, const struct export_src *src, FILE *out,
		    const struct export_opts *opts)
{
	switch (fmt) {
	case EXPORT_FMT_PPROF:
		return export__pprof_write(src->profile, out, opts);
	case EXPORT_FMT_FOLDED:
		return export__folded_opts(src->profile, out, opts);
	case EXPORT_FMT_SVG:
		return export__flamegraph_svg_opts(src->profile, out, opts);
	case EXPORT_FMT_TIMELINE:
		if (!src->timeline)
			return export__timeline_profile_svg(src->profile, out, opts);
		return export__timeline_svg(src->timeline, out, opts ? opts->title : NULL);
	default:
		return -EINVAL;
	}
}

int export__write(enum export_format fmt, const struct export_src *src, const char *path,
		  const struct export_opts *opts)
{
	struct export_opts eo = opts ? *opts : (struct export_opts){ 0 };
	struct site_opts site = { 0 };
	struct output o;
	int err;

	if (fmt < 0 || fmt >= EXPORT_FMT_CNT || !src ||
	    (export_format__from_profile(fmt) ? !src->profile : !src->timeline && !src->profile))
		return -EINVAL;
	/* Checked before the file is created: no empty output for a file without a series. */
	if (fmt == EXPORT_FMT_TIMELINE && !src->timeline && !export__has_timeline(src->profile))
		return -ENODATA;
	/* The trace's --skip patterns, recorded in the file, as if given (recorded_skip.h). */
	if (src->profile &&
	    recorded_skip__merge(src->profile, eo.skip, !eo.no_recorded_skip, &site))
		return -ENOMEM;
	if (site.skip)
		eo.skip = &site;
	err = output__open(&o, path, OUTPUT_STDOUT_DASH | formats[fmt].output_flags);
	if (!err)
		err = output__close(&o, dispatch(fmt, src, o.f, site.skip || opts ? &eo : NULL));
	recorded_skip__release(&site);
	return err;
}

int export__to_path(const struct dhat_profile *p, enum export_format fmt, const char *path,
		    const struct export_opts *opts)
{
	return export__write(fmt, &(struct export_src){ .profile = p }, path, opts);
}

int export__pprof(const struct dhat_profile *p, const char *path)
{
	return export__to_path(p, EXPORT_FMT_PPROF, path, NULL);
}
