/* cli.c - see cli.h. */
#include "cli/cli.h"
#include "core/store.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pp_cli_fail(const pp_err *err)
{
	fprintf(stderr, "podplan: %s\n", err->msg[0] ? err->msg : "unknown error");
	return pp_exit_status(err->code ? err->code : PP_EINTERNAL);
}

int pp_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "podplan %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'podplan %s --help'.\n", cmd);
	return 2;
}

int pp_cli_catalog(pp_catalog **cat)
{
	pp_err err = {0};
	int rc = pp_catalog_load(cat, NULL, &err);
	if (rc)
		return pp_cli_fail(&err);
	return 0;
}

int pp_cli_parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		return -1;
	*out = (unsigned long)v;
	return 0;
}

int pp_cli_parse_seed(const char *cmd, const char *s, unsigned long *out)
{
	if (pp_cli_parse_ulong(s, 4294967295UL, out))
		return pp_cli_usage_error(cmd, "--seed: found \"%s\", expected an integer "
					  "0..4294967295", s);
	return 0;
}

int pp_cli_parse_num(const char *cmd, const char *opt, const char *s, double min, double max,
		     bool inf_ok, const char *what, double *out)
{
	double v;
	if (inf_ok && !strcmp(s, "inf")) {
		*out = INFINITY;
		return 0;
	}
	if (pp_parse_decimal(s, &v) || !(v >= min && v <= max))
		return pp_cli_usage_error(cmd, "%s: found \"%s\", expected %s from %g to %g%s", opt, s,
					  what, min, max, inf_ok ? " or inf" : "");
	*out = v;
	return 0;
}

int pp_cli_load_scenario(pp_cli_scenario *l, const char *cmd, const char *path, const char *calib,
			 const char *default_db, unsigned flags)
{
	pp_err err = {0};
	memset(l, 0, sizeof(*l));
	int rc = pp_cli_catalog(&l->cat);
	if (rc)
		return rc;
	rc = flags & PP_CLI_UNCHECKED ? pp_scenario_load_unchecked(&l->s, path, l->cat, &err)
				      : pp_scenario_load(&l->s, path, l->cat, &err);
	if (rc)
		return pp_cli_fail(&err);
	if ((flags & PP_CLI_SERVING) && !l->s.serve.present)
		return pp_cli_usage_error(cmd, "%s has no \"serving\" section; expected a serving "
					  "scenario (see podplan serve --help)", path);
	if (flags & PP_CLI_NO_HW)
		return 0;
	char db[4096] = "", prof[160] = "";
	if (calib) {
		const char *colon = strrchr(calib, ':');
		if (!colon || colon == calib || !colon[1])
			return pp_cli_usage_error(cmd, "--calibration %s: expected DB:PROFILE", calib);
		snprintf(db, sizeof(db), "%.*s", (int)(colon - calib), calib);
		snprintf(prof, sizeof(prof), "%s", colon + 1);
		if (access(db, R_OK) != 0)
			return pp_cli_usage_error(cmd, "--calibration %s: the store %s does not exist or "
						  "is unreadable; expected a podplan store with a "
						  "calibration profile (podplan fit --list)", calib, db);
	}
	if ((rc = pp_hwcal_init(&l->cal, &l->s, calib ? db : NULL, calib ? prof : NULL, default_db,
				&err)) ||
	    (rc = pp_hw_resolve(&l->hw, l->cat, &l->s.cluster, &l->cal, &err)))
		return pp_cli_fail(&err);
	return 0;
}

void pp_cli_scenario_release(pp_cli_scenario *l)
{
	pp_scenario_release(&l->s);
	pp_catalog_free(l->cat);
	l->cat = NULL;
}

bool pp_cli_tty(void)
{
	return isatty(2);
}

void pp_cli_serve_progress(void *ctx, const char *what)
{
	pp_cli_prog *p = ctx;
	p->n++;
	if (!p->tty)
		return;
	fprintf(stderr, "\r%s: simulating serving on %-40.40s (replica %d) ", p->cmd, what, p->n);
	p->shown = true;
}

void pp_cli_serve_progress_end(pp_cli_prog *p)
{
	if (p->shown)
		fprintf(stderr, "\r%78s\r", "");
	p->shown = false;
}
