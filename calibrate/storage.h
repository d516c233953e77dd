/*
 * storage.h - sequential write and read bandwidth of a checkpoint-sized
 * file in a directory the user names. CPU only.
 *
 * Write: O_DIRECT (no page cache), fixed-size blocks, fsync before the
 * clock stops, so the time is what reaching the device took. Where the
 * file system refuses O_DIRECT (tmpfs, some network and overlay file
 * systems) it writes through the page cache and fsyncs, and the read drops
 * the cache first (posix_fadvise DONTNEED); the method is in stats->note.
 * Each 4 KiB page carries its offset, and the read checks every page
 * (stats->wrong counts pages that came back wrong). The file is removed.
 */
#ifndef PP_CAL_STORAGE_H
#define PP_CAL_STORAGE_H

#include "backend.h"

/* r->write: write the file r->repeats times (then keep it for the read);
 * otherwise read it r->repeats times and remove it. */
int pp_cal_storage_run(const pp_cal_storage_req *r, pp_cal_stats *out, pp_err *err);

#endif
