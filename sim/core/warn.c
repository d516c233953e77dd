/* warn.c - see warn.h. */
#include "core/warn.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

void pp_warn_vaddf(char ***items, int *n, const char *fmt, va_list ap)
{
	pp_sb sb = {0};
	pp_sb_vaddf(&sb, fmt, ap);
	for (int i = 0; i < *n; i++)
		if (!strcmp((*items)[i], sb.buf ? sb.buf : "")) {
			pp_sb_release(&sb);
			return;
		}
	*items = pp_xrealloc(*items, (size_t)(*n + 1) * sizeof(char *));
	(*items)[(*n)++] = pp_sb_detach(&sb);
}

void pp_warn_addf(char ***items, int *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pp_warn_vaddf(items, n, fmt, ap);
	va_end(ap);
}

void pp_warn_free(char **items, int n)
{
	for (int i = 0; i < n; i++)
		free(items[i]);
	free(items);
}
