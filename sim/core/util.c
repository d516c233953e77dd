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

/* Bytes a terminal would act on: C0 controls (TAB, LF and ESC among them),
 * DEL, and the C1 controls U+0080..U+009F in their UTF-8 form (C2 80..9F);
 * the length of the sequence at s, 0 when s starts printable text. */
static size_t control_len(const unsigned char *s)
{
	if (*s < 0x20 || *s == 0x7f)
		return 1;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

bool pp_has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		if (control_len(p))
			return true;
	return false;
}

bool pp_has_control_text(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		if (*p != '\t' && control_len(p))
			return true;
	return false;
}

/* Copy s into out[n] (n > 0) with each control byte written as \xNN. */
static void copy_escaped(char *out, size_t n, const char *s)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p && o + 1 < n;) {
		size_t c = control_len(p);
		if (!c) {
			out[o++] = (char)*p++;
			continue;
		}
		for (size_t k = 0; k < c; k++, p++) {
			if (o + 5 > n) {
				out[o] = '\0';
				return;
			}
			snprintf(out + o, 5, "\\x%02x", *p);
			o += 4;
		}
	}
	out[o] = '\0';
}

const char *pp_tty_str(const char *s, char *buf, size_t n)
{
	copy_escaped(buf, n, s ? s : "");
	return buf;
}

const char *pp_tty(const char *s)
{
	static char ring[16][4096];
	static unsigned next;
	return pp_tty_str(s, ring[next++ % 16], sizeof(ring[0]));
}

void pp_sb_add_tty(pp_sb *sb, const char *s)
{
	char b[8];
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		size_t c = control_len(p);
		if (!c) {
			pp_sb_add(sb, (const char *)p++, 1);
			continue;
		}
		for (size_t k = 0; k < c; k++, p++) {
			snprintf(b, sizeof(b), "\\x%02x", *p);
			pp_sb_adds(sb, b);
		}
	}
}

void pp_sb_tty_from(pp_sb *sb, size_t from)
{
	if (!sb->buf || from >= sb->len)
		return;
	bool any = false;
	for (size_t i = from; i < sb->len && !any; i++)
		any = sb->buf[i] != '\n' && control_len((const unsigned char *)sb->buf + i);
	if (!any)
		return;
	pp_sb tail = {0};
	pp_sb_add(&tail, sb->buf + from, sb->len - from);
	sb->len = from;
	sb->buf[from] = '\0';
	for (char *line = tail.buf, *nl; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		pp_sb_add_tty(sb, line);
		if (nl)
			pp_sb_add(sb, "\n", 1);
	}
	pp_sb_release(&tail);
}

int pp_errf(pp_err *err, int code, const char *fmt, ...)
{
	if (err) {
		/* one line for the terminal: a name or a path from the input may
		 * hold ESC sequences or newlines */
		char raw[PP_ERR_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		copy_escaped(err->msg, sizeof(err->msg), raw);
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

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO (named pipe)" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int pp_read_file(const char *path, size_t max_bytes, char **out, size_t *len, pp_err *err)
{
	int rc = 0;
	char *buf = NULL;
	size_t n = 0;
	/* O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return pp_errf(err, PP_EINPUT, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		rc = pp_errf(err, PP_EINPUT, "%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = pp_errf(err, PP_EINPUT, "%s: is %s, expected a regular file", path,
			     file_kind(st.st_mode));
		goto out;
	}
	if ((uintmax_t)st.st_size > (uintmax_t)max_bytes) {
		rc = pp_errf(err, PP_EINPUT, "%s: larger than %zu bytes (%jd), expected a smaller file",
			     path, max_bytes, (intmax_t)st.st_size);
		goto out;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	/* the size may change while we read (a log still being written): read
	 * to the end, never past max_bytes */
	size_t cap = (size_t)st.st_size + 1 < 8192 ? 8192 : (size_t)st.st_size + 1;
	buf = pp_xmalloc(cap);
	for (;;) {
		if (n + 1 == cap) {
			if (n >= max_bytes + 1) {
				rc = pp_errf(err, PP_EINPUT, "%s: larger than %zu bytes, expected a smaller "
					     "file", path, max_bytes);
				goto out;
			}
			cap = cap * 2 > max_bytes + 2 ? max_bytes + 2 : cap * 2;
			buf = pp_xrealloc(buf, cap);
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			rc = pp_errf(err, PP_EINPUT, "%s: read error: %s", path, strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max_bytes) {
		rc = pp_errf(err, PP_EINPUT, "%s: larger than %zu bytes, expected a smaller file", path,
			     max_bytes);
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = n;
out:
	free(buf);
	close(fd);
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
	char *tmp = pp_xmalloc(plen + 16);
	snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
	/* mkstemp: a fresh random name, O_CREAT | O_EXCL (a planted link is
	 * never followed), mode 0600 */
	fd = mkstemp(tmp);
	if (fd < 0) {
		tmp[0] = '\0';
		rc = pp_errf(err, PP_EIO, "%s: cannot create: %s", path, strerror(errno));
		goto out;
	}
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		rc = pp_errf(err, PP_EIO, "%s: cannot set the mode: %s", path, strerror(errno));
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
	if (close(fd) != 0) {
		fd = -1;
		rc = pp_errf(err, PP_EIO, "%s: write failed: %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		rc = pp_errf(err, PP_EIO, "%s: rename failed: %s", path, strerror(errno));
		goto out;
	}
out:
	if (fd >= 0)
		close(fd);
	if (rc && tmp[0])
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

int pp_parse_decimal(const char *s, double *out)
{
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	size_t digits = 0;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits++;
	}
	if (!digits)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return -1;
	char *end;
	double v = strtod(s, &end);
	if (end != p || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

bool pp_utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		unsigned c = *s;
		int n;
		unsigned min, cp;
		if (c < 0x80) {
			s++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1, min = 0x80, cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2, min = 0x800, cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3, min = 0x10000, cp = c & 0x07;
		} else {
			return false;
		}
		for (int i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		s += n + 1;
	}
	return true;
}
