/* util.c - see util.h. */
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int pp_errf(pp_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

int pp_exit_status(int code)
{
	if (code == 0)
		return 0;
	return code == PP_EINPUT || code == PP_ENOTFOUND ? 2 : 1;
}

void *pp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("podplan: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *pp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fputs("podplan: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *pp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("podplan: out of memory\n", stderr);
		abort();
	}
	return q;
}

char *pp_xstrdup(const char *s)
{
	size_t n = strlen(s ? s : "");
	char *d = pp_xmalloc(n + 1);
	memcpy(d, s ? s : "", n + 1);
	return d;
}

void pp_sb_release(pp_sb *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

static void sb_grow(pp_sb *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	sb->buf = pp_xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void pp_sb_add(pp_sb *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void pp_sb_adds(pp_sb *sb, const char *s)
{
	pp_sb_add(sb, s, strlen(s));
}

void pp_sb_vaddf(pp_sb *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void pp_sb_addf(pp_sb *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pp_sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void pp_sb_add_html(pp_sb *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': pp_sb_adds(sb, "&lt;"); break;
		case '>': pp_sb_adds(sb, "&gt;"); break;
		case '&': pp_sb_adds(sb, "&amp;"); break;
		case '"': pp_sb_adds(sb, "&quot;"); break;
		case '\'': pp_sb_adds(sb, "&#39;"); break;
		default: pp_sb_add(sb, s, 1);
		}
	}
}

char *pp_sb_detach(pp_sb *sb)
{
	char *b = sb->buf ? sb->buf : pp_xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return b;
}

int pp_read_file(const char *path, size_t max_bytes, char **out, size_t *len, pp_err *err)
{
	int rc = 0;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return pp_errf(err, PP_EINPUT, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = pp_errf(err, PP_EINPUT, "%s: is a directory, expected a file", path);
		goto out;
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = pp_xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (n > max_bytes) {
			rc = pp_errf(err, PP_EINPUT, "%s: larger than %zu bytes, expected a small JSON file",
				     path, max_bytes);
			goto out;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = pp_errf(err, PP_EINPUT, "%s: read error", path);
		goto out;
	}
	buf = buf ? buf : pp_xmalloc(1);
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = n;
out:
	free(buf);
	fclose(f);
	return rc;
}

int pp_mkdirs(const char *path, pp_err *err)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(tmp))
		return pp_errf(err, PP_EIO, "%s: bad directory path", path);
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
			return pp_errf(err, PP_EIO, "%s: cannot create: %s", tmp, strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
		return pp_errf(err, PP_EIO, "%s: cannot create: %s", tmp, strerror(errno));
	return 0;
}

int pp_write_file_atomic(const char *path, const char *data, size_t len, pp_err *err)
{
	int rc = 0, fd = -1;
	size_t plen = strlen(path);
	char *tmp = pp_xmalloc(plen + 32);
	snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0) {
		rc = pp_errf(err, PP_EIO, "%s: cannot create: %s", path, strerror(errno));
		goto out;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = pp_errf(err, PP_EIO, "%s: write failed: %s", path, strerror(errno));
			goto out;
		}
		off += (size_t)w;
	}
	if (fsync(fd) != 0 && errno != EINVAL) {
		rc = pp_errf(err, PP_EIO, "%s: fsync failed: %s", path, strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	if (rename(tmp, path) != 0) {
		rc = pp_errf(err, PP_EIO, "%s: rename failed: %s", path, strerror(errno));
		goto out;
	}
out:
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int pp_edit_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	if (la > 64) la = 64;
	if (lb > 64) lb = 64;
	int prev[65], cur[65];
	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++) {
		cur[0] = i;
		for (int j = 1; j <= lb; j++) {
			int c = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < c) c = prev[j] + 1;
			if (cur[j - 1] + 1 < c) c = cur[j - 1] + 1;
			cur[j] = c;
		}
		memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
	}
	return prev[lb];
}

const char *pp_did_you_mean(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	int bestd = 1 << 30;
	for (size_t i = 0; i < n; i++) {
		int d = pp_edit_distance(word, cands[i]);
		if (d < bestd) {
			bestd = d;
			best = cands[i];
		}
	}
	int len = (int)strlen(word);
	int limit = len <= 4 ? 1 : len <= 10 ? 3 : len / 3 + 1;
	return bestd <= limit ? best : NULL;
}

char *pp_path_join(const char *dir, const char *name)
{
	pp_sb sb = {0};
	pp_sb_adds(&sb, dir);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		pp_sb_adds(&sb, "/");
	pp_sb_adds(&sb, name);
	return pp_sb_detach(&sb);
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *pp_data_dir(void)
{
	static char dir[PATH_MAX];
	if (dir[0])
		return dir;
	const char *env = getenv("PODPLAN_DATA");
	if (env && *env) {
		snprintf(dir, sizeof(dir), "%s", env);
		return dir;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* <prefix>/bin/podplan: check <prefix>/models, then share/. The
			 * sanitizer build lives at build/san/bin, so look up to three
			 * levels for a checkout. */
			char cand[PATH_MAX + 64];
			const char *ups[] = {"/../models", "/../../models", "/../../../models",
					     "/../share/podplan/models"};
			for (size_t i = 0; i < PP_ARRAY_LEN(ups); i++) {
				snprintf(cand, sizeof(cand), "%s%s", exe, ups[i]);
				char real[PATH_MAX];
				if (realpath(cand, real) && is_dir(real)) {
					char probe[PATH_MAX + 16];
					snprintf(probe, sizeof(probe), "%s/gpus.json", real);
					if (access(probe, R_OK) == 0) {
						snprintf(dir, sizeof(dir), "%s", real);
						return dir;
					}
				}
			}
		}
	}
	snprintf(dir, sizeof(dir), "%s", "models");
	return dir;
}

double pp_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double pp_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

const char *pp_fmt_duration(double s, char *buf, size_t n)
{
	if (s < 0)
		snprintf(buf, n, "-");
	else if (s < 1e-3)
		snprintf(buf, n, "%.1f us", s * 1e6);
	else if (s < 1.0)
		snprintf(buf, n, "%.1f ms", s * 1e3);
	else if (s < 120.0)
		snprintf(buf, n, "%.2f s", s);
	else if (s < 7200.0)
		snprintf(buf, n, "%.1f min", s / 60.0);
	else if (s < 3 * 86400.0)
		snprintf(buf, n, "%.1f h", s / 3600.0);
	else
		snprintf(buf, n, "%.1f days", s / 86400.0);
	return buf;
}

const char *pp_fmt_bytes(double b, char *buf, size_t n)
{
	const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int i = 0;
	while (b >= 1024.0 && i < 5) {
		b /= 1024.0;
		i++;
	}
	snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", b, u[i]);
	return buf;
}

const char *pp_fmt_usd(double usd, char *buf, size_t n)
{
	double a = usd < 0 ? -usd : usd;
	const char *sign = usd < 0 ? "-" : "";
	if (a >= 1e9)
		snprintf(buf, n, "%s$%.2fB", sign, a / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%s$%.2fM", sign, a / 1e6);
	else if (a >= 1e4)
		snprintf(buf, n, "%s$%.1fk", sign, a / 1e3);
	else if (a >= 100)
		snprintf(buf, n, "%s$%.0f", sign, a);
	else
		snprintf(buf, n, "%s$%.2f", sign, a);
	return buf;
}

const char *pp_fmt_tokens(double t, char *buf, size_t n)
{
	if (!isfinite(t))
		snprintf(buf, n, "-");
	else if (t >= 1e12)
		snprintf(buf, n, "%.3gT", t / 1e12);
	else if (t >= 1e9)
		snprintf(buf, n, "%.3gB", t / 1e9);
	else if (t >= 1e6)
		snprintf(buf, n, "%.3gM", t / 1e6);
	else
		snprintf(buf, n, "%.0f", t);
	return buf;
}

void pp_hash_hex(const void *data, size_t n, char buf[17])
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	snprintf(buf, 17, "%016llx", (unsigned long long)h);
}
