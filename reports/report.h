/*
 * report.h - a scenario's report for finance reviewers and architects.
 *
 * pp_report_build() computes everything once: the TCO comparison (the cost
 * engine, when the scenario has a "costs" section) or the scenario's own
 * step-time prediction (when it has none), the hardware parameters and
 * their origins, the calibration health verdict of the profile the
 * scenario names, and the warnings. The renderers then turn that one
 * pp_report into
 *   DIR/index.html  one self-contained page: inline CSS and SVG charts, no
 *                   script, no network; an A4/Letter print stylesheet
 *   DIR/summary.md  the answer, the options, warnings, in Markdown
 *   DIR/NAME.csv    every number the page shows (RFC 4180, CRLF)
 * The question and its answer come first; every price shows its source and
 * date; every piece of user-supplied text is escaped (HTML, Markdown).
 *
 * Data flow: scenario -> (cost engine | predict) -> pp_report -> files.
 * Nothing here changes the engines' results; values computed here are for
 * presentation only (time to result = lead time + training, chart ranges).
 *
 * Ownership: pp_report borrows the scenario and catalog (they must outlive
 * it) and owns the rest; pp_report_release() frees it.
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include "input/catalog.h"
#include "cost/cost.h"
#include "input/hw.h"
#include "engine/breakdown.h"
#include "engine/band.h"
#include "engine/predict.h"
#include "input/scenario.h"
#include "core/util.h"
#include <stdbool.h>

/* One row of a calibration run's health verdict (calib_runs.verdict_json). */
typedef struct pp_report_verdict {
	int64_t run_id;
	char check[96], scope[48], unit[16], verdict[12], cause[256];
	double measured, expected, ratio;
} pp_report_verdict;

typedef struct pp_report {
	const pp_scenario *s;        /* borrowed */
	const pp_catalog *cat;       /* borrowed */
	char scenario_path[1024];
	bool have_cost;              /* the scenario has a "costs" section */
	pp_cost_result cost;
	pp_hw hw;                    /* the scenario's own cluster, with parameter origins */
	bool have_pred;              /* no costs: the scenario's own step was predicted */
	pp_result pred;
	pp_band band;                /* pred's 80% interval (calib/evidence.h) */
	char calib_note[600];        /* which calibration applies, in words */
	pp_report_verdict *verdict;
	int nverdict;
	char **warnings;             /* the cost engine's, then the report's own */
	int nwarnings;
	char generated[40];          /* "2026-11-30 21:40 UTC" */
	double generated_s;          /* unix seconds */
	int64_t run_id;              /* the store's id once recorded, else 0 */
	char store_path[1024];       /* where it was recorded, "" before */
	double elapsed_s;            /* wall time of pp_report_build */
} pp_report;

typedef struct pp_report_opts {
	bool seed_given;             /* Monte Carlo seed/draws override, as podplan cost */
	unsigned long seed;
	bool draws_given;
	int draws;
	double now_s;                /* the report's timestamp; 0 = now */
	const char *store_path;      /* store holding calibration profiles when the scenario
					names a profile but no db; NULL = default path */
	const struct pp_hwcal *hwcal; /* the calibration resolved (calib/hwres.h); NULL: the
					 scenario's, found through store_path */
	/* the cost engine's serving simulations (pp_cost_opts.progress); may be NULL */
	void (*progress)(void *ctx, const char *what);
	void *progress_ctx;
} pp_report_opts;

/* Compute a report. Errors: PP_EINPUT for a costs section that cannot be
 * priced (file:line:col, JSON path), PP_EIO for unreadable data files; a
 * calibration profile named but not there is refused as every command
 * refuses it (pp_hwcal_init's errors). A calibration run whose verdict
 * cannot be read is a warning. */
int pp_report_build(pp_report *r, const pp_scenario *s, const pp_catalog *cat,
		    const char *scenario_path, const pp_report_opts *o, pp_err *err);
void pp_report_release(pp_report *r);

/* The page (html.c) and the Markdown summary (md.c); append to out. */
void pp_report_html(const pp_report *r, pp_sb *out);
void pp_report_md(const pp_report *r, pp_sb *out);

/* The CSV files (csvout.c): name and content of each, in a stable order. */
typedef struct pp_report_file {
	char name[40];
	pp_sb body;
} pp_report_file;
#define PP_REPORT_MAX_FILES 16
int pp_report_csv(const pp_report *r, pp_report_file *files, int max);
void pp_report_files_release(pp_report_file *files, int n);

/* Render everything and write it to dir (created as needed). The files are
 * first written to a staging directory (mkdtemp, fsynced; no link planted
 * in dir is followed), then put in place in one step - dir swapped with a
 * new tree holding the new files and hard links to dir's other files
 * (renameat2 RENAME_EXCHANGE) - so that a kill at any point leaves the old
 * report or the new one whole. Where dir cannot be swapped (it holds a
 * folder or a link, is a link or a mount point, belongs to another user,
 * or the file system cannot), the files are staged inside dir and renamed
 * in one by one, index.html last. An error while rendering, writing or
 * printing leaves dir as it was; the staging directory is removed, and
 * staging a killed run left is removed by the next run. With pdf_cmd (a
 * Chromium binary) the page is also printed to dir/report.pdf. names (may
 * be NULL) gets the file names written, one per line. Errors: PP_EIO
 * naming the path. */
int pp_report_write(const pp_report *r, const char *dir, const char *pdf_cmd, pp_sb *names,
		    pp_err *err);
/* pp_report_write with commit (may be NULL) called once every file is
 * staged and synced, before any is in place: the caller commits what
 * records the report (the history row), so a kill leaves the old report
 * and no record, or the new report and its record (but for the instant of
 * the swap itself). An error from commit leaves dir as it was; an error
 * after it (a failed move) is returned with the record committed, for the
 * caller to take back. */
int pp_report_write_commit(const pp_report *r, const char *dir, const char *pdf_cmd, pp_sb *names,
			   int (*commit)(void *arg, pp_err *err), void *arg, pp_err *err);

/* Files already rendered (names unique, index.html the last) written to
 * dir as pp_report_write_commit writes a report's: all or nothing, and
 * index.html last. The caller keeps and releases files. */
int pp_report_files_write(pp_report_file *files, int n, const char *dir, const char *pdf_cmd,
			  pp_sb *names, int (*commit)(void *arg, pp_err *err), void *arg,
			  pp_err *err);

/* Headless Chromium for --pdf: $PODPLAN_CHROMIUM when set (empty = none),
 * else chromium, chromium-browser, google-chrome on PATH. Returns buf, or
 * NULL when there is none. */
const char *pp_report_find_chromium(char *buf, size_t n);
/* Print html_path to pdf_path (Chromium's --print-to-pdf, no header or
 * footer; the page's @media print rules apply). Fails with PP_EIO when
 * Chromium fails, runs over 120 s, or writes no PDF. */
int pp_report_print_pdf(const char *chromium, const char *html_path, const char *pdf_path,
			pp_err *err);

/* What a run is recorded with in the store (table runs): the inputs (the
 * scenario document, podplan version, seed and draws, calibration, the
 * hashes of the catalog files, every figure used with its source and date)
 * and the results (answer, options, step times, warnings). Appends JSON. */
void pp_report_inputs_json(const pp_report *r, pp_sb *out);
void pp_report_results_json(const pp_report *r, const char *out_dir, pp_sb *out);

/* ---- shared by the renderers ---- */

/* Wall time until the work is done: lead time (build) + time to train;
 * NAN when the option has no training time (api, inference). */
double pp_report_time_to_result(const pp_cost_option *o);
/* The answer in one sentence (no markup); "" when there is nothing to say. */
void pp_report_headline(const pp_report *r, pp_sb *out);
/* Short kind names for people: "rent", "build", "API", "one node". */
const char *pp_report_kind_word(const pp_cost_option *o);
/* Option display colour (a fixed palette by index), cost-component colours
 * and names, and a colour for each step-breakdown part (indexed as
 * pp_breakdown_fields, whose labels name them). */
const char *pp_report_option_color(int i);
extern const char *const pp_report_comp_colors[PP_CC_COUNT];
extern const char *const pp_report_comp_words[PP_CC_COUNT];
extern const char *const pp_report_bd_colors[PP_BD_COUNT];
/* A path podplan found itself (the default store, the catalog directory)
 * as people may see it: below the working directory relative to it, below
 * $HOME as "~/...", else unchanged. Paths the user gave are printed as
 * given, never made absolute. Returns buf. */
const char *pp_report_public_path(const char *path, char *buf, size_t n);

#endif
