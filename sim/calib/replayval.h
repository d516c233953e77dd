/*
 * replayval.h - replayed steps against predictions: the CSV that
 * `podplan-calibrate replay --csv` writes (config, predicted_s, measured_s,
 * ..., scenario), read back, optionally predicted again with the current
 * engine and calibration profile, with the absolute-error summary.
 * `podplan validate --replay FILE.csv` prints it.
 *
 * error = (predicted - measured) / measured. The measured steps never feed
 * a fit: they are held-out ground truth.
 *
 * The framework validation CSV (models/calibrations/framework-h200.csv,
 * models/validation/framework.sh) has the same three columns and more:
 * predicted_bytes and measured_bytes (podplan's per-GPU memory against the
 * caching allocator's peak reservation), framework, model, seq,
 * micro_batch, recompute, predicted_at_commit, status. Its measured cells
 * stay empty until the measurement: such a row is pending, shown with its
 * prediction and left out of the error summary.
 */
#ifndef PP_REPLAYVAL_H
#define PP_REPLAYVAL_H

#include "input/catalog.h"
#include "core/csv.h"
#include "core/pp.h"
#include "core/util.h"

#include <stdbool.h>

typedef struct pp_replay_row {
	char config[192];
	char scenario[512];     /* "" when the CSV has no scenario column */
	char profile[160];
	double predicted_s, measured_s, error;   /* measured_s, error NAN: pending */
	/* memory, where the file has predicted_bytes and measured_bytes; NAN
	 * when a cell is empty */
	double predicted_bytes, measured_bytes, bytes_error;
	int csv_row;            /* index into the parsed CSV (0 = header) */
} pp_replay_row;

typedef struct pp_replayset {
	pp_replay_row *rows;
	int n;
	int nmeasured;              /* rows with a measured_s */
	double mean_abs, max_abs;   /* over those */
	bool has_bytes;             /* the file has predicted_bytes and measured_bytes */
	int nbytes;                 /* rows with both */
	double bytes_mean_abs, bytes_max_abs;
	pp_csv csv;                 /* the file as read (for --csv output) */
} pp_replayset;

/* The most a replay CSV may hold (a replay appends about 30 rows of 150
 * bytes): larger is PP_EINPUT. */
#define PP_REPLAYVAL_MAX_BYTES ((size_t)16 << 20)
#define PP_REPLAYVAL_MAX_ROWS 20000
/* Read FILE.csv (needs the columns config, predicted_s, measured_s; an
 * empty measured_s is a pending row). PP_EINPUT names the line and column
 * of a bad value. */
int pp_replayval_load(const char *path, pp_replayset *v, pp_err *err);
/* The same for a CSV text already read (path names it in messages). */
int pp_replayval_parse(const char *path, const char *text, pp_replayset *v, pp_err *err);

/* Predict every row again from its scenario file (relative paths are taken
 * from the current directory, as the replay wrote them) with the
 * scenario's calibration section, and recompute the errors; the per-GPU
 * memory too where the file has predicted_bytes. */
int pp_replayval_repredict(pp_replayset *v, const pp_catalog *cat, pp_err *err);

/* The CSV again: config, predicted_s, measured_s, error_pct and, where the
 * file has them, measured_min_s, measured_max_s, steps, warmup, framework,
 * model, seq, micro_batch, recompute, predicted_bytes, measured_bytes (then
 * bytes_error_pct), status, predicted_at_commit, profile, scenario;
 * predictions, errors and profile as they now are (pending rows' measured
 * and error cells empty). */
void pp_replayval_csv(const pp_replayset *v, pp_sb *out);

void pp_replayset_release(pp_replayset *v);

#endif
