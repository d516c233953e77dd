/*
 * breakdown.h - the fields of the step-time breakdown (pp_breakdown,
 * predict.h) in one table: the key each machine-readable output uses (JSON
 * key, CSV column), where the figure lives in the struct, and the words
 * people read. Every printer of a breakdown - predict's table and JSON,
 * search and size (text, JSON, CSV), cost JSON, the report's CSV, Markdown,
 * HTML and charts, the record in the store - walks this table, so a new
 * term of the step is added here once.
 *
 * Order: the table's, which is pp_breakdown's (compute first, then the
 * exposed communication, bubble, optimizer, data loading); renderers that
 * colour the parts index their palettes by it.
 */
#ifndef PP_BREAKDOWN_H
#define PP_BREAKDOWN_H

#include "engine/predict.h"
#include "core/csv.h"
#include "core/jsonout.h"
#include <stdbool.h>
#include <stddef.h>

#define PP_BD_COUNT 8

/* What a summary that folds the parts into four columns puts each in. */
typedef enum pp_bd_group {
	PP_BD_COMPUTE,            /* kernels */
	PP_BD_COMM,               /* exposed communication of any kind */
	PP_BD_BUBBLE,             /* pipeline fill and drain */
	PP_BD_OTHER,              /* optimizer, data loading */
	PP_BD_GROUPS
} pp_bd_group;

typedef struct pp_breakdown_field {
	const char *key;          /* JSON key and CSV column, seconds: "tp_comm_exposed_s" */
	size_t offset;            /* offsetof(pp_breakdown, the field) */
	const char *label;        /* for people: "tensor/context-parallel comm (exposed)" */
	const char *short_label;  /* a table column, at most 9 characters: "TP/CP" */
	pp_bd_group group;
} pp_breakdown_field;

extern const pp_breakdown_field pp_breakdown_fields[PP_BD_COUNT];

/* Field k (0 <= k < PP_BD_COUNT) of b, seconds. */
double pp_breakdown_get(const pp_breakdown *b, int k);
/* Every field of b, in the table's order. */
void pp_breakdown_values(const pp_breakdown *b, double out[PP_BD_COUNT]);
/* The fields of b summed by group. */
void pp_breakdown_groups(const pp_breakdown *b, double out[PP_BD_GROUPS]);
/* The label of field k for a step whose pipeline sends block (a pipeline
 * without overlap_p2p_comm, evgraph.h): its stall is booked with the
 * sends, and the send/recv row says so. Otherwise the table's label. */
const char *pp_breakdown_label(int k, bool blocking_p2p);
/* The longest label's length, for aligning a column of labels. */
int pp_breakdown_label_width(void);

/* The breakdown as a JSON object {key: seconds, ...}, each figure rounded
 * to sig significant digits (jsonout.h), added to parent under key. */
cJSON *pp_breakdown_json(cJSON *parent, const char *key, const pp_breakdown *b, int sig);
/* The keys as CSV header cells, and b's figures as cells (%.<sig>g); a NULL
 * b writes empty cells (no simulated step). The row stays open. */
void pp_breakdown_csv_names(pp_csvw *w);
void pp_breakdown_csv(pp_csvw *w, const pp_breakdown *b, int sig);

#endif
