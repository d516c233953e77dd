/* costspec.c - see costspec.h. */
#include "costspec.h"

#include <string.h>

int pp_costspec_parse(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
		      const pp_catalog *cat, pp_err *err)
{
	(void)d; (void)path; (void)cat; (void)err;
	memset(cs, 0, sizeof(*cs));
	cs->present = obj != NULL;
	return 0;
}

void pp_costspec_release(pp_costspec *cs)
{
	(void)cs;
}
