/* dirs.c - see dirs.h. */
#define _GNU_SOURCE /* renameat2 (glibc 2.28) */
#include "core/dirs.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Deeper than any tree podplan makes (one level); a planted tree deeper
 * than this is left in place rather than walked on the stack. */
#define MAX_DEPTH 64

/* The names of the open directory fd (consumed: closed here), read in full
 * before anything is removed (readdir over a directory being emptied may
 * skip entries). */
static char **names_of(int fd, size_t *n)
{
	DIR *d = fdopendir(fd);
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	if (!d) {
		close(fd);
		return NULL;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			v = pp_xrealloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = pp_xstrdup(e->d_name);
	}
	closedir(d);
	return v;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Remove name in the directory dfd; the first failure into *first (errno),
 * the walk goes on. */
static void rm_at(int dfd, const char *name, int depth, int *first)
{
	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return;
	if (errno != EISDIR && errno != EPERM) {
		if (!*first)
			*first = errno;
		return;
	}
	/* a directory (or so it was a moment ago): entered only as one, a link
	 * put in its place since is refused by O_NOFOLLOW */
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR) { /* replaced by a link or a file */
			if (unlinkat(dfd, name, 0) != 0 && errno != ENOENT && !*first)
				*first = errno;
		} else if (errno != ENOENT && !*first) {
			*first = errno;
		}
		return;
	}
	if (depth >= MAX_DEPTH) {
		close(fd);
		if (!*first)
			*first = ELOOP;
		return;
	}
	size_t n;
	int dup_fd = dup(fd);
	char **v = names_of(fd, &n);
	for (size_t i = 0; dup_fd >= 0 && i < n; i++)
		rm_at(dup_fd, v[i], depth + 1, first);
	free_names(v, n);
	if (dup_fd >= 0)
		close(dup_fd);
	else if (!*first)
		*first = errno;
	if (unlinkat(dfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT && !*first)
		*first = errno;
}

int pp_rmtree(const char *path, pp_err *err)
{
	int first = 0;
	rm_at(AT_FDCWD, path, 0, &first);
	if (first)
		return pp_errf(err, PP_EIO, "%s: cannot remove: %s", path, strerror(first));
	return 0;
}

int pp_dir_sync(const char *path, pp_err *err)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pp_errf(err, PP_EIO, "%s: cannot open: %s", path, strerror(errno));
	int rc = 0;
	if (fsync(fd) != 0 && errno != EINVAL)
		rc = pp_errf(err, PP_EIO, "%s: fsync failed: %s", path, strerror(errno));
	close(fd);
	return rc;
}

int pp_dir_exchange(const char *a, const char *b, pp_err *err)
{
	if (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0)
		return 0;
	if (errno == EINVAL || errno == ENOSYS || errno == EXDEV || errno == EBUSY ||
	    errno == EOPNOTSUPP)
		return 1;
	return pp_errf(err, PP_EIO, "%s: cannot swap with %s: %s", b, a, strerror(errno));
}

/* The pid in NAME = PREFIX.PID[.XXXXXX], or -1. */
static long staging_pid(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	if (strncmp(name, prefix, pl) || name[pl] != '.')
		return -1;
	char *end;
	errno = 0;
	long pid = strtol(name + pl + 1, &end, 10);
	if (end == name + pl + 1 || errno || pid <= 0 || (*end && *end != '.'))
		return -1;
	return pid;
}

int pp_clean_stale(const char *dir, const char *prefix)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int keep = dup(fd);
	size_t n;
	char **v = names_of(fd, &n);
	int removed = 0;
	time_t now = time(NULL);
	for (size_t i = 0; keep >= 0 && i < n; i++) {
		long pid = staging_pid(v[i], prefix);
		struct stat st;
		if (pid < 0 || fstatat(keep, v[i], &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    st.st_uid != geteuid() || pid == (long)getpid())
			continue;
		bool dead = pid <= 4194304 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
		if (!dead && now - st.st_mtime < 86400)
			continue;
		int first = 0;
		rm_at(keep, v[i], 0, &first);
		removed += !first;
	}
	free_names(v, n);
	if (keep >= 0)
		close(keep);
	return removed;
}

char *pp_staging_dir(const char *dir, const char *prefix, pp_err *err)
{
	pp_sb sb = {0};
	pp_sb_addf(&sb, "%s%s%s.%ld.XXXXXX", dir, *dir && dir[strlen(dir) - 1] == '/' ? "" : "/",
		   prefix, (long)getpid());
	char *p = pp_sb_detach(&sb);
	if (!mkdtemp(p)) {
		pp_errf(err, PP_EIO, "%s: cannot create a staging directory: %s", dir, strerror(errno));
		free(p);
		return NULL;
	}
	return p;
}
