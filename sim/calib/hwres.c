/* hwres.c - see hwres.h. */
#include "calib/hwres.h"
#include "core/jdoc.h"
#include "core/store.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pp_hwcal_init(pp_hwcal *c, const pp_scenario *s, const char *db, const char *profile,
		  const char *default_db, pp_err *err)
{
	memset(c, 0, sizeof(*c));
	if (profile) {
		snprintf(c->db, sizeof(c->db), "%s", db ? db : "");
		snprintf(c->name, sizeof(c->name), "%s", profile);
		if (access(c->db, R_OK) != 0)
			return pp_errf(err, PP_EINPUT, "--calibration %s:%s: the store %s does not exist "
				       "or is unreadable; expected a podplan store with a calibration "
				       "profile (podplan fit --list)", c->db, profile, c->db);
	} else if (s->calib_profile[0]) {
		snprintf(c->db, sizeof(c->db), "%s",
			 s->calib_db[0] ? s->calib_db : default_db ? default_db : pp_store_default_path());
		snprintf(c->name, sizeof(c->name), "%s", s->calib_profile);
		if (access(c->db, R_OK) != 0)
			return pp_jdoc_errf(&s->doc, err, s->calib_db[0] ? "calibration.db"
								       : "calibration.profile",
					    "the store %s does not exist or is unreadable; expected a "
					    "podplan store holding profile \"%s\" (podplan fit --list)",
					    c->db, c->name);
	} else {
		return 0;
	}
	int rc = pp_profile_load_spec(c->db, c->name, &c->prof, err);
	if (rc)
		return rc;
	const pp_cluster *cl = &s->cluster;
	snprintf(c->gpu, sizeof(c->gpu), "%s", cl->gpu ? cl->gpu->id : "");
	snprintf(c->intra, sizeof(c->intra), "%s", cl->intra ? cl->intra->id : "");
	snprintf(c->inter, sizeof(c->inter), "%s", cl->inter ? cl->inter->id : "");
	c->on = true;
	return 0;
}

bool pp_hwcal_covers(const pp_hwcal *c, const pp_cluster *cl)
{
	return c && c->on && cl->gpu && cl->intra && cl->inter && !strcmp(cl->gpu->id, c->gpu) &&
	       !strcmp(cl->intra->id, c->intra) && !strcmp(cl->inter->id, c->inter);
}

int pp_hw_resolve(pp_hw *hw, const pp_catalog *cat, const pp_cluster *cl, const pp_hwcal *c,
		  pp_err *err)
{
	int rc = pp_hw_from_catalog(hw, cat, cl, err);
	if (rc)
		return rc;
	if (pp_hwcal_covers(c, cl))
		pp_profile_apply(hw, &c->prof);
	return 0;
}

int pp_hw_of_scenario(void *ctx, const pp_catalog *cat, const pp_scenario *s,
		      const pp_cluster *cl, pp_hw *hw, pp_err *err)
{
	pp_hwcal *c = pp_xmalloc(sizeof(*c)); /* a profile's fits: too big for the stack */
	int rc = pp_hwcal_init(c, s, NULL, NULL, ctx, err);
	if (!rc)
		rc = pp_hw_resolve(hw, cat, cl, c, err);
	free(c);
	return rc;
}
