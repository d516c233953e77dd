/*
 * warn.h - a list of warning sentences, as the cost engine's result and the
 * report hold them (pp_cost_result and pp_report: char **warnings, int
 * nwarnings): added printf-style, each sentence once (one equal to a
 * sentence already in the list is dropped), kept in the order first added.
 *
 * The list is the pair (*items, *n); a zeroed pair is an empty list. The
 * strings and the array are owned by the list and freed by pp_warn_free.
 * Allocation failure aborts, as pp_xmalloc does.
 */
#ifndef PP_WARN_H
#define PP_WARN_H

#include <stdarg.h>

void pp_warn_addf(char ***items, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void pp_warn_vaddf(char ***items, int *n, const char *fmt, va_list ap);
/* Free the sentences and the array; the caller clears its pair. */
void pp_warn_free(char **items, int n);

#endif
