/* storage.c - see storage.h. */
#define _GNU_SOURCE /* O_DIRECT */
#include "storage.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096

static char file_path[4096];
static bool direct_ok = true;

static void path_for(const char *dir)
{
	snprintf(file_path, sizeof(file_path), "%s/podplan-calibrate.%ld.tmp", dir, (long)getpid());
}

/* Stamp every page of a block with its file offset. */
static void stamp(char *buf, size_t n, uint64_t off)
{
	for (size_t p = 0; p + sizeof(uint64_t) <= n; p += PAGE) {
		uint64_t v = (off + p) ^ 0x706f64706c616eull;
		memcpy(buf + p, &v, sizeof(v));
	}
}

static int64_t unstamp(const char *buf, size_t n, uint64_t off)
{
	int64_t bad = 0;
	for (size_t p = 0; p + sizeof(uint64_t) <= n; p += PAGE) {
		uint64_t v;
		memcpy(&v, buf + p, sizeof(v));
		bad += v != ((off + p) ^ 0x706f64706c616eull);
	}
	return bad;
}

static int open_file(bool write, int *fd, pp_err *err)
{
	int flags = write ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY;
	if (direct_ok) {
		*fd = open(file_path, flags | O_DIRECT, 0600);
		if (*fd >= 0)
			return 0;
		if (errno != EINVAL)
			return pp_errf(err, PP_EIO, "%s: %s", file_path, strerror(errno));
		direct_ok = false; /* this file system has no O_DIRECT */
	}
	*fd = open(file_path, flags, 0600);
	if (*fd < 0)
		return pp_errf(err, PP_EIO, "%s: %s", file_path, strerror(errno));
	return 0;
}

static int one_pass(const pp_cal_storage_req *r, char *buf, double *secs, int64_t *wrong,
		    pp_err *err)
{
	int fd = -1, rc = 0;
	double t0 = pp_mono_s();
	if ((rc = open_file(r->write, &fd, err)))
		return rc;
	if (!r->write && !direct_ok)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (size_t off = 0; off < r->bytes; off += r->block) {
		size_t n = r->bytes - off < r->block ? r->bytes - off : r->block;
		if (r->write)
			stamp(buf, n, off);
		for (size_t done = 0; done < n;) {
			ssize_t k = r->write ? pwrite(fd, buf + done, n - done, (off_t)(off + done))
					     : pread(fd, buf + done, n - done, (off_t)(off + done));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				rc = pp_errf(err, PP_EIO, "%s: %s at byte %zu: %s", file_path,
					     r->write ? "write" : "read", off + done,
					     k < 0 ? strerror(errno) : "unexpected end of file");
				goto out;
			}
			done += (size_t)k;
		}
		if (!r->write)
			*wrong += unstamp(buf, n, off);
	}
	if (r->write && fsync(fd)) {
		rc = pp_errf(err, PP_EIO, "%s: fsync: %s", file_path, strerror(errno));
		goto out;
	}
out:
	if (close(fd) && !rc)
		rc = pp_errf(err, PP_EIO, "%s: close: %s", file_path, strerror(errno));
	*secs = pp_mono_s() - t0;
	return rc;
}

int pp_cal_storage_run(const pp_cal_storage_req *r, pp_cal_stats *out, pp_err *err)
{
	int rc = 0;
	char *buf = NULL;
	double t[64];
	int n = r->repeats < 1 ? 1 : r->repeats > 64 ? 64 : r->repeats;
	struct stat sb;
	memset(out, 0, sizeof(*out));
	if (stat(r->dir, &sb) || !S_ISDIR(sb.st_mode))
		return pp_errf(err, PP_EINPUT, "--storage-path %s: not a directory", r->dir);
	if (r->block % PAGE || r->bytes % PAGE || !r->block)
		return pp_errf(err, PP_EINPUT, "storage: file size and block must be multiples of %d "
			       "bytes (O_DIRECT)", PAGE);
	if (r->write) {
		path_for(r->dir);
		direct_ok = true;
	}
	if (posix_memalign((void **)&buf, PAGE, r->block))
		return pp_errf(err, PP_ENOMEM, "storage: no memory for a %zu-byte buffer", r->block);
	/* a pattern that no file system compresses or deduplicates away */
	for (size_t i = 0; i < r->block; i++)
		buf[i] = (char)((i * 2654435761u) >> 13);
	int64_t wrong = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = one_pass(r, buf, &t[i], &wrong, err);
	if (!rc) {
		pp_cal_stats_from(t, n, 1, out);
		out->wrong = r->write ? -1 : wrong;
		snprintf(out->note, sizeof(out->note), "%s", direct_ok ? "O_DIRECT" : "buffered+fsync");
	}
	if (rc || !r->write)
		unlink(file_path);
	free(buf);
	return rc;
}
