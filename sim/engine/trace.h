/*
 * trace.h - a simulated step as a Chrome/Perfetto trace (JSON Trace Event
 * Format: "X" complete events, one process per simulated rank, one thread
 * per stream or link). Open it in ui.perfetto.dev or chrome://tracing.
 */
#ifndef PP_TRACE_H
#define PP_TRACE_H

#include "engine/des.h"
#include "core/pp.h"

typedef struct pp_trace pp_trace;

pp_trace *pp_trace_new(void);
void pp_trace_free(pp_trace *t);
/* Record every task of a finished simulation (replaces earlier content).
 * title names the trace (the scenario). */
void pp_trace_capture(pp_trace *t, const pp_des *d, const char *title);
/* The JSON text (owned by t). */
const char *pp_trace_json(const pp_trace *t);
/* Write it atomically to path. */
int pp_trace_write(const pp_trace *t, const char *path, pp_err *err);

#endif
