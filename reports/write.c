/*
 * write.c - writing a report's files all-or-nothing, and printing the page
 * to PDF with headless Chromium.
 *
 * The files go to a staging directory (mkdtemp: a name no one can plant a
 * link under beforehand) beside DIR, with DIR's other files hard-linked
 * in, and the two directories are swapped in one step (renameat2
 * RENAME_EXCHANGE): a reader, or a kill at any point, sees the old report
 * whole or the new one whole. Where that cannot be done (DIR holds a
 * folder or a link, is a link or a mount point, is not ours, or the file
 * system cannot swap) the files are staged inside DIR and renamed into
 * place one by one, index.html last. Staging left by a killed run (its pid
 * gone, or a day old) is removed by the next run into the same DIR.
 */
#include "report.h"
#include "clusterrep.h"
#include "cluster/cout.h"
#include "core/dirs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *pp_report_find_chromium(char *buf, size_t n)
{
	const char *env = getenv("PODPLAN_CHROMIUM");
	if (env) {
		if (!*env || access(env, X_OK) != 0)
			return NULL;
		snprintf(buf, n, "%s", env);
		return buf;
	}
	static const char *const names[] = {"chromium", "chromium-browser", "google-chrome",
					    "google-chrome-stable"};
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (size_t i = 0; i < PP_ARRAY_LEN(names); i++) {
		const char *p = path;
		while (*p) {
			const char *c = strchr(p, ':');
			size_t l = c ? (size_t)(c - p) : strlen(p);
			if (l > 0) {
				snprintf(buf, n, "%.*s/%s", (int)l, p, names[i]);
				if (access(buf, X_OK) == 0)
					return buf;
			}
			p += l + (c ? 1 : 0);
		}
	}
	return NULL;
}

/* file:// URL of an absolute path, percent-encoding what a URL may not hold. */
static void file_url(const char *abs, pp_sb *out)
{
	pp_sb_adds(out, "file://");
	for (const unsigned char *p = (const unsigned char *)abs; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			pp_sb_add(out, (const char *)p, 1);
		else
			pp_sb_addf(out, "%%%02X", *p);
	}
}

int pp_report_print_pdf(const char *chromium, const char *html_path, const char *pdf_path,
			pp_err *err)
{
	char abs[PATH_MAX], prof[] = "/tmp/podplan-chromium.XXXXXX";
	pp_sb url = {0}, a_out = {0}, a_prof = {0};
	int rc = 0;
	if (!realpath(html_path, abs))
		return pp_errf(err, PP_EIO, "%s: %s", html_path, strerror(errno));
	if (!mkdtemp(prof))
		return pp_errf(err, PP_EIO, "cannot create a Chromium profile directory: %s",
			       strerror(errno));
	file_url(abs, &url);
	pp_sb_addf(&a_out, "--print-to-pdf=%s", pdf_path);
	pp_sb_addf(&a_prof, "--user-data-dir=%s", prof);
	char *argv[] = {(char *)chromium, "--headless", "--no-sandbox", "--disable-gpu",
			"--disable-quic", "--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--disable-extensions",
			"--no-pdf-header-footer", a_prof.buf, a_out.buf, url.buf, NULL};
	pid_t pid = fork();
	if (pid < 0) {
		rc = pp_errf(err, PP_EIO, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setpgid(0, 0);
		execv(chromium, argv);
		_exit(127);
	}
	/* Chromium prints a page in about a second; give it two minutes. */
	double t0 = pp_mono_s();
	int st = 0;
	pid_t w;
	while ((w = waitpid(pid, &st, WNOHANG)) == 0) {
		if (pp_mono_s() - t0 > 120) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			rc = pp_errf(err, PP_EIO, "%s did not print %s within 120 s", chromium, html_path);
			goto out;
		}
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		rc = pp_errf(err, PP_EIO, "%s --print-to-pdf failed (exit status %d)", chromium,
			     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		goto out;
	}
	char head[5] = "";
	FILE *f = fopen(pdf_path, "rb");
	if (!f || fread(head, 1, 4, f) != 4 || memcmp(head, "%PDF", 4)) {
		rc = pp_errf(err, PP_EIO, "%s: Chromium wrote no PDF", pdf_path);
	}
	if (f)
		fclose(f);
out:
	pp_rmtree(prof, NULL);
	pp_sb_release(&url);
	pp_sb_release(&a_out);
	pp_sb_release(&a_prof);
	return rc;
}

#define STAGE ".podplan-staging"

/* Where a report goes: DIR, its parent and its last name. */
typedef struct target {
	const char *dir;
	char parent[PATH_MAX], base[NAME_MAX + 1];
	char prefix[NAME_MAX + 32]; /* ".BASE.podplan-staging": staging beside DIR */
	bool swap;                  /* DIR can be swapped with a sibling */
	mode_t mode;                /* DIR's permission bits */
	char **keep;                /* DIR's other regular files, linked into the new tree */
	size_t nkeep;
} target;

static void target_release(target *t)
{
	for (size_t i = 0; i < t->nkeep; i++)
		free(t->keep[i]);
	free(t->keep);
}

static bool written(const pp_report_file *files, int n, bool pdf, const char *name)
{
	if (pdf && !strcmp(name, "report.pdf"))
		return true;
	for (int i = 0; i < n; i++)
		if (!strcmp(files[i].name, name))
			return true;
	return false;
}

/* Can DIR be swapped whole? A real directory (not a link to one) of this
 * user, on its parent's file system, holding regular files only (once the
 * staging of killed runs is cleaned); its files that the new report does
 * not write are kept. */
static void plan_target(target *t, const char *dir, const pp_report_file *files, int n, bool pdf)
{
	memset(t, 0, sizeof(*t));
	t->dir = dir;
	char d[PATH_MAX];
	snprintf(d, sizeof(d), "%s", dir);
	size_t l = strlen(d);
	while (l > 1 && d[l - 1] == '/')
		d[--l] = '\0';
	char *slash = strrchr(d, '/');
	snprintf(t->base, sizeof(t->base), "%s", slash ? slash + 1 : d);
	if (!slash)
		snprintf(t->parent, sizeof(t->parent), ".");
	else if (slash == d)
		snprintf(t->parent, sizeof(t->parent), "/");
	else
		snprintf(t->parent, sizeof(t->parent), "%.*s", (int)(slash - d), d);
	snprintf(t->prefix, sizeof(t->prefix), ".%s" STAGE, t->base);
	/* what a killed run left, in DIR and beside it */
	pp_clean_stale(dir, STAGE);
	pp_clean_stale(t->parent, t->prefix);
	struct stat st, ps;
	if (!*t->base || !strcmp(t->base, ".") || !strcmp(t->base, "..") ||
	    strlen(t->prefix) + 24 > NAME_MAX || lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || stat(t->parent, &ps) != 0 || ps.st_dev != st.st_dev)
		return;
	t->mode = st.st_mode & 07777;
	DIR *dd = opendir(dir);
	struct dirent *e;
	bool ok = dd != NULL;
	size_t cap = 0;
	while (ok && (e = readdir(dd))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat es;
		if (fstatat(dirfd(dd), e->d_name, &es, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(es.st_mode)) {
			ok = false; /* a folder, a link, a live run's staging: move files one by one */
			break;
		}
		if (written(files, n, pdf, e->d_name))
			continue;
		if (t->nkeep == cap) {
			cap = cap ? 2 * cap : 16;
			t->keep = pp_xrealloc(t->keep, cap * sizeof(*t->keep));
		}
		t->keep[t->nkeep++] = pp_xstrdup(e->d_name);
	}
	if (dd)
		closedir(dd);
	t->swap = ok;
}

/* DIR's other files into the new tree (hard links: the same files). */
static bool link_kept(const target *t, const char *stage)
{
	for (size_t i = 0; i < t->nkeep; i++) {
		char *from = pp_path_join(t->dir, t->keep[i]), *to = pp_path_join(stage, t->keep[i]);
		int e = link(from, to);
		free(from);
		free(to);
		if (e != 0)
			return false;
	}
	return true;
}

/* After the swap old holds the old tree: what appeared in DIR while the
 * new one was built (not in the new tree) goes back. */
static void restore_new_arrivals(const char *old, const char *dir)
{
	DIR *d = opendir(old);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *from = pp_path_join(old, e->d_name), *to = pp_path_join(dir, e->d_name);
		struct stat st;
		if (lstat(to, &st) != 0 && errno == ENOENT)
			rename(from, to);
		free(from);
		free(to);
	}
	if (d)
		closedir(d);
}

int pp_report_write(const pp_report *r, const char *dir, const char *pdf_cmd, pp_sb *names,
		    pp_err *err)
{
	return pp_report_write_commit(r, dir, pdf_cmd, names, NULL, NULL, err);
}

int pp_report_write_commit(const pp_report *r, const char *dir, const char *pdf_cmd, pp_sb *names,
			   int (*commit)(void *arg, pp_err *err), void *arg, pp_err *err)
{
	pp_report_file files[PP_REPORT_MAX_FILES + 3];
	int n = 0;
	/* everything rendered before anything is written */
	memset(files, 0, sizeof(files));
	n = pp_report_csv(r, files, PP_REPORT_MAX_FILES);
	snprintf(files[n].name, sizeof(files[n].name), "summary.md");
	pp_report_md(r, &files[n++].body);
	snprintf(files[n].name, sizeof(files[n].name), "index.html");
	pp_report_html(r, &files[n++].body);
	int rc = pp_report_files_write(files, n, dir, pdf_cmd, names, commit, arg, err);
	pp_report_files_release(files, n);
	return rc;
}

int pp_report_files_write(pp_report_file *files, int n, const char *dir, const char *pdf_cmd,
			  pp_sb *names, int (*commit)(void *arg, pp_err *err), void *arg,
			  pp_err *err)
{
	int rc = 0;
	char *stage = NULL;
	target t;
	memset(&t, 0, sizeof(t));
	if ((rc = pp_mkdirs(dir, err)))
		goto out;
	/* a name the report writes that DIR holds as anything but a file or a
	 * link (a folder, a FIFO) could not be replaced: refused before
	 * anything is written, so DIR stays as it was */
	for (int i = pdf_cmd ? -1 : 0; i < n; i++) {
		const char *name = i < 0 ? "report.pdf" : files[i].name;
		char *to = pp_path_join(dir, name);
		struct stat ts;
		if (lstat(to, &ts) == 0 && !S_ISREG(ts.st_mode) && !S_ISLNK(ts.st_mode))
			rc = pp_errf(err, PP_EIO, "%s: is %s, expected a file the report may replace (or "
				     "none); nothing was written", to,
				     S_ISDIR(ts.st_mode) ? "a folder" : "not a regular file");
		free(to);
		if (rc)
			goto out;
	}
	plan_target(&t, dir, files, n, pdf_cmd != NULL);
	if (t.swap && !(stage = pp_staging_dir(t.parent, t.prefix, NULL)))
		t.swap = false; /* the parent cannot be written: stage inside DIR */
	if (!stage && !(stage = pp_staging_dir(dir, STAGE, err))) {
		rc = PP_EIO;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		char *p = pp_path_join(stage, files[i].name);
		rc = pp_write_file_atomic(p, files[i].body.buf ? files[i].body.buf : "", files[i].body.len,
					  err);
		free(p);
		if (rc)
			goto out;
	}
	if (pdf_cmd) {
		char *html = pp_path_join(stage, "index.html"), *pdf = pp_path_join(stage, "report.pdf");
		rc = pp_report_print_pdf(pdf_cmd, html, pdf, err);
		free(html);
		free(pdf);
		if (rc)
			goto out;
	}
	if (t.swap && (!link_kept(&t, stage) || chmod(stage, t.mode) != 0))
		t.swap = false; /* DIR's files cannot be linked: move the new ones in instead */
	if ((rc = pp_dir_sync(stage, err)))
		goto out;
	/* the caller's record (the history row) is committed once every file
	 * is on disk and before any is in place */
	if (commit && (rc = commit(arg, err)))
		goto out;
	int ex = t.swap ? pp_dir_exchange(stage, dir, err) : 1;
	if (ex < 0) {
		rc = ex;
		goto out;
	}
	if (ex == 0) {
		restore_new_arrivals(stage, dir);
		pp_dir_sync(t.parent, NULL);
	} else {
		/* one by one: the pdf and the CSV/MD files first, index.html last */
		for (int i = pdf_cmd ? -1 : 0; i < n; i++) {
			const char *name = i < 0 ? "report.pdf" : files[i].name;
			char *from = pp_path_join(stage, name), *to = pp_path_join(dir, name);
			if (rename(from, to) != 0)
				rc = pp_errf(err, PP_EIO, "%s: cannot move into place: %s", to,
					     strerror(errno));
			free(from);
			free(to);
			if (rc)
				goto out;
		}
		pp_dir_sync(dir, NULL);
	}
	for (int i = pdf_cmd ? -1 : 0; names && i < n; i++) {
		pp_sb_adds(names, i < 0 ? "report.pdf" : files[i].name);
		pp_sb_adds(names, "\n");
	}
out:
	if (stage) {
		pp_rmtree(stage, NULL); /* the staging, or the old tree after a swap */
		free(stage);
	}
	target_release(&t);
	return rc;
}

int pp_report_cluster_write(const pp_report_cluster *c, const char *dir, pp_sb *names,
			    pp_err *err)
{
	pp_report_file files[8];
	int n = 0;
	memset(files, 0, sizeof(files));
	pp_report_cluster_csv(c, "", files, &n, 6);
	if (c->r->jobs) {
		snprintf(files[n].name, sizeof(files[n].name), "jobs.csv");
		pp_cout_csv_jobs(&files[n++].body, c->jobs, c->r);
	}
	snprintf(files[n].name, sizeof(files[n].name), "summary.md");
	pp_sb *md = &files[n++].body;
	pp_sb_adds(md, "# podplan cluster\n\n```\n");
	pp_cout_text(md, c->spec, c->jobs, c->r);
	if (c->spec_b) {
		pp_sb_adds(md, "\n");
		pp_cout_compare_text(md, c->spec_path, c->r, c->name_b, c->rb);
	}
	pp_sb_adds(md, "```\n");
	snprintf(files[n].name, sizeof(files[n].name), "index.html");
	pp_report_cluster_page(&files[n++].body, c);
	int rc = pp_report_files_write(files, n, dir, NULL, names, NULL, NULL, err);
	pp_report_files_release(files, n);
	return rc;
}
