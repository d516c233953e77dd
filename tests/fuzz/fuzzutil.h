/*
 * fuzzutil.h - what the libFuzzer targets of tests/fuzz/ share (built by
 * `make fuzz`, run by `make fuzz-run SECONDS=N`; tests/fuzz/run.sh).
 *
 * Each target is one LLVMFuzzerTestOneInput over one entry point of
 * podplan's input: every input must end in success or a clean error with a
 * message (PP_EINPUT and friends); a crash, a leak, undefined behaviour
 * (float casts included) or an error without a message is a finding. The
 * targets never touch the repository's files: the catalog is read once,
 * stores live in memory, temporary files under a private mkdtemp folder.
 */
#ifndef PP_FUZZUTIL_H
#define PP_FUZZUTIL_H

#include "input/catalog.h"
#include <stddef.h>
#include <stdint.h>

/* The catalog, loaded once from $PODPLAN_DATA (else models/): aborts when
 * it cannot be read (a broken set-up, not a finding). */
const pp_catalog *fz_catalog(void);

/* data as a NUL-terminated heap string (caller frees); *n its length. */
char *fz_text(const uint8_t *data, size_t size);

/* This process's scratch folder (mkdtemp, removed at exit). */
const char *fz_tmpdir(void);

/* Write size bytes to dir/name (created or replaced); the path (static
 * buffer) or NULL. */
const char *fz_write(const char *name, const void *data, size_t size);

/* A failed call must say why: abort (a finding) when rc != 0 and the
 * message is empty. */
void fz_check_err(int rc, const char *msg, const char *what);

#endif

#include "core/store.h"

/* One store in memory for the whole run, emptied by each call. */
pp_store *fz_store(void);

/* Every reader of what st holds, as the commands use them: calibration
 * runs listed, shown and exported (CSV, JSON), verdicts formatted, each
 * run fitted (GPU h100-sxm) and the profile saved, loaded again (it must
 * load), applied to a small scenario and predicted; the history listed
 * (text, CSV) and its first two runs compared. */
void fz_read_store(pp_store *st);

/* A profile's JSON text through the loader; a profile that loads is
 * written again, must load again, and is applied to a small scenario that
 * is predicted. */
void fz_profile_json(const char *json);
