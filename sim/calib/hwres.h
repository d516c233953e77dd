/*
 * hwres.h - the one way from a scenario to the hardware parameters the
 * engine runs on: the catalog's figures for a cluster's GPU, fabrics and
 * storage (input/hw.h, with the scenario's storage overrides), then the
 * calibration profile named by `--calibration DB:PROFILE` or by the
 * scenario's "calibration" section, on every cluster that profile
 * describes. Every command and every library caller that turns a scenario
 * into hardware goes through here, so a named profile is applied
 * everywhere it describes the hardware, or the scenario is refused
 * everywhere with the same message.
 *
 * A profile measures one pod: its GPU SKU and its two fabrics. It applies
 * to a cluster with that GPU and those fabrics, of any size (its
 * collective fits are per group size); a cluster of other hardware (a
 * cost option on another GPU, a size candidate on another fabric) gets
 * the catalog's figures and no profile (pp_hw.profile stays "").
 */
#ifndef PP_HWRES_H
#define PP_HWRES_H

#include "calib/profile.h"
#include "input/catalog.h"
#include "input/hw.h"
#include "input/scenario.h"
#include <stdbool.h>

typedef struct pp_hwcal {
	bool on;                    /* a profile is named, and loaded into prof */
	char db[4096];              /* the store it came from */
	char name[160];             /* as named: NAME or NAME@VERSION */
	pp_profile prof;
	/* the hardware it describes: the scenario's cluster's (catalog ids) */
	char gpu[32], intra[24], inter[24];
} pp_hwcal;

/* Find and load the calibration profile for scenario s: the one named by
 * db and profile (`--calibration DB:PROFILE`, split; both NULL when not
 * given), else by s's calibration section, from its db, else default_db
 * (NULL: pp_store_default_path()). c->on is false when none is named.
 * Errors (c->on false): PP_EINPUT when the store does not exist or is
 * unreadable (naming the option, or the scenario's calibration.db /
 * calibration.profile with its file position) or the version is malformed;
 * PP_ENOTFOUND when the store has no such profile; a store's own error. */
int pp_hwcal_init(pp_hwcal *c, const pp_scenario *s, const char *db, const char *profile,
		  const char *default_db, pp_err *err);

/* Whether c's profile describes cluster cl: c is on and cl has the GPU and
 * the fabrics of the scenario the profile was named for. c may be NULL. */
bool pp_hwcal_covers(const pp_hwcal *c, const pp_cluster *cl);

/* The hardware of cluster cl: pp_hw_from_catalog, then c's profile where
 * it covers cl (pp_profile_apply; hw->profile names it). c may be NULL
 * (the catalog's figures alone). Errors: pp_hw_from_catalog's. */
int pp_hw_resolve(pp_hw *hw, const pp_catalog *cat, const pp_cluster *cl, const pp_hwcal *c,
		  pp_err *err);

/* A pp_hw_resolve_fn: the hardware of cluster cl of scenario s as the
 * command prologue resolves it, with the profile s's calibration section
 * names (none: the catalog's figures), loaded for this call. ctx: the
 * default store path for a section that names no db (a const char *;
 * NULL: pp_store_default_path()). Errors: pp_hwcal_init's (the scenario
 * refused, as every command refuses it) and pp_hw_resolve's. */
int pp_hw_of_scenario(void *ctx, const pp_catalog *cat, const pp_scenario *s,
		      const pp_cluster *cl, pp_hw *hw, pp_err *err);

#endif
