/*
 * dirs.h - directories podplan writes into without trusting what is in
 * them: removing a tree without following a link, syncing a directory,
 * swapping two directories in one step, and finding staging folders a
 * killed run left behind.
 *
 * Why by hand: POSIX has no "rm -r" call, and nftw(3) follows a symbolic
 * link planted between its stat and its unlink; these walk with openat(2)
 * and O_NOFOLLOW | O_DIRECTORY, so a name replaced by a link in the middle
 * of the walk is unlinked, never entered. The swap is Linux's renameat2(2)
 * RENAME_EXCHANGE (ext4, XFS, Btrfs, tmpfs); elsewhere it says so and the
 * caller takes another way.
 */
#ifndef PP_DIRS_H
#define PP_DIRS_H

#include "core/pp.h"
#include <stdbool.h>

/* Remove path: a file or a link is unlinked (never its target); a
 * directory is emptied depth first and removed. A missing path is 0.
 * Errors: PP_EIO naming the first entry that could not be removed (the walk
 * goes on with the others). */
int pp_rmtree(const char *path, pp_err *err);

/* fsync(2) a directory, so that the renames into it survive a crash.
 * 0, or PP_EIO. */
int pp_dir_sync(const char *path, pp_err *err);

/* Exchange a and b (both directories or both files) in one step: a reader
 * sees either the old or the new at each name, never neither. Returns 0,
 * 1 when the system or the file system cannot do it (nothing changed), or
 * PP_EIO. */
int pp_dir_exchange(const char *a, const char *b, pp_err *err);

/* Staging names: PREFIX.PID.XXXXXX. A staging entry of dir whose name
 * starts with prefix is stale when its pid is not a live process of this
 * host or it is older than a day, and it belongs to this user; each stale
 * one is removed with pp_rmtree. Returns how many were removed (errors are
 * ignored: a folder that cannot be cleaned is left as it was). */
int pp_clean_stale(const char *dir, const char *prefix);

/* A fresh staging directory dir/PREFIX.PID.XXXXXX (mkdtemp(3): a name no
 * one can guess, mode 0700, created by this call and not there before).
 * Returns the heap path (caller frees), or NULL with err (PP_EIO). */
char *pp_staging_dir(const char *dir, const char *prefix, pp_err *err);

#endif
